/**
 * A filter's `$comment`s, which MongoDB accepts beside any predicate and ignores: taken out before
 * a filter is compiled, by `find`'s filters (filter.ts) and by a later `$match` (strict-operators.ts).
 */
import type { Document } from "bson";

const isDocument = (v: unknown): v is Document =>
  v !== null && typeof v === "object" && !Array.isArray(v) && (v as { _bsontype?: string })._bsontype === undefined;

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
export function withoutComments(filter: unknown): unknown {
  if (!isDocument(filter) || !hasComment(filter)) return filter;
  const kept: Document = {};
  for (const [key, cond] of Object.entries(filter)) {
    if (key === "$comment") continue;
    const parts = key === "$and" || key === "$or" || key === "$nor";
    kept[key] = parts && Array.isArray(cond) ? cond.map(withoutComments) : cond;
  }
  return kept;
}
