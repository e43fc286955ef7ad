/**
 * BSON values as the server holds them in memory: numbers as JavaScript numbers (so mingo can
 * compare and compute with them), yet each keeping its BSON type. A long or an integral double
 * would come back from a plain JavaScript number as an int32; the type is kept beside the value
 * instead, on its document or array (a hidden symbol), and the container's `toBSON` writes the
 * number back as that type. DBRefs stay plain `{$ref, $id}` documents, as MongoDB matches them.
 */
import { BSON, BSONError, BSONRegExp, Double, Long, type Document } from "bson";

export type NumberType = "long" | "double";

const TYPES = Symbol("bsonNumberTypes");

type Container = (Document | unknown[]) & { [TYPES]?: Map<string, NumberType> };

// Regular expressions are read as BSON values and turned into patterns here (see promote): the
// driver's own conversion writes `s` (dotAll) as JavaScript's `g` and drops `x`.
const rawOptions = {
  promoteValues: false,
  promoteBuffers: false,
  bsonRegExp: true,
  validation: { utf8: false },
} as const;

/** A BSON document read into server values (see the module comment). */
export function decodeDocument(bytes: Uint8Array): Document {
  try {
    return promote(BSON.deserialize(bytes, rawOptions)) as Document;
  } catch (err) {
    // A regex option no BSON regex has (a raw client's bytes) is read as the driver reads it, ignored.
    if (!(err instanceof BSONError) || !/regular expression option/.test(err.message)) throw err;
    return promote(BSON.deserialize(bytes, { ...rawOptions, bsonRegExp: false })) as Document;
  }
}

/**
 * A BSON regular expression as a JavaScript pattern that matches as MongoDB's PCRE does (`s`:
 * `.` matches a newline; `x`: whitespace and `#` comments of the pattern ignored), keeping the
 * pattern and options exactly as given: it is written back as that same BSON value (`toBSON`),
 * as MongoDB stores and returns a regex value unchanged.
 */
export class StoredRegExp extends RegExp {
  // Private, so that code reading a value's own fields sees a pattern as it sees any RegExp.
  readonly #pattern: string;
  readonly #options: string;

  constructor(pattern: string, options: string) {
    super(options.includes("x") ? extendedPattern(pattern) : pattern, options.replace(/[^ims]/g, ""));
    this.#pattern = pattern;
    this.#options = BSONRegExp.parseOptions(options);
  }

  get pattern(): string {
    return this.#pattern;
  }

  get options(): string {
    return this.#options;
  }

  toBSON(): BSONRegExp {
    return new BSONRegExp(this.#pattern, this.#options);
  }

  // Methods that build a new pattern (replace, split, matchAll) make a plain RegExp.
  static get [Symbol.species](): RegExpConstructor {
    return RegExp;
  }
}

/** A PCRE pattern under option `x` without its whitespace and `#` comments (kept inside `[...]` and when escaped). */
export function extendedPattern(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal member of the class, as PCRE reads it.
      if (pattern[i + 1] === "^") out += pattern[++i];
      if (pattern[i + 1] === "]") {
        out += "\\]";
        i++;
      }
    } else if (c === "#") {
      while (i + 1 < pattern.length && pattern[i + 1] !== "\n") i++;
    } else if (!" \t\n\v\f\r".includes(c)) out += c;
  }
  return out;
}

/** The pattern a BSON regular expression matches as, or the BSON value itself when JavaScript cannot compile it. */
function patternOf(value: BSONRegExp): StoredRegExp | BSONRegExp {
  try {
    return new StoredRegExp(value.pattern, value.options);
  } catch (err) {
    // A regular expression JavaScript cannot compile (`[`, PCRE-only syntax) is still a valid
    // BSON value: MongoDB stores it, and refuses it only when a query uses it (filter.ts).
    if (!(err instanceof SyntaxError)) throw err;
    return value;
  }
}

