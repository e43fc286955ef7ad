/**
 * The expressions and accumulators that compare values: `$indexOfArray` finds an element equal
 * under the collation; `$min`, `$max`, `$minN` and `$maxN` order values as MongoDB does
 * (`compareCollated`: BSON order, strings by the collator, or binary without one). Both contexts
 * (collated-query.ts) take these, so the simple and collated paths read and refuse arguments alike,
 * with MongoDB's codes.
 */
import { evalExpr } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import type { Options } from "mingo/types";
import { isPlainObject } from "../storage/keys";
import { collatedCompareEqual, compareCollated, type Collation } from "./collation";
import { LocationError } from "./pipeline-check";
import { accumulatorArguments, typeOfValue } from "./strict-operators";

type ExpressionOp = (obj: unknown, expr: unknown, options: Options) => unknown;
type AccumulatorOp = (coll: unknown[], expr: unknown, options: Options) => unknown;

const push = (accumulatorOperators as unknown as Record<string, AccumulatorOp>).$push;

const nullish = (v: unknown) => v === null || v === undefined;

/** MongoDB's `MinMaxSense`: 1 keeps the smallest values, -1 the largest. */
type Sense = 1 | -1;

/**
 * `$min` or `$max` of values (AccumulatorMinMax): null and missing ignored, null when nothing is
 * left; of values equal under the collation, the first met.
 */
function minMax(values: unknown[], sense: Sense, c: Collation | undefined): unknown {
  let best: unknown = undefined;
  for (const v of values) {
    if (nullish(v)) continue;
    if (best === undefined || compareCollated(best, v, c) * sense > 0) best = v;
  }
  return best ?? null;
}

/**
 * `$minN` or `$maxN` of values (AccumulatorMinMaxN): an ordered multiset of at most `n` values,
 * each new one placed after those equal to it and replacing the worst kept only when strictly
 * better; answered ascending for `$minN`, descending for `$maxN`.
 */
function minMaxN(values: unknown[], n: number, sense: Sense, c: Collation | undefined): unknown[] {
  const kept: unknown[] = [];
  for (const v of values) {
    if (nullish(v)) continue;
    if (kept.length >= n) {
      const worst = sense === 1 ? kept.length - 1 : 0;
      if (compareCollated(kept[worst], v, c) * sense <= 0) continue;
      kept.splice(worst, 1);
    }
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareCollated(kept[mid], v, c) <= 0) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, v);
  }
  return sense === 1 ? kept : kept.reverse();
}

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** MongoDB's `Value::toString` of a scalar in its messages: strings quoted. */
const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : String(v));

/** `n` of `$minN`/`$maxN` (AccumulatorN::validateN): a number, integral, above 0. */
function validN(n: unknown): number {
  if (typeof n !== "number")
    throw new LocationError(5787902, `Value for 'n' must be of integral type, but found ${shown(n)}`);
  if (!Number.isInteger(n)) throw new LocationError(5787903, `Value for 'n' must be of integral type, but found ${n}`);
  if (n <= 0) throw new LocationError(5787908, `'n' must be greater than 0, found ${n}`);
  return n;
}

/** A start or end of `$indexOfArray`: integral (40096), not negative (40097), as MongoDB 8.0 says it. */
function arrayIndex(v: unknown, what: "starting index" | "ending index"): number {
  if (typeof v !== "number" || !Number.isInteger(v) || Math.abs(v) > 2 ** 31)
    throw new LocationError(
      40096,
      `$indexOfArrayrequires an integral ${what}, found a value of type: ${typeOfValue(v)}, with value: ${shown(v)}`,
    );
  if (v < 0) throw new LocationError(40097, `$indexOfArray requires a nonnegative ${what}, found: ${v}`);
  return v;
}

/**
 * The operators for the expression table of a context (`c` undefined: the simple one). mingo's
 * `$group` reads its accumulators through that table too (the documents of a group as `obj`), so
 * `$min`, `$max`, `$minN` and `$maxN` answer both forms; a group's `n` mingo would refuse goes to
 * mingo's own.
 */
export function collatedExpressions(
  ops: Record<string, ExpressionOp>,
  c: Collation | undefined,
): Record<string, ExpressionOp> {
  const minMaxOp =
    (sense: Sense): ExpressionOp =>
    (obj, expr, options) => {
      if (Array.isArray(obj)) return minMax(push(obj, expr, options) as unknown[], sense, c);
      return minMax(accumulatorArguments(obj, expr, options), sense, c);
    };
  const minMaxNOp =
    (name: "$minN" | "$maxN", sense: Sense): ExpressionOp =>
    (obj, expr, options) => {
      if (!isPlainObject(expr) || !("n" in expr) || !("input" in expr)) return ops[name](obj, expr, options);
      if (Array.isArray(obj)) {
        const groupId = (options as { local?: { groupId?: unknown } }).local?.groupId;
        const n = evalExpr(groupId, expr.n, options);
        if (!isIndex(n) || n < 1) return ops[name](obj, expr, options);
        return minMaxN(push(obj, expr.input, options) as unknown[], n, sense, c);
      }
      // MongoDB checks `n` first, then wants an array (a null or missing input included).
      const n = validN(evalExpr(obj, expr.n, options));
      const input = evalExpr(obj, expr.input, options);
      if (!Array.isArray(input)) throw new LocationError(5788200, "Input must be an array");
      return minMaxN(input, n, sense, c);
    };
  return {
    $indexOfArray: (obj, expr, options) => {
      if (!Array.isArray(expr) || expr.length < 2 || expr.length > 4) return ops.$indexOfArray(obj, expr, options);
      const args = evalExpr(obj, expr, options) as unknown[];
      const [array, search] = args;
      if (array === null || array === undefined) return null;
      if (!Array.isArray(array))
        throw new LocationError(
          40090,
          `$indexOfArray requires an array as a first argument, found: ${typeOfValue(array)}`,
        );
      const start = args.length > 2 ? arrayIndex(args[2], "starting index") : 0;
      const end = args.length > 3 ? Math.min(arrayIndex(args[3], "ending index"), array.length) : array.length;
      // A missing value equals no element (MongoDB compares it as missing, never as null).
      if (search === undefined) return -1;
      for (let i = start; i < end; i++) if (collatedCompareEqual(array[i], search, c)) return i;
      return -1;
    },
    $min: minMaxOp(1),
    $max: minMaxOp(-1),
    $minN: minMaxNOp("$minN", 1),
    $maxN: minMaxNOp("$maxN", -1),
  };
}
