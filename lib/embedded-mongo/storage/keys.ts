/**
 * Orderable keys for LMDB. Every BSON value becomes two key elements, `[rank, primitive]`, where
 * rank follows MongoDB's cross-type comparison order (MinKey < null < numbers < strings < objects
 * < arrays < binary < ObjectId < booleans < dates < timestamps < regexes < MaxKey) and the
 * primitive orders values within a type under lmdb's ordered-binary encoding. Long strings are cut
 * so keys stay under LMDB's key size limit; such a key is marked inexact and every candidate a key
 * finds is checked again against the real document.
 */
import { EJSON, type Document } from "bson";
import { MongoCommandError } from "../errors";
import { StoredRegExp } from "./bson-values";

export type KeyPrimitive = string | number;
export type KeyPart = [number, KeyPrimitive];

/** A document id (the last two parts of every index key) as a string, for sets of ids seen. */
export const idText = (rank: KeyPrimitive, value: KeyPrimitive): string => `${rank}:${String(value)}`;

export const Rank = {
  MinKey: 1,
  Null: 2,
  NaN: 2.5,
  Number: 3,
  String: 4,
  Object: 5,
  Array: 6,
  Binary: 7,
  ObjectId: 8,
  Boolean: 9,
  Date: 10,
  Timestamp: 11,
  RegExp: 12,
  MaxKey: 13,
} as const;

/** A string greater than every rank number: marks "after everything with this prefix". */
export const HIGH = "\uffff\uffff";
export const MAX_STRING_KEY = 200;

/**
 * The first part of an index's second list of entries: the entries whose number key a stored
 * value shares with a different number (see {@link sharesNumberKey}), repeated after every
 * bound's `HIGH` so no walk of the index meets them. A count from index entries reads the
 * documents of those in its bounds, and only those (README "Query planning").
 */
export const SHARED_NUMBERS = `${HIGH}#`;

/**
 * Whether a value's index key is a number that does not vouch for it: a Decimal128 or an int64
 * past 2^53 (a `Long`; a smaller one is held as a number) is keyed by its nearest double, which
 * other numbers share, while a filter compares the value itself.
 */
export function sharesNumberKey(value: unknown): boolean {
  if (typeof value === "bigint") return true;
  const type = bsonType(value);
  if (type === "Long") return !Number.isSafeInteger(Number((value as { valueOf(): unknown }).valueOf()));
  return type === "Decimal128" && encodeValue(value).part[0] === Rank.Number;
}

export function bsonType(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  return (value as { _bsontype?: string })._bsontype;
}

/** Plain sub-documents (not BSON value classes, dates, regexes or buffers). */
/** A document's own field: never a property every object inherits (`constructor`, `toString` ...). */
export function ownField(doc: object, key: string): unknown {
  return Object.hasOwn(doc, key) ? (doc as Record<string, unknown>)[key] : undefined;
}

export function isPlainObject(value: unknown): value is Document {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (value instanceof Date || value instanceof RegExp || Buffer.isBuffer(value) || ArrayBuffer.isView(value))
    return false;
  return bsonType(value) === undefined;
}

