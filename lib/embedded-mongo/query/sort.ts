/** The sort of `find` and of the pipeline's `$sort` stage when it orders documents or arrays. */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import { valuesAtPath } from "../storage/keys";
import { compareCollated, type Collation } from "./collation";
import { isTextScoreMeta, textScores } from "./text";

/**
 * MongoDB's sort order: values compare across types by BSON type order, and an array sorts by
 * its smallest element ascending, by its largest descending.
 */
export function sortDocuments(docs: Document[], sort: Document, collation?: Collation): Document[] {
  const compare = (a: unknown, b: unknown) => compareCollated(a, b, collation);
  // `{$meta: "textScore"}` sorts by the text score, highest first.
  const fields = Object.entries(sort).map(([path, dir]) => ({
    path,
    meta: isTextScoreMeta(dir),
    dir: isTextScoreMeta(dir) || Number(dir) < 0 ? -1 : 1,
  }));
  const keyed = docs.map((doc) => ({
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
  }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const c = compare(a.keys[i], b.keys[i]) * fields[i].dir;
      if (c !== 0) return c;
    }
    return 0;
  });
  return keyed.map((k) => k.doc);
}
