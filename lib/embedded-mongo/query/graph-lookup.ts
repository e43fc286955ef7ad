/**
 * `$graphLookup`, the server's own, because mingo's joins each level through its `$lookup`, which
 * ignores the operation's collation and the order of a document's fields: here each level is the
 * query MongoDB runs (document_source_graph_lookup.cpp), `{$and: [restrictSearchWithMatch,
 * {connectToField: {$in: values}}]}`, over the foreign collection read once per command.
 */
import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import type { Iterator } from "mingo/lazy";
import { Query } from "mingo/query";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { numberTypeAt, setField, setNumberType, type NumberType } from "../storage/bson-values";
import { isPlainObject, ownField } from "../storage/keys";
import type { Collation } from "./collation";
import { bucketJoin, foreignKeys, readForeign } from "./ordered-stages";
import { parseGraphLookup, type GraphLookupSpec } from "./pipeline-check";
import { withPatterns } from "./regex-options";
import { rewriteTypeOperators } from "./type-operators";

type PipelineOp = (coll: Iterator, expr: unknown, options: Options) => Iterator;

/**
 * `$graphLookup` under the operation's collation (`collationOf`: the command's, else the local
 * collection's default; never the joined one's): breadth first from `startWith` (an array: each
 * element), each foreign document kept once at the first depth it is found at, a document that
 * `restrictSearchWithMatch` refuses neither kept nor followed, `depthField` a long.
 */
export function graphLookupStage(collationOf: (options: Options) => Collation | undefined): PipelineOp {
  return (coll, expr, options) => {
    const spec = parseGraphLookup(expr);
    const filter = spec.restrictSearchWithMatch;
    // Compiled before any document is read, so a malformed filter is refused on an empty collection too.
    const restrict = filter ? new Query(rewriteTypeOperators(withPatterns(filter) as Document), options) : undefined;
    const collation = collationOf(options);
    const asPath = spec.as.split(".");
    const depthPath = spec.depthField?.split(".");
    let graph: Graph | undefined;
    return coll.map((obj: Document) => {
      graph ??= foreignGraph(readForeign(spec, options) ?? [], spec.connectToField, restrict, collation);
      const start = evalExpr(obj, spec.startWith, options);
      const found = search(graph, Array.isArray(start) ? start : [start], spec);
      const results = [...found].map(([doc, depth]) => (depthPath ? withField(doc, depthPath, depth, "long") : doc));
      return withField(obj, asPath, results);
    });
  };
}

/** The foreign documents a level finds for its values. */
type Graph = (values: unknown[]) => Document[];

/**
 * The documents that pass `restrict` joined by their `field` (foreignKeys: each value, a whole
 * array too), probed as `{field: {$in: values}}` would match: a missing value matches nothing, `null`
 * only a document where the field exists (MongoDB adds `{field: {$exists: true}}`: "null only
 * matches null"), and a regular expression also the strings it matches.
 */
function foreignGraph(
  all: Document[],
  field: string,
  restrict: Query | undefined,
  collation: Collation | undefined,
): Graph {
  const from = restrict ? all.filter((doc) => restrict.test(doc)) : all;
  const keys = from.map((doc) => foreignKeys(doc, field));
  const join = bucketJoin(from, keys, collation);
  const parts = field.split(".");
  return (values) => {
    const plain: unknown[] = [];
    const patterns: RegExp[] = [];
    let withNull = false;
    for (const value of values) {
      if (value === undefined) continue;
      if (value === null) withNull = true;
      else plain.push(value);
      const pattern = patternOf(value);
      if (pattern) patterns.push(pattern);
    }
    const found = new Set(join(plain));
    if (withNull) for (const doc of join([null])) if (reaches(doc, parts, 0)) found.add(doc);
    if (patterns.length > 0)
      from.forEach((doc, i) => {
        if (keys[i].some((key) => typeof key === "string" && patterns.some((p) => key.search(p) >= 0))) found.add(doc);
      });
    return [...found];
  };
}