export function encodeValue(value: unknown, limit = MAX_STRING_KEY): { part: KeyPart; exact: boolean } {
  if (value === undefined || value === null) return { part: [Rank.Null, 0], exact: true };
  switch (typeof value) {
    case "number":
      return Number.isNaN(value) ? { part: [Rank.NaN, 0], exact: true } : { part: [Rank.Number, value], exact: true };
    case "bigint":
      return { part: [Rank.Number, Number(value)], exact: false };
    case "string":
      return value.length > limit
        ? { part: [Rank.String, value.slice(0, limit)], exact: false }
        : { part: [Rank.String, value], exact: true };
    case "boolean":
      return { part: [Rank.Boolean, value ? 1 : 0], exact: true };
  }
  if (value instanceof Date) return { part: [Rank.Date, value.getTime() || 0], exact: true };
  if (value instanceof RegExp) {
    // A regex with options JavaScript has no flag for (`x`, `u`, `l`; `s` was once read as `g`)
    // is keyed by its BSON pattern and options; the others keep the key they were indexed under.
    if (value instanceof StoredRegExp && /[^im]/.test(value.options))
      return { part: [Rank.RegExp, `${value.pattern}/${value.options}`], exact: true };
    return { part: [Rank.RegExp, `${value.source}/${value.flags}`], exact: true };
  }
  if (Array.isArray(value)) return truncated(Rank.Array, EJSON.stringify(value as Document[]), limit);
  const v = value as Record<string, unknown> & { toString(radix?: number): string };
  switch (bsonType(value)) {
    case "ObjectId":
    case "ObjectID":
      return { part: [Rank.ObjectId, v.toString()], exact: true };
    case "Long":
    case "Int32":
    case "Double":
      return { part: [Rank.Number, Number(v.valueOf())], exact: true };
    case "Decimal128": {
      const text = v.toString();
      const n = Number.parseFloat(text);
      if (Number.isNaN(n)) return { part: [Rank.NaN, 0], exact: true };
      // Up to 15 significant digits a decimal has one double of its own, so the key is exact
      // (and a Decimal128 can be an `_id`); beyond, candidates are checked against the value.
      const digits = text
        .replace(/[eE].*$/, "")
        .replace(/[^0-9]/g, "")
        .replace(/^0+/, "");
      return { part: [Rank.Number, n], exact: digits.replace(/0+$/, "").length <= 15 };
    }
    case "Binary":
      return truncated(Rank.Binary, (v as unknown as { toString(e: string): string }).toString("base64"), limit);
    case "Timestamp":
      return {
        part: [
          Rank.Timestamp,
          Number((v as unknown as { t: number }).t) * 2 ** 32 + Number((v as unknown as { i: number }).i),
        ],
        exact: true,
      };
    case "BSONRegExp":
      return { part: [Rank.RegExp, `${v.pattern}/${v.options}`], exact: true };
    case "MinKey":
      return { part: [Rank.MinKey, 0], exact: true };
    case "MaxKey":
      return { part: [Rank.MaxKey, 0], exact: true };
    case "BSONSymbol":
      return { part: [Rank.String, String(v.value)], exact: true };
  }
  return truncated(Rank.Object, EJSON.stringify(value as Document), limit);
}

function truncated(rank: number, text: string, limit: number): { part: KeyPart; exact: boolean } {
  return text.length > limit
    ? { part: [rank, text.slice(0, limit)], exact: false }
    : { part: [rank, text], exact: true };
}

/**
 * The values at a dotted path, descending through arrays as MongoDB does. `multikey` reports
 * whether an array was crossed or reached (one document then yields several index keys).
 */
export function valuesAtPath(doc: unknown, path: string): { values: unknown[]; multikey: boolean } {
  const out: unknown[] = [];
  const state = { multikey: false };
  collect(doc, path.split("."), 0, out, state);
  const values = out.map((v) => (v === MISSING ? null : v));
  return { values: values.length ? values : [null], multikey: state.multikey };
}

/** The values present at a path (a missing field yields nothing; an explicit null stays). */
export function presentValuesAtPath(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  collect(doc, path.split("."), 0, out, { multikey: false });
  return out.filter((v) => v !== MISSING && v !== undefined);
}

const MISSING = Symbol("missing");

function collect(value: unknown, parts: string[], i: number, out: unknown[], state: { multikey: boolean }): void {
  if (i === parts.length) {
    if (Array.isArray(value)) {
      state.multikey = true;
      if (value.length === 0) out.push(undefined);
      else out.push(...value);
    } else {
      out.push(value === undefined ? MISSING : value);
    }
    return;
  }
  const part = parts[i];
  if (Array.isArray(value)) {
    state.multikey = true;
    if (/^\d+$/.test(part) && Number(part) < value.length) collect(value[Number(part)], parts, i + 1, out, state);
    for (const el of value) if (isPlainObject(el)) collect(ownField(el, part), parts, i + 1, out, state);
    return;
  }
  if (isPlainObject(value)) {
    collect(ownField(value, part), parts, i + 1, out, state);
    return;
  }
  out.push(MISSING);
}

