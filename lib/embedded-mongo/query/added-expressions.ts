/**
 * MongoDB 8.0 expressions mingo does not have: `$toObjectId` (and `$convert` to an ObjectId),
 * `$indexOfCP`, `$binarySize`, `$bsonSize`, `$tsSecond` and `$tsIncrement`, each answering and
 * refusing with MongoDB's codes (exec/expression/evaluate_*.cpp).
 */
import { BSON, EJSON, ObjectId, type Decimal128, type Document, type Long } from "bson";
import { evalExpr } from "mingo/core";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { isPlainObject } from "../storage/keys";
import { LocationError } from "./pipeline-check";
import { typeOfValue } from "./strict-operators";

type ExpressionOp = (obj: unknown, expr: unknown, options: Options) => unknown;

const nullish = (v: unknown) => v === null || v === undefined;
const bsonType = (v: unknown) => (v as { _bsontype?: string } | null | undefined)?._bsontype;

/** The operands of an operator taking exactly one (MongoDB's `ExpressionFixedArity`, 16020). */
function oneOperand(name: string, expr: unknown): unknown {
  const operands = Array.isArray(expr) ? expr : [expr];
  if (operands.length !== 1)
    throw new LocationError(16020, `Expression ${name} takes exactly 1 arguments. ${operands.length} were passed in.`);
  return operands[0];
}

/** A value as MongoDB's `Value::toString` writes it in a message. */
function shown(v: unknown): string {
  if (v === undefined) return "MISSING";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return String(v);
  return EJSON.stringify(v as never, { relaxed: true });
}

/** A number MongoDB's `Value::integral` accepts (a 32-bit integer of any numeric type), else undefined. */
function int32Of(v: unknown): number | undefined {
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (bsonType(v) === "Long") n = (v as Long).toNumber();
  else if (bsonType(v) === "Decimal128") n = Number((v as Decimal128).toString());
  return n !== undefined && Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1 ? n : undefined;
}

/** `$indexOfCP`'s start and end index checks (uassertIfNotIntegralAndNonNegative): 40096, 40097. */
function codePointIndex(v: unknown, argument: string): number {
  const n = int32Of(v);
  if (n === undefined)
    throw new LocationError(
      40096,
      `$indexOfCPrequires an integral ${argument}, found a value of type: ${typeOfValue(v)}, with value: ${shown(v)}`,
    );
  if (n < 0) throw new LocationError(40097, `$indexOfCP requires a nonnegative ${argument}, found: ${shown(v)}`);
  return n;
}

/** `$indexOfCP` (evaluate_string.cpp): the index in code points, a match starting before the end index. */
function indexOfCP(obj: unknown, expr: unknown, options: Options): unknown {
  const operands = Array.isArray(expr) ? expr : [expr];
  if (operands.length < 2 || operands.length > 4)
    throw new LocationError(
      28667,
      `Expression $indexOfCP takes at least 2 arguments, and at most 4, but ${operands.length} were passed in.`,
    );
  const input = evalExpr(obj, operands[0], options);
  if (nullish(input)) return null;
  if (typeof input !== "string")
    throw new LocationError(40093, `$indexOfCP requires a string as the first argument, found: ${typeOfValue(input)}`);
  const token = evalExpr(obj, operands[1], options);
  if (typeof token !== "string")
    throw new LocationError(40094, `$indexOfCP requires a string as the second argument, found: ${typeOfValue(token)}`);
  const start = operands.length > 2 ? codePointIndex(evalExpr(obj, operands[2], options), "starting index") : 0;
  const points = Array.from(input);
  const end =
    operands.length > 3
      ? Math.min(points.length, codePointIndex(evalExpr(obj, operands[3], options), "ending index"))
      : points.length;
  if (end < start) return -1;
  if (input === "" && token === "") return 0;
  const wanted = Array.from(token);
  for (let i = start; i < end; i++) if (wanted.every((p, k) => points[i + k] === p)) return i;
  return -1;
}

/** `$binarySize` (evaluate_string.cpp): a string's UTF-8 bytes, a BinData's bytes; 51276 otherwise. */
function binarySize(obj: unknown, expr: unknown, options: Options): unknown {
  const value = evalExpr(obj, oneOperand("$binarySize", expr), options);
  if (nullish(value)) return null;
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (bsonType(value) === "Binary") return (value as { length(): number }).length();
  if (ArrayBuffer.isView(value)) return value.byteLength;
  throw new LocationError(51276, `$binarySize requires a string or BinData argument, found: ${typeOfValue(value)}`);
}

/**
 * `$bsonSize` (evaluate_bson.cpp): a document's size as the reply encodes it (wire.ts, missing
 * fields left out), each number its noted BSON type (the containers' own `toBSON`); 31393 otherwise.
 */
function bsonSize(obj: unknown, expr: unknown, options: Options): unknown {
  const value = evalExpr(obj, oneOperand("$bsonSize", expr), options);
  if (nullish(value)) return null;
  if (!isPlainObject(value))
    throw new LocationError(31393, `$bsonSize requires a document input, found: ${typeOfValue(value)}`);
  return BSON.calculateObjectSize(value as Document, { ignoreUndefined: true });
}

/** `$tsSecond`/`$tsIncrement` (evaluate_date.cpp): a timestamp's seconds or increment; 5687301/5687302 otherwise. */
const timestampPart =
  (name: "$tsSecond" | "$tsIncrement", code: number): ExpressionOp =>
  (obj, expr, options) => {
    const value = evalExpr(obj, oneOperand(name, expr), options);
    if (nullish(value)) return null;
    if (bsonType(value) !== "Timestamp")
      throw new LocationError(code, ` Argument to ${name} must be a timestamp, but is ${typeOfValue(value)}`);
    const ts = value as { t: number; i: number };
    return name === "$tsSecond" ? ts.t : ts.i;
  };

