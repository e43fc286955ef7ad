/**
 * Query operators that need the BSON type of a value, which mingo cannot see once numbers are
 * JavaScript numbers: `$type` (int, long, double and decimal told apart, binary data, ...) and
 * the DBRef fields `$ref`, `$id` and `$db` inside `$elemMatch` (mingo takes them for unknown
 * operators). And `$all`, which mingo matches against arrays only where MongoDB reads it as an
 * `$and` of equalities (so `{tags: {$all: ["a"]}}` matches the string "a"). mingo's own
 * operators cannot be replaced, so a filter's `$type` and `$all` are renamed before compiling;
 * so are the `$bits*` operators, which mingo applies to numbers only and MongoDB to BinData too,
 * and `$gt`/`$gte`/`$lt`/`$lte` against BinData, which mingo compares as text where MongoDB
 * orders binary data by length, then subtype, then bytes.
 */
import type { Document } from "bson";
import { EJSON } from "bson";
import { Query } from "mingo/query";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { numberTypeAt } from "../storage/bson-values";
import { compareValues, isPlainObject } from "../storage/keys";
import { comparedInOrder, isOperatorCondition, needsOrder, orderedName, orderedOperators } from "./document-order";
import { RegexOperand, regexQueryOperators } from "./regex-options";

const ALIASES: Record<string, number> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
};

/** The BSON type number of `container[key]`. */
function typeNumber(value: unknown, container: unknown, key: string): number {
  if (value === null) return 10;
  if (value === undefined) return 6;
  switch (typeof value) {
    case "number": {
      const noted = numberTypeAt(container, key);
      if (noted === "long") return 18;
      if (noted === "double") return 1;
      return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 ? 16 : 1;
    }
    case "bigint":
      return 18;
    case "string":
      return 2;
    case "boolean":
      return 8;
  }
  if (Array.isArray(value)) return 4;
  if (value instanceof Date) return 9;
  if (value instanceof RegExp) return 11;
  if (ArrayBuffer.isView(value)) return 5;
  const types: Record<string, number> = {
    Long: 18,
    Int32: 16,
    Double: 1,
    Decimal128: 19,
    Binary: 5,
    ObjectId: 7,
    ObjectID: 7,
    BSONRegExp: 11,
    Timestamp: 17,
    MinKey: -1,
    MaxKey: 127,
    Code: 13,
    BSONSymbol: 14,
    DBRef: 3,
  };
  const bsonType = (value as { _bsontype?: string })._bsontype;
  if (bsonType === "Code") return (value as { scope?: unknown }).scope ? 15 : 13;
  return bsonType !== undefined ? (types[bsonType] ?? 3) : 3;
}

const TYPE_NAMES = new Map<number, string>([
  ...Object.entries(ALIASES).map(([name, n]) => [n, name] as [number, string]),
  [15, "javascriptWithScope"],
]);

/** MongoDB's name of the BSON type of `container[key]` (`int`, `string`, `object` ...), as its messages give it. */
export function typeName(container: unknown, key: string): string {
  const value = (container as Record<string, unknown>)[key];
  return TYPE_NAMES.get(typeNumber(value, container, key)) ?? "object";
}

function wantedTypes(spec: unknown): Array<number | "number"> {
  const one = (t: unknown): number | "number" => {
    if (t === "number") return "number";
    if (typeof t === "string") {
      if (!Object.hasOwn(ALIASES, t)) throw new MongoCommandError("BadValue", `Unknown type name alias: ${t}`);
      return ALIASES[t];
    }
    if (typeof t === "number" && (Object.values(ALIASES).includes(t) || t === 15)) return t;
    throw new MongoCommandError(
      "BadValue",
      `Invalid numerical type code: ${EJSON.stringify({ v: t } as Document).slice(5, -1)}`,
    );
  };
  if (Array.isArray(spec)) return spec.map(one);
  return [one(spec)];
}

