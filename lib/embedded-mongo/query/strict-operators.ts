/**
 * Operators where mingo answers what MongoDB refuses or types otherwise, or refuses with its own
 * code 2: each is MongoDB's own code and message, value or BSON type, on top of mingo's operator.
 */
import { EJSON, type Document } from "bson";
import { evalExpr, OpType } from "mingo/core";
import type { Iterator } from "mingo/lazy";
import * as expressionOperators from "mingo/operators/expression";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { setNumberType } from "../storage/bson-values";
import { isPlainObject } from "../storage/keys";
import { withoutComments } from "./comments";
import { LocationError } from "./pipeline-check";
import { typeName } from "./type-operators";

type PipelineOp = (coll: Iterator, expr: unknown, options: Options) => Iterator;
type ExpressionOp = (obj: unknown, expr: unknown, options: Options) => unknown;

const mingoOps = expressionOperators as unknown as Record<string, ExpressionOp>;

/** MongoDB's name of a value's type, `missing` for none, as its messages give it. */
export const typeOfValue = (value: unknown) => (value === undefined ? "missing" : typeName({ value }, "value"));

/**
 * The values an accumulator used as an expression (`{$max: ...}` in `$project`) takes, as MongoDB's
 * `ExpressionFromAccumulator` reads them: one argument that is an array stands for its elements,
 * any other one for itself (mingo refuses a scalar); several arguments are the values.
 */
export function accumulatorArguments(obj: unknown, expr: unknown, options: Options): unknown[] {
  const args = Array.isArray(expr) ? expr : [expr];
  if (args.length !== 1) return evalExpr(obj, args, options) as unknown[];
  const value = evalExpr(obj, args[0], options);
  return Array.isArray(value) ? value : [value];
}

/**
 * `$sum`, `$avg`, `$stdDevPop` and `$stdDevSamp` as expressions, their arguments read as MongoDB
 * reads them ({@link accumulatorArguments}); in `$group`, whose documents mingo hands the
 * expression table as an array, the context's own accumulator.
 */
const fromAccumulator =
  (name: string): ExpressionOp =>
  (obj, expr, options) => {
    const accumulator = options.context.getOperator(OpType.ACCUMULATOR, name) as unknown as (
      coll: unknown[],
      expr: unknown,
      options: Options,
    ) => unknown;
    if (Array.isArray(obj)) return accumulator(obj, expr, options);
    return accumulator(accumulatorArguments(obj, expr, options), null, options);
  };

/** `$anyElementTrue`/`$allElementsTrue` of anything but an array (null and missing too): 17041/17040. */
const elementsTrue =
  (name: "$anyElementTrue" | "$allElementsTrue", code: number): ExpressionOp =>
  (obj, expr, options) => {
    const value = evalExpr(obj, Array.isArray(expr) ? expr[0] : expr, options);
    if (!Array.isArray(value))
      throw new LocationError(code, `${name}'s argument must be an array, but is ${typeOfValue(value)}`);
    return mingoOps[name](obj, [{ $literal: value }], options);
  };

const nullish = (v: unknown) => v === null || v === undefined;

/** The operands of an operator taking exactly `n` (MongoDB's `ExpressionFixedArity`, 16020). */
function fixedArity(name: string, expr: unknown, n: number): unknown[] {
  const operands = Array.isArray(expr) ? expr : [expr];
  if (operands.length !== n)
    throw new LocationError(
      16020,
      `Expression ${name} takes exactly ${n} arguments. ${operands.length} were passed in.`,
    );
  return operands;
}

/** A 32-bit integral number, as MongoDB's `Value::integral` tests it. */
const integral = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && Math.abs(v) <= 2 ** 31;

