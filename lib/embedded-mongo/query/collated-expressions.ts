/**
 * The expressions and accumulators that compare values, under a collation: `$indexOfArray` finds
 * an element equal under it; `$min`, `$max`, `$minN` and `$maxN` order values as MongoDB does
 * (`compareCollated`: BSON order, strings by the collator). mingo compares strings by code unit,
 * so only the collated context (collated-query.ts) takes these; the simple one keeps mingo's.
 */
import { evalExpr } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import type { Options } from "mingo/types";
import { isPlainObject } from "../storage/keys";
import { collatedCompareEqual, compareCollated, type Collation } from "./collation";

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
function minMax(values: unknown[], sense: Sense, c: Collation): unknown {
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
function minMaxN(values: unknown[], n: number, sense: Sense, c: Collation): unknown[] {
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

const literal = (v: unknown) => ({ $literal: v });

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/**
 * The operators for the expression table of a collated context. mingo's `$group` reads its
 * accumulators through that table too (the documents of a group as `obj`), so `$min`, `$max`,
 * `$minN` and `$maxN` answer both forms; any argument mingo would refuse goes to mingo's own.
 */
export function collatedExpressions(ops: Record<string, ExpressionOp>, c: Collation): Record<string, ExpressionOp> {
  const minMaxOp =
    (sense: Sense): ExpressionOp =>
    (obj, expr, options) => {
      if (Array.isArray(obj)) return minMax(push(obj, expr, options) as unknown[], sense, c);
      // One argument that is an array stands for its elements; several are the values.
      const args = Array.isArray(expr) ? expr : [expr];
      if (args.length !== 1) return minMax(evalExpr(obj, args, options) as unknown[], sense, c);
      const value = evalExpr(obj, args[0], options);
      return minMax(Array.isArray(value) ? value : [value], sense, c);
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
      const { input, n } = evalExpr(obj, { input: expr.input, n: expr.n }, options) as { input: unknown; n: unknown };
      if (!Array.isArray(input) || !isIndex(n) || n < 1)
        return ops[name](obj, { input: literal(input), n: literal(n) }, options);
      return minMaxN(input, n, sense, c);
    };
  return {
    $indexOfArray: (obj, expr, options) => {
      if (!Array.isArray(expr) || expr.length < 2 || expr.length > 4) return ops.$indexOfArray(obj, expr, options);
      const args = evalExpr(obj, expr, options) as unknown[];
      const [array, search] = args;
      const start = args[2] ?? 0;
      const end = args[3] ?? (Array.isArray(array) ? array.length : 0);
      if (!Array.isArray(array) || !isIndex(start) || !isIndex(end))
        return ops.$indexOfArray(obj, args.map(literal), options);
      // A missing value equals no element (MongoDB compares it as missing, never as null).
      if (search === undefined) return -1;
      for (let i = start; i < Math.min(end, array.length); i++) if (collatedCompareEqual(array[i], search, c)) return i;
      return -1;
    },
    $min: minMaxOp(1),
    $max: minMaxOp(-1),
    $minN: minMaxNOp("$minN", 1),
    $maxN: minMaxNOp("$maxN", -1),
  };
}