/** The members a dotted path reaches, each with its container (arrays are walked as MongoDB does). */
function reach(container: unknown, parts: string[], out: Array<[unknown, unknown, string]>): void {
  const [head, ...rest] = parts;
  if (Array.isArray(container) && !/^\d+$/.test(head)) {
    for (const el of container) if (isPlainObject(el)) reach(el, parts, out);
    return;
  }
  if (container === null || typeof container !== "object" || !Object.hasOwn(container, head)) return;
  const value = (container as Record<string, unknown>)[head];
  if (rest.length === 0) out.push([value, container, head]);
  else reach(value, rest, out);
}

function matchesType(value: unknown, container: unknown, key: string, wanted: Array<number | "number">): boolean {
  const t = typeNumber(value, container, key);
  return wanted.some((w) => (w === "number" ? [1, 16, 18, 19].includes(t) : w === t));
}

type Predicate = (doc: unknown) => boolean;

function $bsonType(selector: string, spec: unknown): Predicate {
  const wanted = wantedTypes(spec);
  const parts = selector.split(".");
  return (doc) => {
    const found: Array<[unknown, unknown, string]> = [];
    reach(doc, parts, found);
    return found.some(([value, container, key]) => {
      if (matchesType(value, container, key, wanted)) return true;
      // An array matches when one of its elements has the type.
      return Array.isArray(value) && value.some((el, i) => matchesType(el, value, String(i), wanted));
    });
  };
}

function dbRefField(field: "$ref" | "$id" | "$db") {
  return (selector: string, expected: unknown): Predicate => {
    const parts = selector.split(".");
    return (doc) => {
      const found: Array<[unknown, unknown, string]> = [];
      reach(doc, parts, found);
      return found.some(
        ([value]) =>
          isPlainObject(value) &&
          EJSON.stringify({ v: value[field] } as Document) === EJSON.stringify({ v: expected } as Document),
      );
    };
  };
}

/**
 * MongoDB's `$all`: every value matches as an equality (a document compared field by field in
 * order, see document-order.ts) or an `$elemMatch`; none: no match.
 */
function $allOf(selector: string, values: unknown, options: unknown): Predicate {
  if (!Array.isArray(values)) throw new MongoCommandError("BadValue", "$all needs an array");
  if (values.length === 0) return () => false;
  // A pattern (regex-options.ts) matches as a field's pattern does: strings, or an equal stored regex.
  const equality = (v: unknown) =>
    v instanceof RegexOperand
      ? { $regexOf: v }
      : comparedInOrder(v) && !(isPlainObject(v) && "$elemMatch" in v)
        ? { $orderedEq: v }
        : v;
  const query = new Query({ $and: values.map((v) => ({ [selector]: equality(v) })) }, options as Partial<Options>);
  return (doc) => query.test(doc as Document);
}

/**
 * What a `__proto__` field is called while mingo reads it (mingo refuses the name): a NUL cannot
 * be in a BSON field name, so no real field is called so, and the name sorts against every other
 * as `__proto__` does, so documents compared as wholes keep MongoDB's order.
 */
const PROTO = "__proto__\u0000";

/** Whether a value holds a field named `__proto__` at any depth. */
export function hasProtoField(value: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (Array.isArray(value)) return value.some((v) => hasProtoField(v, depth + 1));
  if (!isPlainObject(value)) return false;
  return Object.keys(value).some((key) => key === "__proto__" || hasProtoField(value[key], depth + 1));
}

/** A copy with every `__proto__` field renamed, so mingo (which refuses the name) can read it. */
export function unproto(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unproto);
  if (!isPlainObject(value)) return value;
  const out: Document = {};
  for (const key of Object.keys(value)) out[key === "__proto__" ? PROTO : key] = unproto(value[key]);
  return out;
}