/** Sizes of the values of fixed size, by BSON type (double, undefined, ObjectId, bool, date, null, int32, timestamp, int64, decimal, min and max keys). */
const FIXED_SIZES: Record<number, number> = {
  0x01: 8,
  0x06: 0,
  0x07: 12,
  0x08: 1,
  0x09: 8,
  0x0a: 0,
  0x10: 4,
  0x11: 8,
  0x12: 8,
  0x13: 16,
  0xff: 0,
  0x7f: 0,
};

/** Where the value of the element starting at `at` (its type byte) ends, or -1 for a type not known here. */
function elementEnd(bytes: Buffer, at: number, valueAt: number): number {
  const type = bytes[at];
  const fixed = FIXED_SIZES[type];
  if (fixed !== undefined) return valueAt + fixed;
  switch (type) {
    case 0x02: // string, code, symbol: length then bytes
    case 0x0d:
    case 0x0e:
      return valueAt + 4 + bytes.readInt32LE(valueAt);
    case 0x03: // document, array, code with scope: their length includes itself
    case 0x04:
    case 0x0f:
      return valueAt + bytes.readInt32LE(valueAt);
    case 0x05: // binary: length, subtype, bytes
      return valueAt + 5 + bytes.readInt32LE(valueAt);
    case 0x0b: // regular expression: two C strings
      return bytes.indexOf(0, bytes.indexOf(0, valueAt) + 1) + 1;
    case 0x0c: // DBPointer: a string and an ObjectId
      return valueAt + 4 + bytes.readInt32LE(valueAt) + 12;
    default:
      return -1;
  }
}

/**
 * Only the top-level fields `names` of a stored document (and `_id`), the others skipped unread:
 * what a count needs to test its filter costs a fraction of decoding the whole document.
 */
export function decodeFields(bytes: Buffer, names: ReadonlySet<string>): Document {
  return decodeDocument(pickElements(bytes, names, true) ?? bytes);
}

/**
 * A stored document without its top-level fields `names`, cut out of its bytes: what a projection
 * that only excludes top-level fields answers, with nothing decoded or encoded again. Undefined
 * when the bytes cannot be walked (the caller then projects the decoded document).
 */
export function withoutFields(bytes: Buffer, names: ReadonlySet<string>): Buffer | undefined {
  return pickElements(bytes, names, false);
}

/**
 * With `keep`, the top-level elements of `bytes` named in `names` and `_id`; without it, every
 * element but those named (`_id` too, when named). As a document of their own: `bytes` itself
 * when every element stays, undefined when the bytes cannot be walked.
 */
function pickElements(bytes: Buffer, names: ReadonlySet<string>, keep: boolean): Buffer | undefined {
  // Kept elements always include `_id`; dropped ones include it only when named.
  const withId = keep;
  const byLength = namesByLength(names, withId);
  const kept: [number, number][] = [];
  let size = 5;
  let at = 4;
  const last = bytes.length - 1;
  while (at < last) {
    const nameEnd = bytes.indexOf(0, at + 1);
    const end = nameEnd < 0 ? -1 : elementEnd(bytes, at, nameEnd + 1);
    if (end <= at || end > last) return undefined;
    if (isNamed(bytes, at + 1, nameEnd, byLength, names, withId) === keep) {
      kept.push([at, end]);
      size += end - at;
    }
    at = end;
  }
  if (size === bytes.length) return bytes;
  const picked = Buffer.allocUnsafe(size);
  picked.writeInt32LE(size, 0);
  let to = 4;
  for (const [from, end] of kept) to += bytes.copy(picked, to, from, end);
  picked[to] = 0;
  return picked;
}

/** The names {@link pickElements} looks for (and `_id`, or not) as their UTF-8 bytes, by length; made once per set of names. */
const namedBytes = [false, true].map(
  () => new WeakMap<ReadonlySet<string>, { size: number; byLength: Array<Buffer[] | undefined> }>(),
);