/** A conversion's failure (ConversionFailure, 241), which `onError` answers for. */
const conversionFailure = (message: string) => new MongoCommandError("ConversionFailure", message);

/** `$convert`'s conversion to an ObjectId (evaluate_convert.cpp, `parseStringToOID`, `OID::parse`). */
function toObjectId(value: unknown): ObjectId {
  if (bsonType(value) === "ObjectId") return value as ObjectId;
  if (typeof value !== "string")
    throw conversionFailure(
      `Unsupported conversion from ${typeOfValue(value)} to objectId in $convert with no onError value`,
    );
  const failed = (reason: string) =>
    conversionFailure(`Failed to parse objectId '${value}' in $convert with no onError value: ${reason}`);
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes !== 24) throw failed(`Invalid string length for parsing to OID, expected 24 but found ${bytes}`);
  const bad = [...value].find((c) => !/[0-9a-fA-F]/.test(c));
  if (bad !== undefined) throw failed(`Invalid character found in hex string: ${bad}`);
  return new ObjectId(value);
}

/** Whether `$convert`'s `to` names an ObjectId: "objectId" or its type number 7. */
const namesObjectId = (to: unknown) => to === "objectId" || int32Of(to) === 7;

/** Whether `$convert`'s `to` names a string: "string" or its type number 2. */
const namesString = (to: unknown) => to === "string" || int32Of(to) === 2;

/**
 * The string MongoDB converts a BSON value to that mingo cannot: an ObjectId's 24 hex digits, a
 * long's or a decimal's digits, a boxed int32's or double's number; undefined for any other value.
 */
function bsonString(value: unknown): string | undefined {
  switch (bsonType(value)) {
    case "ObjectId":
      return (value as ObjectId).toHexString();
    case "Long":
    case "Decimal128":
      return String(value);
    case "Int32":
    case "Double":
      return String((value as { valueOf(): number }).valueOf());
    default:
      return undefined;
  }
}

const CONVERT_FIELDS = new Set(["input", "to", "onError", "onNull", "format", "base", "byteOrder", "subtype"]);

/**
 * `$convert` to an ObjectId as MongoDB evaluates it (null or missing input: `onNull`, else null;
 * a failure: `onError` when given); any other `$convert` is `other`'s.
 */
const convert =
  (other: ExpressionOp): ExpressionOp =>
  (obj, expr, options) => {
    if (
      !isPlainObject(expr) ||
      !("input" in expr) ||
      !("to" in expr) ||
      Object.keys(expr).some((k) => !CONVERT_FIELDS.has(k))
    )
      return other(obj, expr, options);
    const to = evalExpr(obj, expr.to, options);
    if (namesString(to)) {
      const input = evalExpr(obj, expr.input, options);
      return bsonString(input) ?? other(obj, { ...expr, input: { $literal: input } }, options);
    }
    if (!namesObjectId(to)) return other(obj, expr, options);
    const input = evalExpr(obj, expr.input, options);
    if (nullish(input)) return "onNull" in expr ? evalExpr(obj, expr.onNull, options) : null;
    try {
      return toObjectId(input);
    } catch (e) {
      if (e instanceof MongoCommandError && e.code === 241 && "onError" in expr)
        return evalExpr(obj, expr.onError, options);
      throw e;
    }
  };

/** `$toObjectId`: `$convert` to an ObjectId without `onError` or `onNull` (50723 for other than one argument). */
function toObjectIdExpression(obj: unknown, expr: unknown, options: Options): unknown {
  if (Array.isArray(expr) && expr.length !== 1)
    throw new LocationError(50723, `$toObjectId requires a single argument, got ${expr.length}`);
  const input = evalExpr(obj, Array.isArray(expr) ? expr[0] : expr, options);
  return nullish(input) ? null : toObjectId(input);
}

/** The expressions MongoDB answers as a long, which `typedPassthrough` marks where they land. */
export const LONG_EXPRESSIONS: ReadonlySet<string> = new Set(["$tsSecond", "$tsIncrement"]);

/** `$toString` of a value mingo cannot convert (an ObjectId ...), else `other`'s on the value evaluated once. */
const toStringExpression =
  (other: ExpressionOp): ExpressionOp =>
  (obj, expr, options) => {
    if (Array.isArray(expr) && expr.length !== 1)
      throw new LocationError(50723, `$toString requires a single argument, got ${expr.length}`);
    const input = evalExpr(obj, Array.isArray(expr) ? expr[0] : expr, options);
    return bsonString(input) ?? other(obj, { $literal: input }, options);
  };

/**
 * The added expressions, `$convert` and `$toString` over `convertOp` and `toStringOp` (the
 * context's own, with their refusals).
 */
export function addedExpressions(convertOp: ExpressionOp, toStringOp: ExpressionOp): Record<string, ExpressionOp> {
  return {
    $convert: convert(convertOp),
    $toString: toStringExpression(toStringOp),
    $toObjectId: toObjectIdExpression,
    $indexOfCP: indexOfCP,
    $binarySize: binarySize,
    $bsonSize: bsonSize,
    $tsSecond: timestampPart("$tsSecond", 5687301),
    $tsIncrement: timestampPart("$tsIncrement", 5687302),
  };
}
