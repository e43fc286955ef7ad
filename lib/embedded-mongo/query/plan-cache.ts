/**
 * The winning plan of each query shape, as MongoDB's plan cache keeps it. Racing every candidate
 * plan on every query reads the first documents once per candidate: for a page of 10 users with
 * three useful indexes, 30 documents read and decoded instead of 10. A cached plan runs alone,
 * with a budget of ten times the work it needed when it won; past that budget it is dropped and
 * the candidates race again (MongoDB's replanning), so data that changed the best plan is
 * noticed on the next query.
 *
 * A shape is the filter's structure with every value reduced to its type, plus the sort and
 * whether a limit is set: `{a: 5}` and `{a: 7}` share one entry, `{a: {$gt: 5}}` does not.
 * Any plan gives the right answer (every candidate is checked against the whole filter), so
 * the cache only ever changes how fast an answer comes, never what it is.
 */
import { ObjectId, type Document } from "bson";
import { isPlainObject } from "../storage/keys";
import type { CollectionMeta } from "../storage/store";

export interface CachedPlan {
  /** What `planName` (planner.ts) gives for the winning plan. */
  plan: string;
  /** The documents the winner read to answer the query that chose it. */
  works: number;
}

/** A cached plan runs alone until it has read this many times its recorded works. */
const REPLAN_FACTOR = 10;
/** ...and never less than this, so a plan that won with a handful of reads is not replanned on noise. */
const MIN_BUDGET = 100;
const MAX_ENTRIES = 1000;

export class PlanCache {
  private readonly entries = new Map<string, CachedPlan>();

  get(key: string): CachedPlan | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Most recently used last: the first key is the one to evict.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedPlan): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The budget of reads a cached plan gets before the candidates race again. */
export const budgetOf = (entry: CachedPlan) => Math.max(MIN_BUDGET, REPLAN_FACTOR * entry.works);

/**
 * The cache key of a query: collection, its indexes (a cached plan never outlives the index set
 * it was chosen among), filter shape, sort and whether a limit ends the walk early.
 */
export function planKey(meta: CollectionMeta, filter: Document, sort: Document | undefined, limited: boolean): string {
  const indexes = meta.indexes.map((index) => (index.hidden ? `${index.name}(hidden)` : index.name)).join(",");
  return `${meta.db}.${meta.name}|${indexes}|${shapeOf(filter)}|${sort ? JSON.stringify(sort) : ""}|${limited ? "limit" : ""}`;
}

/** The filter with its values replaced by their types; operator names and field names stay. */
function shapeOf(value: unknown): string {
  // `$in` lists of any length share a shape; `$and`/`$or` keep one entry per distinct clause shape.
  if (Array.isArray(value)) return `[${[...new Set(value.map(shapeOf))].join(",")}]`;
  if (isPlainObject(value)) {
    const entries = Object.entries(value as Document).map(([key, inner]) => `${JSON.stringify(key)}:${shapeOf(inner)}`);
    return `{${entries.join(",")}}`;
  }
  if (value === null) return "null";
  if (value instanceof RegExp) return "regex";
  if (value instanceof Date) return "date";
  if (value instanceof ObjectId) return "oid";
  return typeof value;
}