function namesByLength(names: ReadonlySet<string>, withId: boolean): Array<Buffer[] | undefined> {
  const cache = namedBytes[withId ? 1 : 0];
  let named = cache.get(names);
  if (!named || named.size !== names.size) {
    named = { size: names.size, byLength: [] };
    for (const name of withId ? [...names, "_id"] : names) {
      const encoded = Buffer.from(name, "utf8");
      // A name with a lone surrogate (written as U+FFFD's bytes) is no decoded name's.
      if (encoded.toString("utf8") === name) (named.byLength[encoded.length] ??= []).push(encoded);
    }
    cache.set(names, named);
  }
  return named.byLength;
}

/**
 * Whether the field name in `bytes` from `from` to `to` is one of `names` (or `_id`, when `withId`):
 * compared as bytes, without a string made for every field of every document read. A name of
 * other bytes that are not ASCII is decoded and looked up as before (invalid UTF-8 reads as U+FFFD).
 */
function isNamed(
  bytes: Buffer,
  from: number,
  to: number,
  byLength: Array<Buffer[] | undefined>,
  names: ReadonlySet<string>,
  withId: boolean,
): boolean {
  const candidates = byLength[to - from];
  if (candidates) {
    for (const name of candidates) {
      let i = 0;
      while (i < name.length && name[i] === bytes[from + i]) i++;
      if (i === name.length) return true;
    }
  }
  for (let i = from; i < to; i++) {
    if (bytes[i] >= 0x80) {
      const name = bytes.toString("utf8", from, to);
      return (withId && name === "_id") || names.has(name);
    }
  }
  return false;
}

/** Sizes of the `_id` values {@link decodeIdKey} reads alone: ObjectId, int32, int64, double, date. */
const FIXED_ID_SIZES: Record<number, number> = { 0x07: 12, 0x10: 4, 0x12: 8, 0x01: 8, 0x09: 8 };
const ID_NAME = Buffer.from("_id\0", "latin1");

/**
 * The key of a stored document, `{ _id }`, read without decoding the rest when `_id` is the
 * first field (as the server stores it) and of a common type: a commit that logs thousands of
 * inserts then keeps no decoded copy of each alive meanwhile.
 */
export function decodeIdKey(bytes: Buffer): Document {
  const type = bytes[4];
  const start = 5 + ID_NAME.length;
  if (bytes.length > start && bytes.compare(ID_NAME, 0, ID_NAME.length, 5, start) === 0) {
    const size = type === 0x02 ? 4 + bytes.readInt32LE(start) : FIXED_ID_SIZES[type];
    const end = start + (size ?? 0);
    if (size !== undefined && size > 0 && end < bytes.length) {
      const element = Buffer.alloc(end + 1);
      element.writeInt32LE(element.length, 0);
      bytes.copy(element, 4, 4, end);
      return idKeyOf(decodeDocument(element));
    }
  }
  return idKeyOf(decodeDocument(bytes));
}

/** A document's key, `{ _id }`, its number type kept (an int64 `_id` stays one in change events). */
export function idKeyOf(doc: Document): Document {
  const key = { _id: doc._id };
  setNumberType(key, "_id", numberTypeAt(doc, "_id"));
  return key;
}

/** The bytes a document of a client's request arrived as, while it is that same unchanged object. */
const received = new WeakMap<Document, Buffer>();

/**
 * A document of a request's document sequence (an insert's `documents`), remembering its bytes:
 * an insert of it unchanged stores them as they came instead of encoding the document again.
 */
export function decodeReceived(bytes: Buffer): Document {
  const doc = decodeDocument(bytes);
  received.set(doc, bytes);
  return doc;
}

/** The bytes `doc` arrived as, when it came from a request's document sequence (see {@link decodeReceived}). */
export const receivedBytes = (doc: Document): Buffer | undefined => received.get(doc);

/**
 * A document as the bytes it is stored as, for a reply to carry unchanged (the wire encodes it
 * by copying them: wire.ts).
 */
export class StoredDocument {
  constructor(readonly bytes: Buffer) {}
}

/** A deep copy that keeps every value's BSON type. */
export function copyDocument(doc: Document): Document {
  return decodeDocument(BSON.serialize(doc));
}

/**
 * Sets a field, also one named `__proto__` (a plain assignment would change the object's
 * prototype instead of adding the field a document may hold).
 */