/** `$arrayElemAt`, `$first` and `$last` (evaluate_array.cpp `arrayElemAt`): 28689, 28690, 28691. */
function arrayElemAt(name: string, arity: 1 | 2, array: unknown, index: unknown): unknown {
  if (nullish(array) || nullish(index)) return null;
  if (!Array.isArray(array))
    throw new LocationError(
      28689,
      `${name}'s ${arity === 1 ? "argument" : "first argument"} must be an array, but is ${typeOfValue(array)}`,
    );
  if (typeof index !== "number")
    throw new LocationError(28690, `${name}'s second argument must be a numeric value, but is ${typeOfValue(index)}`);
  if (!integral(index))
    throw new LocationError(28691, `${name}'s second argument must be representable as a 32-bit integer: ${index}`);
  if (index < 0 && -index > array.length) return undefined;
  return array[index < 0 ? array.length + index : index];
}

/** `$first`/`$last` of an array expression; in `$group` (the documents as `obj`), mingo's accumulator form. */
const edgeElement =
  (name: "$first" | "$last"): ExpressionOp =>
  (obj, expr, options) => {
    if (Array.isArray(obj)) return mingoOps[name](obj, expr, options);
    const [operand] = fixedArity(name, expr, 1);
    return arrayElemAt(name, 1, evalExpr(obj, operand, options), name === "$first" ? 0 : -1);
  };

/** `$filter`, `$map` and `$reduce` of an `input` that is not an array (null and missing answer null). */
const overInput =
  (name: "$filter" | "$map" | "$reduce", refuse: (input: unknown) => LocationError): ExpressionOp =>
  (obj, expr, options) => {
    if (!isPlainObject(expr) || !("input" in expr)) return mingoOps[name](obj, expr, options);
    const input = evalExpr(obj, expr.input, options);
    if (nullish(input)) return null;
    if (!Array.isArray(input)) throw refuse(input);
    return mingoOps[name](obj, { ...expr, input: { $literal: input } }, options);
  };

/**
 * The conversions (`$convert` and `$toString` ...): a value mingo cannot convert is MongoDB's
 * `241 ConversionFailure`, where mingo says code 2; mingo's other refusals (a malformed spec) stay.
 */
const converting =
  (name: string): ExpressionOp =>
  (obj, expr, options) => {
    try {
      return mingoOps[name](obj, expr, options);
    } catch (e) {
      if (e instanceof Error && !(e instanceof MongoCommandError) && /cannot convert/.test(e.message))
        throw new MongoCommandError("ConversionFailure", e.message);
      throw e;
    }
  };

const CONVERSIONS = ["$convert", "$toString", "$toInt", "$toLong", "$toDouble", "$toDecimal", "$toDate", "$toBool"];

/** The default handed mingo's `$switch` when none is given: answered back, it means no branch matched. */
const NO_BRANCH = Object.freeze({ noBranch: true });

/** A string as MongoDB's `Value::coerceToString` makes it, where that is plain; undefined otherwise. */
function coercedString(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (nullish(v)) return "";
  if (integral(v)) return String(v);
  return undefined;
}

/** `$substrCP`'s checks of its indexes (evaluate_string.cpp): 34450 to 34455. */
function substrCP(obj: unknown, expr: unknown, options: Options): unknown {
  const [input, start, length] = evalExpr(obj, fixedArity("$substrCP", expr, 3), options) as unknown[];
  const text = coercedString(input);
  if (text === undefined)
    return mingoOps.$substrCP(
      obj,
      [input, start, length].map((v) => ({ $literal: v })),
      options,
    );
  if (typeof start !== "number")
    throw new LocationError(
      34450,
      `$substrCP: starting index must be a numeric type (is BSON type ${typeOfValue(start)})`,
    );
  if (!integral(start))
    throw new LocationError(
      34451,
      `$substrCP: starting index cannot be represented as a 32-bit integral value: ${start}`,
    );
  if (typeof length !== "number")
    throw new LocationError(34452, `$substrCP: length must be a numeric type (is BSON type ${typeOfValue(length)})`);
  if (!integral(length))
    throw new LocationError(34453, `$substrCP: length cannot be represented as a 32-bit integral value: ${length}`);
  if (length < 0) throw new LocationError(34454, "$substrCP: length must be a nonnegative integer.");
  if (start < 0) throw new LocationError(34455, "$substrCP: the starting index must be nonnegative integer.");
  return Array.from(text)
    .slice(start, start + length)
    .join("");
}