/** A value's pattern, when `$in` reads it as one; a BSON regex JavaScript cannot compile is refused, as `find` refuses it. */
function patternOf(value: unknown): RegExp | undefined {
  if (value instanceof RegExp) return value;
  if ((value as { _bsontype?: string } | null)?._bsontype !== "BSONRegExp") return undefined;
  const { pattern, options } = value as { pattern: string; options: string };
  try {
    return new RegExp(pattern, options.replace(/[^ims]/g, ""));
  } catch (err) {
    throw new MongoCommandError(
      "Location51091",
      `Regular expression is invalid: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Whether a path reaches a value in `value`, as `$exists: true` asks. */
function reaches(value: unknown, parts: string[], i: number): boolean {
  if (i === parts.length) return value !== undefined;
  const part = parts[i];
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part) && Number(part) < value.length && reaches(value[Number(part)], parts, i + 1)) return true;
    return value.some((el) => isPlainObject(el) && reaches(ownField(el, part), parts, i + 1));
  }
  return isPlainObject(value) && reaches(ownField(value, part), parts, i + 1);
}

/**
 * The documents found from `starts`, each with its depth, level by level: the next level's values
 * are the `connectFromField` values of the documents the level newly found, while under `maxDepth`.
 */
function search(graph: Graph, starts: unknown[], spec: GraphLookupSpec): Map<Document, number> {
  const found = new Map<Document, number>();
  const fromPath = spec.connectFromField.split(".");
  let frontier = starts;
  for (let depth = 0; frontier.length > 0; depth++) {
    const next: unknown[] = [];
    for (const doc of graph(frontier)) {
      if (found.has(doc)) continue;
      found.set(doc, depth);
      if (spec.maxDepth === undefined || depth < spec.maxDepth) connectedValues(doc, fromPath, 0, next);
    }
    frontier = next;
  }
  return found;
}

/** A position in an array, as MongoDB reads a path's part: digits without a leading zero. */
const POSITION = /^(0|[1-9]\d*)$/;

/**
 * The values a document connects from, as MongoDB's `visitAllValuesAtPath` walks the path (a
 * numeric part indexes an array, another goes into each of its documents): each element of an
 * array at the end, or the value itself, nothing where it is missing.
 */
function connectedValues(doc: Document, parts: string[], start: number, out: unknown[]): unknown[] {
  let value = ownField(doc, parts[start]);
  let i = start + 1;
  while (i < parts.length && Array.isArray(value) && POSITION.test(parts[i])) value = value[Number(parts[i++])];
  if (i === parts.length) {
    if (Array.isArray(value)) for (const v of value) out.push(v);
    else if (value !== undefined) out.push(value);
  } else if (Array.isArray(value)) {
    for (const el of value) if (isPlainObject(el)) connectedValues(el, parts, i, out);
  } else if (isPlainObject(value)) connectedValues(value, parts, i, out);
  return out;
}

/**
 * A copy of `doc` with `value` at `path`, as MongoDB's `setNestedField`: a document on the way is
 * copied, anything else replaced by a new one; the copies keep the BSON types of their numbers.
 */
function withField(doc: Document, path: string[], value: unknown, type?: NumberType): Document {
  const out = copied(doc);
  let target = out;
  for (const part of path.slice(0, -1)) {
    const inner = ownField(target, part);
    const next = isPlainObject(inner) ? copied(inner) : {};
    setField(target, part, next);
    setNumberType(target, part, undefined);
    target = next;
  }
  const last = path[path.length - 1];
  setField(target, last, value);
  setNumberType(target, last, type);
  return out;
}

/** A shallow copy keeping the BSON types noted beside its numbers. */
function copied(doc: Document): Document {
  const out: Document = {};
  for (const key of Object.keys(doc)) {
    setField(out, key, doc[key]);
    const type = numberTypeAt(doc, key);
    if (type) setNumberType(out, key, type);
  }
  return out;
}
