/**
 * The unified test format's rules for matching an expected value against an actual one
 * (specification: "Evaluating Matches").
 *
 * - Documents: every expected key must be present and match; extra keys in the actual document
 *   are allowed only when it is a root-level document (operation results, each document of a
 *   find/aggregate result, `command` of a command event, `errorResponse`...). Key order is ignored.
 * - Arrays: same length, element by element.
 * - Numbers: int32, int64 and double are equal when numerically equal (Decimal128 excluded).
 * - Special operators (an object whose first and only key starts with `$$`): `$$exists`,
 *   `$$type`, `$$unsetOrMatches`, `$$matchesEntity`, `$$matchesHexBytes`, `$$sessionLsid`,
 *   `$$lte`, `$$matchAsDocument`, `$$matchAsRoot`.
 *
 * `match` never throws on a mismatch: it returns a description of the first one (or null).
 * It throws only for a malformed expectation (unknown `$$` operator, unknown entity).
 */
import { Binary, EJSON, Long } from "bson";

export type Doc = Record<string, unknown>;

export interface MatchContext {
  /** Resolves `$$matchesEntity`; throws when the entity does not exist. */
  getEntity?(name: string): unknown;
  /** Resolves `$$sessionLsid` to the session's lsid document (`{ id: Binary }`). */
  getSessionLsid?(name: string): unknown;
}

export interface Mismatch {
  path: string;
  message: string;
}

export class MatchError extends Error {}

const NO_CONTEXT: MatchContext = {};

/** Matches `actual` against `expected`; `root` says whether `actual` is a root-level document. */
export interface MatchOptions {
  /** Whether `actual` is a root-level document (default true). */
  root?: boolean;
  /**
   * For results that are an iterable of documents (find, aggregate, listIndexes...): each
   * element of the top-level array is a root-level document.
   */
  rootElements?: boolean;
  ctx?: MatchContext;
  path?: string;
}

export function match(expected: unknown, actual: unknown, options: MatchOptions = {}): Mismatch | null {
  const ctx = options.ctx ?? NO_CONTEXT;
  const path = options.path ?? "";
  if (options.rootElements && Array.isArray(expected)) {
    if (!Array.isArray(actual)) return { path, message: `expected an array, got ${show(actual)}` };
    if (actual.length !== expected.length)
      return { path, message: `expected ${expected.length} document(s), got ${actual.length}: ${show(actual)}` };
    for (let i = 0; i < expected.length; i++) {
      const m = matchValue(expected[i], actual[i], true, ctx, join(path, i));
      if (m) return m;
    }
    return null;
  }
  return matchValue(expected, actual, options.root ?? true, ctx, path);
}

// ---------------------------------------------------------------------------------------------

function isPlainDocument(v: unknown): v is Doc {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  if (v instanceof Map) return false;
  const bsonType = (v as { _bsontype?: unknown })._bsontype;
  if (typeof bsonType === "string") return false;
  if (v instanceof Date || v instanceof RegExp || v instanceof Uint8Array) return false;
  return true;
}

/** The special operator key when `v` is `{ $$op: ... }` (first and only key), else undefined. */
function specialOperator(v: unknown): string | undefined {
  if (!isPlainDocument(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0].startsWith("$$")) return keys[0];
  return undefined;
}

/** Reads a field of an actual document, which may be a Map (e.g. client bulk write results). */
function getField(actual: unknown, key: string): { present: boolean; value: unknown } {
  if (actual instanceof Map) {
    if (actual.has(key)) return { present: true, value: actual.get(key) };
    const n = Number(key);
    if (!Number.isNaN(n) && actual.has(n)) return { present: true, value: actual.get(n) };
    return { present: false, value: undefined };
  }
  const obj = actual as Doc;
  // `key in obj` also sees getters on the prototype (driver result classes); a field whose
  // value is `undefined` was not sent / not set, so it counts as absent.
  if (!(key in obj)) return { present: false, value: undefined };
  const value = obj[key];
  return { present: value !== undefined, value };
}

function ownKeys(actual: unknown): string[] {
  if (actual instanceof Map) return [...actual.keys()].map(String);
  return Object.keys(actual as Doc).filter((k) => (actual as Doc)[k] !== undefined);
}

function join(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

function matchValue(
  expected: unknown,
  actual: unknown,
  root: boolean,
  ctx: MatchContext,
  path: string,
): Mismatch | null {
  const op = specialOperator(expected);
  if (op) return matchOperator(op, (expected as Doc)[op], actual, actual !== undefined, root, ctx, path);

  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return { path, message: `expected an array, got ${show(actual)}` };
    if (actual.length !== expected.length)
      return { path, message: `expected ${expected.length} element(s), got ${actual.length}: ${show(actual)}` };
    for (let i = 0; i < expected.length; i++) {
      // Elements of an array are not root-level (find/aggregate results are handled by callers).
      const m = matchValue(expected[i], actual[i], false, ctx, join(path, i));
      if (m) return m;
    }
    return null;
  }

  if (isPlainDocument(expected)) {
    if (!(isPlainDocument(actual) || actual instanceof Map))
      return { path, message: `expected a document ${show(expected)}, got ${show(actual)}` };
    for (const [key, value] of Object.entries(expected)) {
      const field = getField(actual, key);
      const fieldOp = specialOperator(value);
      const p = join(path, key);
      if (fieldOp) {
        const m = matchOperator(fieldOp, (value as Doc)[fieldOp], field.value, field.present, false, ctx, p);
        if (m) return m;
        continue;
      }
      if (!field.present) return { path: p, message: `missing; expected ${show(value)}` };
      const m = matchValue(value, field.value, false, ctx, p);
      if (m) return m;
    }
    if (!root) {
      const extra = ownKeys(actual).filter((k) => !(k in expected));
      if (extra.length) return { path, message: `unexpected field(s) ${extra.join(", ")} in ${show(actual)}` };
    }
    return null;
  }

  return matchScalar(expected, actual, path);
}

