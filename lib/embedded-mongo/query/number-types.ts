/**
 * Numbers with their BSON types where a pipeline computes with them: MongoDB's results keep or
 * widen their inputs' types (a `$sum` of longs is a long), while the server holds numbers as
 * JavaScript numbers with the type noted beside them (storage/bson-values.ts), which an
 * expression's value has lost. Used by `$setWindowFields` and `$group`.
 */
import { Double, Int32, Long, type Document } from "bson";
import { evalExpr } from "mingo/core";
import type { Options } from "mingo/types";
import { numberTypeAt, setField, setNumberType, type NumberType } from "../storage/bson-values";
import { isPlainObject, ownField } from "../storage/keys";

const bsonType = (v: unknown) => (v as { _bsontype?: string } | null | undefined)?._bsontype;

/**
 * Sets `container[key]` to a computed result as the server holds numbers: a JavaScript
 * number with its BSON type noted beside it (bson-values.ts); a result carries its type as a BSON
 * number (`Long`, `Double`, `Int32`), also inside an array (`$push`).
 */
export function place(container: Document | unknown[], key: string, value: unknown): void {
  const type = bsonType(value);
  if (type === "Int32" || type === "Double") {
    setField(container as Document, key, (value as { value: number }).value);
    setNumberType(container, key, type === "Double" ? "double" : undefined);
  } else if (type === "Long" && Number.isSafeInteger((value as Long).toNumber())) {
    setField(container as Document, key, (value as Long).toNumber());
    setNumberType(container, key, "long");
  } else if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    value.forEach((v, i) => place(out, String(i), v));
    setField(container as Document, key, out);
  } else setField(container as Document, key, value);
}

/**
 * An expression's value for a row, a number of a field path with the BSON type it is stored as
 * (a long as `Long`, an integral double as `Double`): MongoDB's window functions keep or widen
 * their inputs' types, which the JavaScript number alone has lost.
 */
export function typedValue(doc: Document, expr: unknown, options: Options): unknown {
  return typedAs(doc, expr, evalExpr(doc, expr, options));
}

/** `value`, the value of `expr` for `doc`, with the BSON type its field is stored as when `expr` is a field path. */
export function typedAs(doc: Document, expr: unknown, value: unknown): unknown {
  if (typeof value !== "number" || typeof expr !== "string" || !expr.startsWith("$") || expr.startsWith("$$"))
    return value;
  const parts = expr.slice(1).split(".");
  let container: unknown = doc;
  for (const part of parts.slice(0, -1)) container = isPlainObject(container) ? ownField(container, part) : undefined;
  return withType(value, numberTypeAt(container, parts[parts.length - 1]));
}

function withType(n: number, type: NumberType | undefined): unknown {
  if (type === "long") return Long.fromNumber(n);
  return type === "double" ? new Double(n) : n;
}

/** A result MongoDB always answers as a double (`$avg`, `$stdDevPop` ...); null stays null. */
export const double = (n: number | null) => (n === null ? null : new Double(n));

/** A count: an int, a long past the int range (MongoDB's `$sum: 1`). */
export const counted = (n: number) => (n <= INT32_MAX ? new Int32(n) : Long.fromNumber(n));

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * MongoDB's `$sum`: a total of the widest type among its numbers (int, long, double), an int total
 * past the int range becoming a long and a long one past the long range a double; 0 (an int)
 * when there is none.
 */
export class Sum {
  private widest: "int" | "long" | "double" = "int";
  private exact = 0n;
  private total = 0;

  /** Adds a number `v` (a BSON number, or a JavaScript one typed by its value), `n` as a JavaScript number. */
  add(v: unknown, n: number): void {
    this.total += n;
    const kind = numberKind(v, n);
    if (kind === "double") this.widest = "double";
    else {
      if (kind === "long" && this.widest === "int") this.widest = "long";
      this.exact += typeof v === "bigint" ? v : bsonType(v) === "Long" ? BigInt((v as Long).toString()) : BigInt(n);
    }
  }

  value(): unknown {
    if (this.widest === "double" || this.exact < INT64_MIN || this.exact > INT64_MAX) return new Double(this.total);
    if (this.widest === "int" && this.exact >= BigInt(INT32_MIN) && this.exact <= BigInt(INT32_MAX))
      return new Int32(Number(this.exact));
    return Long.fromBigInt(this.exact);
  }
}

/** The BSON type of a number: a JavaScript number without a noted type is an int when integral in the int range. */
function numberKind(v: unknown, n: number): "int" | "long" | "double" {
  if (typeof v === "bigint") return "long";
  const type = bsonType(v);
  if (type === "Long") return "long";
  if (type === "Double") return "double";
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX ? "int" : "double";
}

/**
 * Notes on `out` (at any depth, through arrays) the BSON types `input` holds where `out` holds the
 * same number at the same place: a value a stage passed through unchanged keeps its type.
 */
export function carryTypes(out: unknown, input: unknown, depth = 0): void {
  if (out === input || depth > 100 || out === null || input === null) return;
  if (typeof out !== "object" || typeof input !== "object") return;
  const bothArrays = Array.isArray(out) && Array.isArray(input);
  if (!bothArrays && !(isPlainObject(out) && isPlainObject(input))) return;
  for (const key of Object.keys(out)) {
    if (!Object.hasOwn(input, key)) continue;
    const v = (out as Record<string, unknown>)[key];
    const w = (input as Record<string, unknown>)[key];
    if (typeof v === "number") {
      if (v === w || (Number.isNaN(v) && Number.isNaN(w))) setNumberType(out, key, numberTypeAt(input, key));
    } else carryTypes(v, w, depth + 1);
  }
}