/** The paths (prefixes of `path`) at which the document holds an array, walking as `valuesAtPath`. */
function arrayPathsAtPath(doc: unknown, path: string): Set<string> {
  const found = new Set<string>();
  walkArrays(doc, path.split("."), 0, found);
  return found;
}

// Module-level rather than a closure per call: index keys are computed for every write (docs/architecture.md#the-embedded-database).
function walkArrays(value: unknown, parts: string[], i: number, found: Set<string>): void {
  if (Array.isArray(value)) {
    found.add(parts.slice(0, i).join("."));
    if (i === parts.length) return;
    const part = parts[i];
    if (/^\d+$/.test(part) && Number(part) < value.length) walkArrays(value[Number(part)], parts, i + 1, found);
    for (const el of value) if (isPlainObject(el)) walkArrays(ownField(el, part), parts, i + 1, found);
    return;
  }
  if (i < parts.length && isPlainObject(value)) walkArrays(ownField(value, parts[i]), parts, i + 1, found);
}

/**
 * MongoDB's parallel arrays: two indexed paths each reaching an array the other does not (such as
 * `a` and `b`, or `a.x` and `a.z` both arrays inside the array `a`). Paths through one same array
 * (`companies.companyId` and `companies.isActive`) are not parallel. Returns the two fields.
 */
export function parallelArrays(doc: Document, fields: string[]): [string, string] | undefined {
  const paths = fields.map((f) => arrayPathsAtPath(doc, f));
  // Two fields must each reach an array: most documents reach none or one.
  if (paths.filter((found) => found.size > 0).length < 2) return undefined;
  for (let i = 0; i < fields.length; i++) {
    for (let j = i + 1; j < fields.length; j++) {
      if (hasOwnPath(paths[i], paths[j]) && hasOwnPath(paths[j], paths[i])) return [fields[i], fields[j]];
    }
  }
  return undefined;
}

const hasOwnPath = (a: Set<string>, b: Set<string>): boolean => [...a].some((p) => !b.has(p));

export interface IndexKey {
  parts: KeyPrimitive[];
  exact: boolean;
  /** A number key a value of the entry shares with other numbers ({@link sharesNumberKey}). */
  shared: boolean;
}

/**
 * The index keys of one document under a key pattern (one per array element for multikey), and
 * which of the fields reached an array in this document.
 */
export function indexKeys(
  doc: Document,
  fields: string[],
  encode: (value: unknown) => { part: KeyPart; exact: boolean } = encodeDefault,
): { keys: IndexKey[]; multikeyFields: string[] } {
  let combos: IndexKey[] = [{ parts: [], exact: true, shared: false }];
  const multikeyFields: string[] = [];
  for (const field of fields) {
    const { values, multikey } = valuesAtPath(doc, field);
    if (multikey) multikeyFields.push(field);
    const encoded = dedupe(values.map((v) => ({ ...encode(v), shared: sharesNumberKey(v) })));
    const next: IndexKey[] = [];
    for (const combo of combos) {
      for (const e of encoded)
        next.push({
          parts: [...combo.parts, ...e.part],
          exact: combo.exact && e.exact,
          shared: combo.shared || e.shared,
        });
    }
    combos = next;
  }
  return { keys: combos, multikeyFields };
}

const encodeDefault = (value: unknown) => encodeValue(value);

type Encoded = { part: KeyPart; exact: boolean; shared: boolean };

function dedupe(values: Encoded[]): Encoded[] {
  if (values.length < 2) return values;
  const seen = new Map<string, Encoded>();
  for (const v of values) {
    const text = `${v.part[0]}:${String(v.part[1])}`;
    // One entry for values sharing a key: it vouches for the document when one of them is its key.
    const other = seen.get(text);
    seen.set(text, other ? { ...v, shared: other.shared && v.shared } : v);
  }
  return [...seen.values()];
}

const MAX_ID_KEY = 800;

