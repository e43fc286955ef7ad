/** A query filter compiled for mingo, with MongoDB's own refusal for an operator it does not know. */
import { BSON, type Document, type ObjectId } from "bson";
import type { Query } from "mingo";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { makeQuery, serverContext } from "./collated-query";
import { withoutComments } from "./comments";
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

/** What the executor asks of a filter: whether a document matches it. */
export type Matcher = Pick<Query, "test">;

/**
 * A filter as the executor tests documents against it. One that no compilation can refuse
 * (fields equal to plain values: no operator, pattern, document or array) is not compiled up
 * front: its values differ on every request (a survey's revisions, a list's count mark, a record
 * by id and company), so the cache above never holds it. A document whose fields are those very
 * values (the same string, number, boolean, ObjectId or date, at the top level) matches without
 * mingo, as it does in MongoDB under any collation; any other document is tested by the compiled
 * filter (arrays, other number types, a collation, a missing field for `null`), compiled on that
 * first test. So an upsert that inserts, or one that meets its document, compiles nothing. Any
 * other filter is compiled at once, so a malformed one is refused even where there is nothing to
 * read.
 */
export function filterMatcher(filter: Document, options?: Partial<Options>): Matcher {
  const entries = plainEqualities(filter);
  if (!entries) return compileFilter(filter, options);
  // A dotted name is a path, not a field of the top level: such a filter is always compiled.
  const direct = entries.every(([name]) => !name.includes(".") && name !== "__proto__");
  let query: Query | undefined;
  return {
    test: (doc) =>
      (direct && entries.every(([name, value]) => surelyEqual(doc[name], value))) ||
      (query ??= compileFilter(filter, options)).test(doc),
  };
}

/** BSON values a field may equal without the filter being refusable (a regex or a code value may be). */
const PLAIN_TYPES = new Set(["ObjectId", "Long", "Int32", "Double", "Decimal128", "Timestamp", "Binary", "UUID"]);

/** The filter's fields and values when it only asks fields to equal plain values. */
function plainEqualities(filter: Document): Array<[string, unknown]> | undefined {
  const entries = Object.entries(filter);
  for (const [name, value] of entries) {
    if (name === "" || name.startsWith("$")) return undefined;
    if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number")
      continue;
    if (value instanceof Date) continue;
    const type = (value as { _bsontype?: string } | undefined)?._bsontype;
    if (type === undefined || !PLAIN_TYPES.has(type)) return undefined;
  }
  return entries;
}

/**
 * Whether a stored value is the wanted one itself, which MongoDB's equality matches whatever the
 * collation; false leaves the answer to the compiled filter (NaN, other number types, arrays...).
 */
function surelyEqual(value: unknown, wanted: unknown): boolean {
  if (value === wanted) return wanted === null || typeof wanted !== "object";
  if (wanted instanceof Date) return value instanceof Date && value.getTime() === wanted.getTime();
  const type = (wanted as { _bsontype?: string })?._bsontype;
  return (
    type === "ObjectId" &&
    (value as { _bsontype?: string } | null)?._bsontype === "ObjectId" &&
    (wanted as ObjectId).equals(value as ObjectId)
  );
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