/** `$slice` (evaluate_array.cpp): null for a null or missing argument, else 28724 to 28729. */
function slice(obj: unknown, expr: unknown, options: Options): unknown {
  if (!Array.isArray(expr) || expr.length < 2 || expr.length > 3) return mingoOps.$slice(obj, expr, options);
  const [array, second, third] = evalExpr(obj, expr, options) as unknown[];
  if (nullish(array) || nullish(second)) return null;
  if (!Array.isArray(array))
    throw new LocationError(28724, `First argument to $slice must be an array, but is of type: ${typeOfValue(array)}`);
  if (typeof second !== "number")
    throw new LocationError(
      28725,
      `Second argument to $slice must be a numeric value, but is of type: ${typeOfValue(second)}`,
    );
  if (!integral(second))
    throw new LocationError(28726, `Second argument to $slice can't be represented as a 32-bit integer: ${second}`);
  if (expr.length === 2) return second >= 0 ? array.slice(0, second) : array.slice(Math.max(0, array.length + second));
  const start = second < 0 ? Math.max(0, array.length + second) : Math.min(array.length, second);
  if (nullish(third)) return null;
  if (typeof third !== "number")
    throw new LocationError(28727, `Third argument to $slice must be numeric, but is of type: ${typeOfValue(third)}`);
  if (!integral(third))
    throw new LocationError(28728, `Third argument to $slice can't be represented as a 32-bit integer: ${third}`);
  if (third <= 0) throw new LocationError(28729, `Third argument to $slice must be positive: ${third}`);
  return array.slice(start, start + third);
}

/** `$split` (evaluate_string.cpp in MongoDB 8.0): null for a null or missing argument, else 40085, 40086, 40087. */
function split(obj: unknown, expr: unknown, options: Options): unknown {
  const [input, separator] = evalExpr(obj, fixedArity("$split", expr, 2), options) as unknown[];
  if (nullish(input) || nullish(separator)) return null;
  if (typeof input !== "string")
    throw new LocationError(
      40085,
      `$split requires an expression that evaluates to a string as a first argument, found: ${typeOfValue(input)}`,
    );
  if (typeof separator !== "string")
    throw new LocationError(
      40086,
      `$split requires an expression that evaluates to a string as a second argument, found: ${typeOfValue(separator)}`,
    );
  if (separator === "") throw new LocationError(40087, "$split requires a non-empty separator");
  return input.split(separator);
}

/**
 * The expressions where mingo refuses with its own code 2 or answers otherwise what MongoDB answers
 * or refuses with its own code: each checks its arguments as MongoDB does, then answers as mingo's
 * own (or, where mingo's differs in value, computes it). `$size` of anything but an array is 17124,
 * a missing or null value included (mingo answers null).
 */
