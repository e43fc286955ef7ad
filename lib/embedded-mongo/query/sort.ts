/** The sort of `find` and of the pipeline's `$sort` stage when it orders documents or arrays. */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import { valuesAtPath } from "../storage/keys";
import { compareCollated, type Collation } from "./collation";
import { isTextScoreMeta, textScores } from "./text";
import { due, runNow, type Work } from "./work";

/**
 * MongoDB's sort order: values compare across types by BSON type order, and an array sorts by
 * its smallest element ascending, by its largest descending.
 */
export function sortDocuments(docs: Document[], sort: Document, collation?: Collation): Document[] {
  return runNow(sortWork(docs, sort, collation));
}

/** Documents sorted in runs of this many, then merged: a long read pauses between them (work.ts). */
const RUN = 2048;

/** {@link sortDocuments} as a read that may pause: the same order (a stable merge of stable runs). */
export function* sortWork(docs: Document[], sort: Document, collation?: Collation): Work<Document[]> {
  const compare = (a: unknown, b: unknown) => compareCollated(a, b, collation);
  // `{$meta: "textScore"}` sorts by the text score, highest first.
  const fields = Object.entries(sort).map(([path, dir]) => ({
    path,
    meta: isTextScoreMeta(dir),
    dir: isTextScoreMeta(dir) || Number(dir) < 0 ? -1 : 1,
  }));
  let read = 0;
  const keyOf = (doc: Document) => ({
    doc,
    keys: fields.map(({ path, dir, meta }) => {
      if (meta) {
        const score = textScores.get(doc);
        if (score === undefined)
          throw new MongoCommandError("Location40218", "query requires text score metadata, but it is not available");
        return score;
      }
      const { values } = valuesAtPath(doc, path);
      return values.reduce((best, v) => (compare(v, best) * dir < 0 ? v : best));
    }),
  });
  type Keyed = ReturnType<typeof keyOf>;
  const order = (a: Keyed, b: Keyed) => {
    for (let i = 0; i < fields.length; i++) {
      const c = compare(a.keys[i], b.keys[i]) * fields[i].dir;
      if (c !== 0) return c;
    }
    return 0;
  };
  if (docs.length <= RUN)
    return docs
      .map(keyOf)
      .sort(order)
      .map((k) => k.doc);
  let keyed: Keyed[] = [];
  for (const doc of docs) {
    keyed.push(keyOf(doc));
    if (due(++read)) yield;
  }
  for (let start = 0; start < keyed.length; start += RUN) {
    const run = keyed.slice(start, start + RUN).sort(order);
    for (let i = 0; i < run.length; i++) keyed[start + i] = run[i];
    yield;
  }
  // Bottom-up merges of neighbouring runs; on a tie the left one's element first, so stable.
  for (let width = RUN; width < keyed.length; width *= 2) {
    const merged: Keyed[] = new Array<Keyed>(keyed.length);
    let out = 0;
    for (let left = 0; left < keyed.length; left += 2 * width) {
      const mid = Math.min(left + width, keyed.length);
      const end = Math.min(left + 2 * width, keyed.length);
      let i = left;
      let j = mid;
      while (i < mid && j < end) {
        merged[out++] = order(keyed[j], keyed[i]) < 0 ? keyed[j++] : keyed[i++];
        if (due(out)) yield;
      }
      while (i < mid) merged[out++] = keyed[i++];
      while (j < end) merged[out++] = keyed[j++];
    }
    keyed = merged;
  }
  return keyed.map((k) => k.doc);
}