/** The key of a document's `_id`: never cut, since it names exactly one document. */
export function idKey(id: unknown): KeyPart {
  const { part, exact } = encodeValue(id, MAX_ID_KEY);
  if (!exact) throw new MongoCommandError("KeyTooLong", `_id is too long to store (over ${MAX_ID_KEY} characters)`);
  return part;
}

/** Orders two strings as MongoDB does (see {@link compareValues}); the default is by UTF-8 bytes. */
export type StringOrder = (a: string, b: string) => number;

/**
 * MongoDB's comparison of two values (BSON order, the one of sorts and of the query operators):
 * by type order first, then within the type. Documents compare field by field in order (each
 * field by its value's type, then its name, then its value), then by number of fields; arrays
 * element by element, then by length. `strings` orders strings, also inside documents and arrays
 * (a collation's comparator).
 */
export function compareValues(a: unknown, b: unknown, strings: StringOrder = compareUtf8): number {
  const pa = partOf(a);
  const pb = partOf(b);
  if (pa[0] !== pb[0]) return pa[0] < pb[0] ? -1 : 1;
  return compareParts(a, b, pa, pb, strings);
}

const OBJECT_PART: KeyPart = [Rank.Object, ""];
const ARRAY_PART: KeyPart = [Rank.Array, ""];

/** A value's type order and (below documents and arrays, which are compared as they are) its primitive. */
function partOf(value: unknown): KeyPart {
  if (Array.isArray(value)) return ARRAY_PART;
  if (isPlainObject(value)) return OBJECT_PART;
  return encodeValue(value, Infinity).part;
}

/** Two values of the same type order, with their parts from {@link partOf}. */
function compareParts(a: unknown, b: unknown, pa: KeyPart, pb: KeyPart, strings: StringOrder): number {
  const rank = pa[0];
  if (rank === Rank.Object) return compareDocuments(a as Document, b as Document, strings);
  if (rank === Rank.Array) return compareArrays(a as unknown[], b as unknown[], strings);
  if (rank === Rank.Binary) return compareBinary(a, b);
  if (pa[1] === pb[1]) return 0;
  if (typeof pa[1] === "string" && typeof pb[1] === "string")
    return rank === Rank.String ? Math.sign(strings(pa[1], pb[1])) : compareUtf8(pa[1], pb[1]);
  return pa[1] < pb[1] ? -1 : 1;
}

function compareDocuments(a: Document, b: Document, strings: StringOrder): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const va = a[ka[i]];
    const vb = b[kb[i]];
    const pa = partOf(va);
    const pb = partOf(vb);
    // NaN is a number: its field's name comes before its place among the numbers.
    const ta = pa[0] === Rank.NaN ? Rank.Number : pa[0];
    const tb = pb[0] === Rank.NaN ? Rank.Number : pb[0];
    if (ta !== tb) return ta < tb ? -1 : 1;
    if (ka[i] !== kb[i]) return compareUtf8(ka[i], kb[i]);
    const c = pa[0] === pb[0] ? compareParts(va, vb, pa, pb, strings) : pa[0] < pb[0] ? -1 : 1;
    if (c !== 0) return c;
  }
  return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
}

function compareArrays(a: unknown[], b: unknown[], strings: StringOrder): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i], strings);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * Two strings in the order of their UTF-8 bytes (MongoDB's order of strings and field names):
 * UTF-16 code units order the same way except that a surrogate (a character beyond U+FFFF) must
 * come after every other unit.
 */
function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && x <= 0xdfff) x += 0x10000;
    if (y >= 0xd800 && y <= 0xdfff) y += 0x10000;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

/** MongoDB orders binary data by length, then subtype, then bytes. */
function compareBinary(a: unknown, b: unknown): number {
  const parts = (v: unknown): [Uint8Array, number] =>
    bsonType(v) === "Binary"
      ? [(v as { buffer: Uint8Array }).buffer, (v as { sub_type: number }).sub_type]
      : [v as Uint8Array, 0];
  const [da, ta] = parts(a);
  const [db, tb] = parts(b);
  if (da.length !== db.length) return da.length < db.length ? -1 : 1;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return Buffer.compare(da, db);
}