export function setField(target: Document, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function promote(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = child(out, String(i), value[i]);
    return out;
  }
  const bsonType = (value as { _bsontype?: string })._bsontype;
  if (bsonType === "DBRef") {
    const ref = value as unknown as { collection: string; oid: unknown; db?: string; fields: Document };
    const out: Document = { $ref: ref.collection, $id: undefined };
    out.$id = child(out, "$id", ref.oid);
    if (ref.db) out.$db = ref.db;
    for (const [k, v] of Object.entries(ref.fields ?? {})) setField(out, k, child(out, k, v));
    return out;
  }
  if (bsonType === "BSONRegExp") return patternOf(value as BSONRegExp);
  if (bsonType !== undefined || value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value))
    return value;
  const out: Document = {};
  for (const key of Object.keys(value)) setField(out, key, child(out, key, (value as Document)[key]));
  return out;
}

/** One member of a container: numbers become JavaScript numbers, their type noted when needed. */
function child(container: Container, key: string, value: unknown): unknown {
  switch ((value as { _bsontype?: string } | null)?._bsontype) {
    case "Int32":
      return (value as { value: number }).value;
    case "Double": {
      const n = (value as { value: number }).value;
      // Only an integral double in the int32 range would come back as another type.
      if (Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX) noteType(container, key, "double");
      return n;
    }
    case "Long": {
      const long = value as Long;
      const n = long.toNumber();
      if (!Number.isSafeInteger(n)) return long;
      noteType(container, key, "long");
      return n;
    }
  }
  return promote(value);
}

function noteType(container: Container, key: string, type: NumberType | undefined): void {
  let types = container[TYPES];
  if (!types) {
    if (!type) return;
    types = new Map();
    Object.defineProperty(container, TYPES, { value: types, enumerable: false, writable: true });
    Object.defineProperty(container, "toBSON", { value: toBSON, enumerable: false, writable: true });
  }
  if (type) types.set(key, type);
  else types.delete(key);
}

/** The BSON type a number in a container was read as (undefined: int32 or double by value). */
export function numberTypeAt(container: unknown, key: string): NumberType | undefined {
  return container !== null && typeof container === "object" ? (container as Container)[TYPES]?.get(key) : undefined;
}

/** Notes (or, with undefined, forgets) the BSON type of the number at `container[key]`. */
export function setNumberType(container: unknown, key: string, type: NumberType | undefined): void {
  if (container !== null && typeof container === "object") noteType(container as Container, key, type);
}

function typed(value: unknown, type: NumberType | undefined): unknown {
  if (typeof value !== "number" || !type) return value;
  if (type === "long" && Number.isInteger(value)) return Long.fromNumber(value);
  return new Double(value);
}

function toBSON(this: Container): unknown {
  const types = this[TYPES]!;
  if (Array.isArray(this)) return this.map((v, i) => typed(v, types.get(String(i))));
  const out: Document = {};
  for (const key of Object.keys(this)) setField(out, key, typed((this as Document)[key], types.get(key)));
  return out;
}

/** `doc` with `_id` first, keeping the noted number types of its fields. */
export function idFirst(doc: Document, id: unknown): Document {
  const out: Document = { _id: id };
  for (const key of Object.keys(doc)) if (key !== "_id") setField(out, key, doc[key]);
  const types = (doc as Container)[TYPES];
  if (types) for (const [key, type] of types) noteType(out, key, type);
  return out;
}

/**
 * Whether two documents encode to the same BSON, without encoding them where their values make it
 * plain (an update's result beside the stored document, on every update: encoding both cost a
 * tenth of a pipeline update, docs/benchmarks.md). Decided here only for strings, numbers with
 * their noted types, booleans, null, dates, ObjectIds, documents and arrays; any other value, or a
 * difference that the encoding could hide (a lone surrogate, -0, a value it skips), leaves the
 * answer to the encoding.
 */
export function sameEncoding(a: Document, b: Document): boolean {
  return compareEncoded(a, b) ?? Buffer.from(BSON.serialize(a)).equals(BSON.serialize(b));
}