/** A condition on a path through a `__proto__` field, which MongoDB reads as any other name. */
function $protoPath(_selector: string, spec: { path: string; condition: unknown }, options: unknown): Predicate {
  const path = spec.path
    .split(".")
    .map((part) => (part === "__proto__" ? PROTO : part))
    .join(".");
  const query = new Query({ [path]: spec.condition }, options as Partial<Options>);
  return (doc) => query.test(unproto(doc) as Document);
}

/** The bit positions a `$bits*` mask names: a list, a number's set bits, or BinData's. */
function maskPositions(mask: unknown): number[] {
  if (Array.isArray(mask)) {
    if (!mask.every((p) => Number.isInteger(p) && p >= 0))
      throw new MongoCommandError("BadValue", "bit positions must be non-negative integers");
    return mask as number[];
  }
  if (typeof mask === "number") {
    if (!Number.isInteger(mask) || mask < 0)
      throw new MongoCommandError("BadValue", "bitmask must be a non-negative integer");
    return setBits(BigInt(mask), 64);
  }
  const bytes = binaryBytes(mask);
  if (bytes) return bytesBits(bytes);
  throw new MongoCommandError(
    "BadValue",
    "value takes an Array, a number, or a BinData but received a bitmask of another type",
  );
}

function setBits(n: bigint, width: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < width; i++) if ((n >> BigInt(i)) & 1n) out.push(i);
  return out;
}

function bytesBits(bytes: Uint8Array): number[] {
  const out: number[] = [];
  bytes.forEach((byte, i) => {
    for (let b = 0; b < 8; b++) if (byte & (1 << b)) out.push(i * 8 + b);
  });
  return out;
}

function binaryBytes(value: unknown): Uint8Array | undefined {
  if ((value as { _bsontype?: string } | null)?._bsontype === "Binary") return (value as { buffer: Uint8Array }).buffer;
  return value instanceof Uint8Array ? value : undefined;
}

/** Whether bit `i` of a value is set: BinData bit by bit, a number in 64-bit two's complement. */
function bitTester(value: unknown): ((i: number) => boolean) | undefined {
  const bytes = binaryBytes(value);
  if (bytes) return (i) => i < bytes.length * 8 && Boolean(bytes[i >> 3] & (1 << (i & 7)));
  if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= 2 ** 63) {
    const n = BigInt.asUintN(64, BigInt(value));
    return (i) => (i < 64 ? Boolean((n >> BigInt(i)) & 1n) : value < 0);
  }
  if (typeof value === "bigint" || (value as { _bsontype?: string } | null)?._bsontype === "Long") {
    const n = BigInt.asUintN(64, BigInt(String(value)));
    const negative = BigInt(String(value)) < 0n;
    return (i) => (i < 64 ? Boolean((n >> BigInt(i)) & 1n) : negative);
  }
  return undefined;
}

function bitsOperator(all: boolean, set: boolean) {
  return (selector: string, mask: unknown): Predicate => {
    const positions = maskPositions(mask);
    const parts = selector.split(".");
    return (doc) => {
      const found: Array<[unknown, unknown, string]> = [];
      reach(doc, parts, found);
      return found.some(([value]) => {
        const bit = bitTester(value);
        if (!bit) return false;
        const check = (i: number) => bit(i) === set;
        return all ? positions.every(check) : positions.some(check);
      });
    };
  };
}

/** `$gt` ... `$lte` against BinData: only binary values compare (MongoDB's type bracketing). */
function binaryRange(test: (order: number) => boolean) {
  return (selector: string, bound: unknown): Predicate => {
    const parts = selector.split(".");
    return (doc) => {
      const found: Array<[unknown, unknown, string]> = [];
      reach(doc, parts, found);
      const values = found.flatMap(([value]) => (Array.isArray(value) ? value : [value]));
      return values.some((v) => isBinary(v) && test(compareValues(v, bound)));
    };
  };
}

const isBinary = (v: unknown) => (v as { _bsontype?: string } | null)?._bsontype === "Binary";

