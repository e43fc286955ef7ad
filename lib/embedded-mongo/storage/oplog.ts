/**
 * The oplog: every change of a document or collection, written in the same LMDB transaction as
 * the change itself. An entry's position is its write's cluster time and its place within the
 * write; a write's entries are stored together under its time (one LMDB write, however many
 * documents it changed), so change streams read them back in order, across restarts too. It
 * keeps the newest `oplogMaxEntries` entries no older than `oplogMaxAgeSeconds`, a write's
 * entries going together; a change stream resuming before that gets ChangeStreamHistoryLost, as
 * on MongoDB when its oplog rolled over.
 */
import { EJSON, ObjectId, Timestamp, type Document } from "bson";

export const DEFAULT_OPLOG_MAX_ENTRIES = 100_000;
export const DEFAULT_OPLOG_MAX_AGE_SECONDS = 24 * 60 * 60;

type OplogOp = "insert" | "update" | "replace" | "delete" | "drop" | "rename" | "dropDatabase";

export interface OplogEntry {
  op: OplogOp;
  db: string;
  coll?: string;
  /** `{ _id }` of the document. */
  key?: Document;
  /** The document after an insert or a replacement. */
  doc?: Document;
  /** What an update changed, in a change event's `updateDescription` shape. */
  update?: Document;
  /** Where a rename went. */
  to?: { db: string; coll: string };
  /** The transaction the change was committed by. */
  lsid?: Document;
  txnNumber?: unknown;
  wall: Date;
}

/** Where an entry sits: its write's cluster time and its place among that write's entries. */
export interface OplogPosition {
  time: Timestamp;
  index: number;
}

export type OplogKey = [number, number, number];

export function oplogKey({ time, index }: OplogPosition): OplogKey {
  return [time.high >>> 0, time.low >>> 0, index];
}

export function positionOf(key: OplogKey): OplogPosition {
  return { time: new Timestamp({ t: key[0], i: key[1] }), index: key[2] };
}

/**
 * How many entries a stored key holds: a write's entries are stored together under
 * `[seconds, increment, 0, n]`; a key of three parts (an older data directory) holds one, at the
 * index it names.
 */
export const entriesUnder = (key: readonly unknown[]): number => (typeof key[3] === "number" ? key[3] : 1);

/** The BSON documents of a stored value, one after another: each begins with its own size. */
export function* oplogEntries(value: Buffer): Generator<Buffer> {
  for (let at = 0; at < value.length;) {
    const size = value.readInt32LE(at);
    yield value.subarray(at, at + size);
    at += size;
  }
}

/** After every entry of its time (a high-water mark, or a resume point after a whole write). */
export const LAST_INDEX = 0xffffffff;

const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");

/**
 * A resume token, `{ _data: hex }`: the position and whether it is an invalidate event's (which
 * only `startAfter` may resume from). Hex digits sort as the positions do.
 */
export function resumeToken(position: OplogPosition, invalidate = false): Document {
  return {
    _data: `${hex(position.time.high)}${hex(position.time.low)}${hex(position.index)}${invalidate ? "1" : "0"}`,
  };
}

export function parseResumeToken(token: unknown): { position: OplogPosition; invalidate: boolean } | undefined {
  const data = (token as Document | null)?._data;
  if (typeof data !== "string" || !/^[0-9a-f]{25}$/.test(data)) return undefined;
  const n = (from: number) => Number.parseInt(data.slice(from, from + 8), 16);
  return { position: { time: new Timestamp({ t: n(0), i: n(8) }), index: n(16) }, invalidate: data[24] === "1" };
}

function isPlainObject(value: unknown): value is Document {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value as { _bsontype?: string })._bsontype &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    !(value instanceof Uint8Array)
  );
}

/**
 * Whether two values write the same canonical Extended JSON, when that is plain to see without
 * writing it; undefined when it is not (a BSON value, a document against a number...), and the
 * text decides. Strings, booleans and numbers (one canonical text each) and null (undefined is
 * written as null) are texts of distinct shapes; a date is its milliseconds, an ObjectId its
 * bytes; arrays and documents are the same when their fields are, in the same order, and differ
 * as soon as one does (each member is a whole JSON value, so the texts differ with it).
 */
function plainlySame(a: unknown, b: unknown): boolean | undefined {
  const kind = primitiveKind(a);
  if (kind !== undefined) {
    const other = primitiveKind(b);
    if (other === undefined) return undefined;
    if (kind !== other) return false;
    return kind === "null" || (kind === "number" ? Object.is(a, b) : a === b);
  }
  if (a instanceof Date && b instanceof Date) {
    const time = a.getTime();
    return Number.isNaN(time) || Number.isNaN(b.getTime()) ? undefined : time === b.getTime();
  }
  if (a instanceof ObjectId && b instanceof ObjectId) return a.equals(b);
  let known: boolean | undefined = true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return undefined;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const member = plainlySame(a[i], b[i]);
      if (member === false) return false;
      if (member === undefined) known = undefined;
    }
    return known;
  }
  if (!isRecord(a) || !isRecord(b)) return undefined;
  const keys = Object.keys(a);
  const others = Object.keys(b);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== others[i]) return false;
    const member = plainlySame(a[keys[i]], b[keys[i]]);
    if (member === false) return false;
    if (member === undefined) known = undefined;
  }
  return known;
}

function primitiveKind(value: unknown): "string" | "boolean" | "number" | "null" | undefined {
  if (value === null || value === undefined) return "null";
  const type = typeof value;
  return type === "string" || type === "boolean" || type === "number" ? type : undefined;
}

/** A document made of plain JavaScript objects (no BSON value, date, pattern or map). */
function isRecord(value: unknown): value is Document {
  if (!isPlainObject(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function same(a: unknown, b: unknown): boolean {
  const plain = plainlySame(a, b);
  if (plain !== undefined) return plain;
  return (
    EJSON.stringify({ v: a } as Document, { relaxed: false }) ===
    EJSON.stringify({ v: b } as Document, { relaxed: false })
  );
}

/** An update's `updateDescription`: the fields set (dotted paths), removed, and arrays cut short. */
export function updateDescription(before: Document, after: Document): Document {
  const updatedFields: Document = {};
  const removedFields: string[] = [];
  const truncatedArrays: Document[] = [];
  const walk = (a: Document, b: Document, prefix: string) => {
    for (const [field, value] of Object.entries(b)) {
      const path = prefix + field;
      if (!(field in a)) updatedFields[path] = value;
      else compare(a[field], value, path);
    }
    for (const field of Object.keys(a)) if (!(field in b)) removedFields.push(prefix + field);
  };
  const compare = (a: unknown, b: unknown, path: string) => {
    if (same(a, b)) return;
    if (isPlainObject(a) && isPlainObject(b)) walk(a, b, `${path}.`);
    else if (Array.isArray(a) && Array.isArray(b)) {
      if (b.length < a.length) truncatedArrays.push({ field: path, newSize: b.length });
      for (let i = 0; i < b.length; i++) {
        if (i >= a.length) updatedFields[`${path}.${i}`] = b[i];
        else compare(a[i], b[i], `${path}.${i}`);
      }
    } else updatedFields[path] = b;
  };
  walk(before, after, "");
  return { updatedFields, removedFields, truncatedArrays };
}