type Kind = "string" | "number" | "boolean" | "null" | "date" | "objectId" | "document" | "array";

/** The kind of a value this comparison decides, or undefined. */
function kindOf(value: unknown): Kind | undefined {
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "object": {
      if (value === null) return "null";
      if (value instanceof Date) return Number.isFinite(value.getTime()) ? "date" : undefined;
      if ((value as { _bsontype?: unknown })._bsontype === "ObjectId") return "objectId";
      const proto = Object.getPrototypeOf(value);
      const own = (value as { toBSON?: unknown }).toBSON;
      // A container's own toBSON is the one that writes its noted number types (compared below).
      if (own !== undefined && !(own === toBSON && (value as Container)[TYPES])) return undefined;
      if (Array.isArray(value)) return proto === Array.prototype ? "array" : undefined;
      return proto === Object.prototype || proto === null ? "document" : undefined;
    }
    default:
      return undefined;
  }
}

const wellFormed = (s: string): boolean => !/\p{Cs}/u.test(s) && !s.includes("\0");

/** The BSON number type a number is written as in its container. */
function writtenType(value: number, type: NumberType | undefined): string {
  if (type === "long" && Number.isInteger(value)) return "long";
  if (type) return "double";
  return Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX ? "int32" : "double";
}

/** true: the same encoding; false: different; undefined: undecided here. */
function compareMember(ca: Container, cb: Container, key: string, a: unknown, b: unknown): boolean | undefined {
  const kind = kindOf(a);
  const other = kindOf(b);
  if (kind === undefined || other === undefined) return a === b && typeof a === "object" ? true : undefined;
  if (kind !== other) return false;
  switch (kind) {
    case "string":
      return a === b ? true : wellFormed(a as string) && wellFormed(b as string) ? false : undefined;
    case "number": {
      const [x, y] = [a as number, b as number];
      // A NaN's bits, and a zero's sign as an int32, are the encoding's to tell.
      if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
      if (x === 0 || y === 0) return Object.is(x, y) ? sameType() : undefined;
      return x === y ? sameType() : false;
    }
    case "boolean":
      return a === b;
    case "null":
      return true;
    case "date":
      return (a as Date).getTime() === (b as Date).getTime();
    case "objectId":
      return (a as ObjectIdLike).equals(b as ObjectIdLike);
    default:
      return compareEncoded(a as Container, b as Container);
  }
  function sameType() {
    return writtenType(a as number, numberTypeAt(ca, key)) === writtenType(b as number, numberTypeAt(cb, key));
  }
}

interface ObjectIdLike {
  equals(other: ObjectIdLike): boolean;
}

/** The names a container's members are written under (an array's holes included). */
const keysOf = (c: Container): string[] =>
  Array.isArray(c) ? Array.from({ length: c.length }, (_, i) => String(i)) : Object.keys(c);

function compareEncoded(a: Container, b: Container): boolean | undefined {
  if (kindOf(a) !== kindOf(b)) return undefined;
  const keysA = keysOf(a);
  const keysB = keysOf(b);
  const shared = Math.min(keysA.length, keysB.length);
  for (let i = 0; i < shared; i++) {
    const [ka, kb] = [keysA[i], keysB[i]];
    const va = (a as Document)[ka];
    const vb = (b as Document)[kb];
    if (ka !== kb) {
      // Both written at this place, under names that encode differently.
      return kindOf(va) && kindOf(vb) && wellFormed(ka) && wellFormed(kb) ? false : undefined;
    }
    if (!wellFormed(ka)) return undefined;
    const same = compareMember(a, b, ka, va, vb);
    if (same !== true) return same;
  }
  // The longer one writes one more member if any of its remaining values is written for sure.
  const [longer, keys] = keysA.length > shared ? [a, keysA] : [b, keysB];
  if (keys.length === shared) return true;
  return keys.slice(shared).some((k) => kindOf((longer as Document)[k]) !== undefined) ? false : undefined;
}