function matchOperator(
  op: string,
  arg: unknown,
  actual: unknown,
  present: boolean,
  root: boolean,
  ctx: MatchContext,
  path: string,
): Mismatch | null {
  switch (op) {
    case "$$exists": {
      if (typeof arg !== "boolean") throw new MatchError(`$$exists needs a boolean at ${path}`);
      if (arg && !present) return { path, message: "expected the field to exist" };
      if (!arg && present) return { path, message: `expected the field to be absent, got ${show(actual)}` };
      return null;
    }
    case "$$unsetOrMatches": {
      if (!present) return null;
      return matchValue(arg, actual, root, ctx, path);
    }
    case "$$type": {
      const types = Array.isArray(arg) ? arg : [arg];
      if (!present) return { path, message: `expected a value of type ${types.join("|")}, field is absent` };
      for (const t of types) {
        if (typeof t !== "string") throw new MatchError(`$$type needs strings at ${path}`);
        if (hasBsonType(actual, t)) return null;
      }
      return { path, message: `expected type ${types.join("|")}, got ${describeType(actual)} ${show(actual)}` };
    }
    case "$$matchesEntity": {
      if (typeof arg !== "string" || !ctx.getEntity)
        throw new MatchError(`$$matchesEntity cannot be resolved at ${path}`);
      const entity = ctx.getEntity(arg);
      return matchValue(entity, actual, root, ctx, path);
    }
    case "$$matchesHexBytes": {
      if (typeof arg !== "string" || !/^([0-9a-fA-F]{2})*$/.test(arg))
        throw new MatchError(`$$matchesHexBytes needs an even-length hex string at ${path}`);
      const bytes = toBytes(actual);
      if (!bytes) return { path, message: `expected bytes, got ${show(actual)}` };
      return Buffer.from(bytes).toString("hex").toLowerCase() === arg.toLowerCase()
        ? null
        : { path, message: `expected bytes ${arg}, got ${Buffer.from(bytes).toString("hex")}` };
    }
    case "$$sessionLsid": {
      if (typeof arg !== "string" || !ctx.getSessionLsid)
        throw new MatchError(`$$sessionLsid cannot be resolved at ${path}`);
      const lsid = ctx.getSessionLsid(arg);
      if (!present) return { path, message: `expected the lsid of session ${arg}, field is absent` };
      return sameLsid(lsid, actual)
        ? null
        : { path, message: `expected the lsid of session ${arg}, got ${show(actual)}` };
    }
    case "$$lte": {
      const a = toNumber(actual);
      const e = toNumber(arg);
      if (a === undefined || e === undefined)
        return { path, message: `expected a number <= ${show(arg)}, got ${show(actual)}` };
      return a <= e ? null : { path, message: `expected <= ${show(arg)}, got ${show(actual)}` };
    }
    case "$$matchAsDocument": {
      if (typeof actual !== "string") return { path, message: `expected an Extended JSON string, got ${show(actual)}` };
      let parsed: unknown;
      try {
        parsed = EJSON.parse(actual, { relaxed: false });
      } catch {
        return { path, message: `not Extended JSON: ${actual}` };
      }
      return matchValue(arg, parsed, false, ctx, path);
    }
    case "$$matchAsRoot": {
      return matchValue(arg, actual, true, ctx, path);
    }
    default:
      throw new MatchError(`unknown special operator ${op} at ${path || "<root>"}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Scalars

function bsonTypeOf(v: unknown): string | undefined {
  if (v !== null && typeof v === "object") {
    const t = (v as { _bsontype?: unknown })._bsontype;
    if (typeof t === "string") return t;
  }
  return undefined;
}

/** A numeric value as a JS number (int32, int64, double; not Decimal128), else undefined. */
function toNumber(v: unknown): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  const t = bsonTypeOf(v);
  if (t === "Int32" || t === "Double") return (v as { valueOf(): number }).valueOf();
  if (t === "Long") return (v as Long).toNumber();
  return undefined;
}

function isNumeric(v: unknown): boolean {
  return toNumber(v) !== undefined;
}

function numbersEqual(expected: unknown, actual: unknown): boolean {
  // Exact comparison for 64-bit integers beyond 2^53.
  const eb = toBigInt(expected);
  const ab = toBigInt(actual);
  if (eb !== undefined && ab !== undefined) return eb === ab;
  const e = toNumber(expected)!;
  const a = toNumber(actual)!;
  if (Number.isNaN(e) && Number.isNaN(a)) return true;
  return e === a;
}

function toBigInt(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (bsonTypeOf(v) === "Long") return BigInt((v as Long).toString());
  const n = toNumber(v);
  if (n !== undefined && Number.isSafeInteger(n)) return BigInt(n);
  return undefined;
}

function matchScalar(expected: unknown, actual: unknown, path: string): Mismatch | null {
  if (isNumeric(expected) || isNumeric(actual)) {
    if (isNumeric(expected) && isNumeric(actual) && numbersEqual(expected, actual)) return null;
    return { path, message: `expected ${show(expected)}, got ${show(actual)}` };
  }
  if (expected === null || expected === undefined) {
    return actual === null || actual === undefined ? null : { path, message: `expected null, got ${show(actual)}` };
  }
  if (typeof expected === "string" || typeof expected === "boolean") {
    return actual === expected ? null : { path, message: `expected ${show(expected)}, got ${show(actual)}` };
  }
  // Other BSON types: compare their canonical Extended JSON (as the specification allows).
  if (canonical(expected) === canonical(actual)) return null;
  return { path, message: `expected ${show(expected)}, got ${show(actual)}` };
}

function canonical(v: unknown): string {
  try {
    return EJSON.stringify({ v } as Doc, { relaxed: false });
  } catch {
    return String(v);
  }
}

function toBytes(v: unknown): Uint8Array | undefined {
  if (v instanceof Uint8Array) return v;
  if (bsonTypeOf(v) === "Binary") return (v as Binary).buffer;
  if (typeof v === "string" && /^([0-9a-fA-F]{2})*$/.test(v)) return Buffer.from(v, "hex");
  return undefined;
}

function lsidBytes(v: unknown): string | undefined {
  const id = isPlainDocument(v) ? v.id : v;
  if (id && typeof id === "object" && "id" in (id as Doc) && !(bsonTypeOf(id) === "Binary")) {
    return lsidBytes(id);
  }
  const bytes = toBytes(id);
  return bytes ? Buffer.from(bytes).toString("hex") : undefined;
}

function sameLsid(expected: unknown, actual: unknown): boolean {
  const e = lsidBytes(expected);
  const a = lsidBytes(actual);
  return e !== undefined && e === a;
}

// ---------------------------------------------------------------------------------------------
// $$type

/**
 * Whether `v` has the BSON type alias `t` (the `$type` query operator's names). The driver
 * deserializes int32 and double alike into JS numbers, so a JS number is accepted as "double",
 * and an integral JS number also as "int" and "long" (the same leniency as the Node driver's own
 * unified runner); explicit Int32/Long/Double wrappers are checked exactly.
 */
function hasBsonType(v: unknown, t: string): boolean {
  const bt = bsonTypeOf(v);
  switch (t) {
    case "double":
      return typeof v === "number" || bt === "Double";
    case "int":
      return (typeof v === "number" && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) || bt === "Int32";
    case "long":
      return (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint" || bt === "Long";
    case "decimal":
      return bt === "Decimal128";
    case "number":
      return isNumeric(v) || bt === "Decimal128";
    case "string":
      return typeof v === "string";
    case "object":
      return isPlainDocument(v) || v instanceof Map;
    case "array":
      return Array.isArray(v);
    case "binData":
      return bt === "Binary" || v instanceof Uint8Array;
    case "undefined":
      return v === undefined;
    case "objectId":
      return bt === "ObjectId";
    case "bool":
      return typeof v === "boolean";
    case "date":
      return v instanceof Date;
    case "null":
      return v === null;
    case "regex":
      return v instanceof RegExp || bt === "BSONRegExp";
    case "dbPointer":
      return bt === "DBPointer" || bt === "DBRef";
    case "javascript":
      return bt === "Code" && !(v as { scope?: unknown }).scope;
    case "javascriptWithScope":
      return bt === "Code" && !!(v as { scope?: unknown }).scope;
    case "symbol":
      return bt === "BSONSymbol" || bt === "Symbol";
    case "timestamp":
      return bt === "Timestamp";
    case "minKey":
      return bt === "MinKey";
    case "maxKey":
      return bt === "MaxKey";
    default:
      throw new MatchError(`unknown $$type alias "${t}"`);
  }
}

function describeType(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  const bt = bsonTypeOf(v);
  if (bt) return bt;
  if (Array.isArray(v)) return "array";
  if (v instanceof Date) return "date";
  return typeof v === "object" ? "object" : typeof v;
}

// ---------------------------------------------------------------------------------------------

/** A short, readable rendering of a value for failure messages (relaxed Extended JSON). */
export function show(v: unknown, max = 300): string {
  let s: string;
  if (v === undefined) s = "undefined";
  else if (typeof v === "bigint") s = `${v}n`;
  else {
    try {
      s = EJSON.stringify(v instanceof Map ? Object.fromEntries(v) : (v as Doc), { relaxed: true });
    } catch {
      s = String(v);
    }
  }
  return s.length > max ? s.slice(0, max) + "…" : s;
}