const BINARY_RANGES: Record<string, string> = {
  $gt: "$binaryGt",
  $gte: "$binaryGte",
  $lt: "$binaryLt",
  $lte: "$binaryLte",
};

export const customQueryOperators = {
  $binaryGt: binaryRange((o) => o > 0),
  $binaryGte: binaryRange((o) => o >= 0),
  $binaryLt: binaryRange((o) => o < 0),
  $binaryLte: binaryRange((o) => o <= 0),
  $bitsAllSetOf: bitsOperator(true, true),
  $bitsAllClearOf: bitsOperator(true, false),
  $bitsAnySetOf: bitsOperator(false, true),
  $bitsAnyClearOf: bitsOperator(false, false),
  $bsonType,
  $allOf,
  $protoPath,
  ...orderedOperators(),
  ...regexQueryOperators,
  $ref: dbRefField("$ref"),
  $id: dbRefField("$id"),
  $db: dbRefField("$db"),
};

/**
 * The filter with every `$type` condition renamed to `$bsonType`, `$all` to `$allOf`, and so on,
 * and each comparison with a document to its ordered operator (document-order.ts); `$expr` left
 * alone. Applying it again changes nothing.
 */
export function rewriteTypeOperators(filter: Document): Document {
  let binary = false;
  const text = JSON.stringify(filter, function (this: Record<string, unknown>, key: string, value: unknown) {
    if (Object.hasOwn(BINARY_RANGES, key) && isBinary(this[key])) binary = true;
    return value;
  });
  if (
    !binary &&
    !/"\$(type|all|bitsAllSet|bitsAllClear|bitsAnySet|bitsAnyClear)"|__proto__/.test(text) &&
    !needsOrder(filter)
  )
    return filter;
  const condition = (cond: unknown, element = false): unknown => {
    // A document without operators is a value to compare, kept as it came (a copy would turn a
    // `__proto__` field into the copy's prototype); compared in order (document-order.ts).
    if (Array.isArray(cond)) return cond.some(comparedInOrder) ? { $orderedEq: cond } : cond;
    if (!isPlainObject(cond)) return cond;
    const keys = Object.keys(cond);
    if (!keys.some((k) => k.startsWith("$"))) return keys.length > 0 ? { $orderedEq: cond } : cond;
    const out: Document = {};
    for (const [op, value] of Object.entries(cond)) {
      const ordered = orderedName(op, value, element);
      if (op === "$type") out.$bsonType = value;
      else if (Object.hasOwn(BINARY_RANGES, op) && isBinary(value)) out[BINARY_RANGES[op]] = value;
      else if (ordered) out[ordered] = value;
      else if (/^\$bits(All|Any)(Set|Clear)$/.test(op)) out[`${op}Of`] = value;
      else if (op === "$all")
        out.$allOf = Array.isArray(value)
          ? value.map((v) =>
              isPlainObject(v) && isPlainObject(v.$elemMatch) ? { $elemMatch: elemMatch(v.$elemMatch) } : v,
            )
          : value;
      else if (op === "$not") out.$not = condition(value, element);
      else if (op === "$elemMatch" && isPlainObject(value)) out.$elemMatch = elemMatch(value);
      else out[op] = value;
    }
    return out;
  };
  const elemMatch = (value: Document) =>
    isOperatorCondition(value) ? condition(value, true) : rewriteTypeOperators(value);
  const out: Document = {};
  for (const [key, value] of Object.entries(filter)) {
    if ((key === "$and" || key === "$or" || key === "$nor") && Array.isArray(value))
      out[key] = value.map((f) => (isPlainObject(f) ? rewriteTypeOperators(f) : f));
    else if (key.startsWith("$")) out[key] = value;
    else if (key.split(".").includes("__proto__"))
      out[`${PROTO}${Object.keys(out).length}`] = { $protoPath: { path: key, condition: condition(value) } };
    else out[key] = condition(value);
  }
  return out;
}
