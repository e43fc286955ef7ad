/** A query filter compiled for mingo, with MongoDB's own refusal for an operator it does not know. */
import { BSON, type Document } from "bson";
import type { Query } from "mingo";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { makeQuery, serverContext } from "./collated-query";
import { withPatterns } from "./regex-options";
import { hasProtoField, rewriteTypeOperators, unproto } from "./type-operators";

/**
 * Filters compiled under the server's own context, by their BSON: a page, a read by id or an
 * update asks the same filter again and again, and compiling it (checks, rewrites, mingo's
 * predicates) cost about a seventh of a users page's database CPU. Only a filter without `$expr`
 * is kept, the one operator that reads a command's variables (`let`, `$$CLUSTER_TIME`), and of at
 * most 4 KB of BSON.
 */
const compiled = new Map<string, Query>();
const COMPILED_LIMIT = 1000;

export function compileFilter(filter: Document, options?: Partial<Options>): Query {
  const key = options?.context === serverContext() && !namesExpr(filter) ? bsonKey(filter) : undefined;
  const known = key === undefined ? undefined : compiled.get(key);
  if (known) {
    // Most recently used last: the first key is the one to evict.
    compiled.delete(key!);
    compiled.set(key!, known);
    return known;
  }
  const query = compile(filter, options);
  if (key !== undefined) {
    compiled.set(key, query);
    if (compiled.size > COMPILED_LIMIT) compiled.delete(compiled.keys().next().value!);
  }
  return query;
}

/** A filter kept is at most this large, so the kept ones hold a few megabytes at most. */
const KEY_LIMIT = 4096;

/**
 * The filter's BSON as text, a key that tells apart every value and type; undefined when it cannot
 * be encoded or is larger than a filter kept may be (a long `$in` list).
 */
function bsonKey(filter: Document): string | undefined {
  try {
    const bytes = BSON.serialize(filter);
    return bytes.length > KEY_LIMIT ? undefined : Buffer.from(bytes).toString("latin1");
  } catch {
    return undefined;
  }
}

function namesExpr(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(namesExpr);
  if (!isDocument(value)) return false;
  for (const key of Object.keys(value)) if (key === "$expr" || namesExpr(value[key])) return true;
  return false;
}

function compile(filter: Document, options?: Partial<Options>): Query {
  checkFilter(filter);
  const patterned = withPatterns(withoutComments(filter));
  try {
    const rewritten = rewriteTypeOperators(patterned as Document);
    // A value with a `__proto__` field ({a: {__proto__: 1}}) is a document like any other to
    // MongoDB; mingo would read the name as the object's prototype, so the field is renamed in
    // the filter and in each document it tests (paths through it are already `$protoPath`).
    if (hasProtoField(rewritten)) return guarded(makeQuery(unproto(rewritten) as Document, options), true);
    return guarded(makeQuery(rewritten, options));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // MongoDB's wording for an operator it does not know inside a field's condition.
    throw new MongoCommandError(
      "BadValue",
      message.replace(/^unknown query operator (\$\S+)$/, "unknown operator: $1"),
    );
  }
}

/**
 * A query whose evaluation mingo cannot finish (a value it would turn into text, such as a
 * document with its own `toString` or `__proto__` field, compared with another) is refused with
 * a clear error naming the way out, never answered as an internal error.
 */
function guarded(query: Query, renamesProto = false): Query {
  const test = query.test.bind(query);
  query.test = (doc) => {
    try {
      return test(renamesProto ? (unproto(doc) as Document) : doc);
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      throw new MongoCommandError(
        "BadValue",
        `This query compares values the embedded database cannot compare (${err.message}): set MONGODB_URI to use a MongoDB server`,
      );
    }
  };
  return query;
}

/**
 * What mingo would trip over, refused as MongoDB refuses it: `$in`, `$nin` and `$all` need an
 * array; a regular expression kept as BSON because JavaScript cannot compile it is refused where a query
 * uses it as a pattern (a field's value, `$regex`, `$in`, `$nin`, `$all`, `$not`), as MongoDB
 * refuses a pattern PCRE cannot compile (51091); elsewhere it is a value like any other.
 */
/** Whether a filter, or one of its `$and`, `$or` and `$nor` parts, holds a `$comment`. */
function hasComment(filter: unknown): boolean {
  if (!isDocument(filter)) return false;
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$comment") return true;
    if ((key === "$and" || key === "$or" || key === "$nor") && Array.isArray(cond) && cond.some(hasComment))
      return true;
  }
  return false;
}

/** A filter without its `$comment`s, which MongoDB accepts beside any predicate and ignores. */
function withoutComments(filter: unknown): unknown {
  if (!isDocument(filter) || !hasComment(filter)) return filter;
  const kept: Document = {};
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$comment") continue;
    const parts = key === "$and" || key === "$or" || key === "$nor";
    kept[key] = parts && Array.isArray(cond) ? cond.map(withoutComments) : cond;
  }
  return kept;
}

function checkFilter(filter: unknown, depth = 0): void {
  if (!isDocument(filter) || depth > 100) return;
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$and" || key === "$or" || key === "$nor") {
      if (Array.isArray(cond)) for (const sub of cond) checkFilter(sub, depth + 1);
    } else if (!key.startsWith("$")) assertCondition(cond, depth);
  }
}

function assertCondition(cond: unknown, depth: number): void {
  assertPattern(cond);
  if (!isDocument(cond)) return;
  for (const [op, value] of Object.entries(cond)) {
    if (op === "$regex") assertPattern(value);
    else if (op === "$in" || op === "$nin" || op === "$all") {
      if (!Array.isArray(value)) throw new MongoCommandError("BadValue", `${op} needs an array`);
      value.forEach(assertPattern);
    } else if (op === "$not") assertCondition(value, depth + 1);
    else if (op === "$elemMatch") checkFilter(value, depth + 1);
    else if (op === "$protoPath" && isDocument(value)) assertCondition(value.condition, depth + 1);
  }
}

function assertPattern(value: unknown): void {
  if ((value as { _bsontype?: string } | null)?._bsontype !== "BSONRegExp") return;
  const { pattern, options } = value as { pattern: string; options: string };
  try {
    new RegExp(pattern, options.replace(/[^ims]/g, ""));
  } catch (err) {
    throw new MongoCommandError(
      "Location51091",
      `Regular expression is invalid: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

const isDocument = (v: unknown): v is Document =>
  v !== null && typeof v === "object" && !Array.isArray(v) && (v as { _bsontype?: string })._bsontype === undefined;