export const strictExpressions: Record<string, ExpressionOp> = {
  $arrayElemAt: (obj, expr, options) => {
    const [array, index] = evalExpr(obj, fixedArity("$arrayElemAt", expr, 2), options) as unknown[];
    return arrayElemAt("$arrayElemAt", 2, array, index);
  },
  $first: edgeElement("$first"),
  $last: edgeElement("$last"),
  $concatArrays: (obj, expr, options) => {
    const arrays = evalExpr(obj, Array.isArray(expr) ? expr : [expr], options) as unknown[];
    for (const a of arrays) {
      if (nullish(a)) return null;
      if (!Array.isArray(a))
        throw new LocationError(28664, `$concatArrays only supports arrays, not ${typeOfValue(a)}`);
    }
    return (arrays as unknown[][]).flat(1);
  },
  $reverseArray: (obj, expr, options) => {
    const [operand] = fixedArity("$reverseArray", expr, 1);
    const input = evalExpr(obj, operand, options);
    if (nullish(input)) return null;
    if (!Array.isArray(input))
      throw new LocationError(
        34435,
        `The argument to $reverseArray must be an array, but was of type: ${typeOfValue(input)}`,
      );
    return [...input].reverse();
  },
  $slice: slice,
  $filter: overInput(
    "$filter",
    (input) => new LocationError(28651, `input to $filter must be an array not ${typeOfValue(input)}`),
  ),
  $map: overInput(
    "$map",
    (input) => new LocationError(16883, `input to $map must be an array not ${typeOfValue(input)}`),
  ),
  $reduce: overInput(
    "$reduce",
    (input) =>
      new LocationError(40080, `$reduce requires that 'input' be an array, found: ${EJSON.stringify(input as never)}`),
  ),
  $switch: (obj, expr, options) => {
    if (!isPlainObject(expr) || "default" in expr) return mingoOps.$switch(obj, expr, options);
    const value = mingoOps.$switch(obj, { ...expr, default: { $literal: NO_BRANCH } }, options);
    if (value === NO_BRANCH)
      throw new LocationError(
        40066,
        "$switch could not find a matching branch for an input, and no default was specified.",
      );
    return value;
  },
  $substrCP: substrCP,
  $split: split,
  ...Object.fromEntries(CONVERSIONS.map((name) => [name, converting(name)])),
  $anyElementTrue: elementsTrue("$anyElementTrue", 17041),
  $allElementsTrue: elementsTrue("$allElementsTrue", 17040),
  $sum: fromAccumulator("$sum"),
  $avg: fromAccumulator("$avg"),
  $stdDevPop: fromAccumulator("$stdDevPop"),
  $stdDevSamp: fromAccumulator("$stdDevSamp"),
  $size: (obj, expr, options) => {
    // An array is the operator's list of arguments, of which $size takes one.
    if (Array.isArray(expr) && expr.length !== 1)
      throw new LocationError(16020, `Expression $size takes exactly 1 arguments. ${expr.length} were passed in.`);
    const value = evalExpr(obj, Array.isArray(expr) ? expr[0] : expr, options);
    if (!Array.isArray(value))
      throw new LocationError(
        17124,
        `The argument to $size must be an array. Type of the argument was: ${typeOfValue(value)}`,
      );
    return value.length;
  },
};

/**
 * `$replaceRoot` and `$replaceWith` whose new root is not a document (40228, where mingo says
 * code 2); `$unwind`'s `includeArrayIndex` a long, as MongoDB answers it; a later `$match` that
 * ignores its `$comment`s, as the first one (compiled as a `find`'s filter) does.
 */
export function strictStages(pipeline: Record<string, PipelineOp>): Record<string, PipelineOp> {
  const replaceRoot = (coll: Iterator, newRoot: unknown, options: Options) =>
    coll.map((doc: unknown) => {
      const root = evalExpr(doc, newRoot, options);
      if (!isPlainObject(root))
        throw new LocationError(
          40228,
          `'newRoot' expression must evaluate to an object, but resulting value was: ${
            root === undefined ? "MISSING" : JSON.stringify(root)
          }. Type of resulting value: '${typeOfValue(root)}'.`,
        );
      return root;
    });
  return {
    $replaceRoot: (coll, expr, options) =>
      isPlainObject(expr) ? replaceRoot(coll, expr.newRoot, options) : pipeline.$replaceRoot(coll, expr, options),
    $replaceWith: (coll, expr, options) => replaceRoot(coll, expr, options),
    $unwind: (coll, expr, options) => {
      const index = isPlainObject(expr) && typeof expr.includeArrayIndex === "string" ? expr.includeArrayIndex : "";
      const out = pipeline.$unwind(coll, expr, options);
      if (!index || index.includes(".")) return out;
      return out.map((doc: Document) => {
        if (typeof doc[index] === "number") setNumberType(doc, index, "long");
        return doc;
      });
    },
    $match: (coll, expr, options) => pipeline.$match(coll, withoutComments(expr), options),
  };
}
