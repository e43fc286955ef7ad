/** What the store's sections share: the catalog entry's type, its helpers, key and size limits, BSON records. */
import { BSON, EJSON, type Document } from "bson";
import { MongoCommandError } from "../../errors";
import { collatedCompareEqual, collatedProbes, parseCollation, type Collation } from "../../query/collation";
import { type IndexSpec } from "../index-spec";
import { valuesAtPath, type KeyPart, type KeyPrimitive } from "../keys";

export interface OplogLimits {
  maxEntries: number;
  maxAgeSeconds: number;
}

export interface CollectionMeta {
  db: string;
  name: string;
  uuid: string;
  options: Document;
  indexes: IndexSpec[];
  /** A capped collection's next insertion number (its natural order). */
  nextInsertion?: number;
}

/**
 * A capped collection keeps its documents in insertion order under two internal entries of the
 * index sub-database: `$natural` (insertion number, then id) and `$naturalById` (id, then
 * insertion number), so that its oldest documents can be found and any document removed.
 */
export const NATURAL = "$natural";
export const NATURAL_BY_ID = "$naturalById";

export function isCapped(meta: CollectionMeta): boolean {
  return meta.options.capped === true;
}

/** MongoDB's effective size of a capped collection: at least 4096 bytes, a multiple of 256. */
export function cappedBytes(meta: CollectionMeta): number {
  return Math.max(4096, Math.ceil(Number(meta.options.size) / 256) * 256);
}

export type Key = KeyPrimitive[];

export interface PreparedIndex {
  spec: IndexSpec;
  entries: Array<{ doc: Document; keys: Key[] }>;
}

export const EMPTY = Buffer.alloc(0);
// LMDB refuses keys over 1978 bytes; measured with room for ordered-binary's separators.
const MAX_KEY_BYTES = 1900;

function keyBytes(key: Key): number {
  let n = 0;
  for (const part of key) n += typeof part === "string" ? Buffer.byteLength(part) + 2 : 10;
  return n;
}

/** Refuses a document before anything is written when one of its keys cannot be stored. */
export function checkKeySizes(
  meta: CollectionMeta,
  entries: Array<{ index: IndexSpec; keys: Key[] }>,
  id: KeyPart,
): void {
  const fixed = keyBytes([meta.db, meta.name, ...id]);
  if (fixed > MAX_KEY_BYTES) throw new MongoCommandError("KeyTooLong", "_id is too large to be stored");
  for (const { index, keys } of entries) {
    for (const key of keys) {
      if (fixed + keyBytes([index.name, ...key]) > MAX_KEY_BYTES) {
        throw new MongoCommandError("KeyTooLong", `index key too large to store in index ${index.name}`);
      }
    }
  }
}

/** A catalog entry a transaction may change without touching the shared one. */
export function copyMeta(meta: CollectionMeta): CollectionMeta {
  // Assigned, not spread then extended: the slow literal of Node 20 (../../README.md#object-literals).
  return Object.assign({}, meta, {
    indexes: meta.indexes.map((index) =>
      Object.assign({}, index, { multikeyFields: [...(index.multikeyFields ?? [])] }),
    ),
  });
}

export function ns(db: string, name: string): string {
  return `${db}.${name}`;
}

/** Internal records (retryable-write replies): plain JavaScript values. */
export const deserializeOptions = { promoteLongs: true, promoteValues: true, promoteBuffers: false } as const;

/** MongoDB's largest document (16 MiB). */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * `entry` (BSON) with a field `doc` appended whose value is a document already encoded: an
 * embedded document is type 0x03, its name and NUL, then its bytes; the sizes are little-endian.
 */
export function withDocument(entry: Buffer, doc: Buffer): Buffer {
  const name = Buffer.from("doc\0");
  const size = entry.length + 1 + name.length + doc.length;
  const out = Buffer.allocUnsafe(size);
  entry.copy(out, 0, 0, entry.length - 1);
  let at = entry.length - 1;
  out[at++] = 0x03;
  at += name.copy(out, at);
  at += doc.copy(out, at);
  out[at] = 0;
  out.writeInt32LE(size, 0);
  return out;
}

export function serialize(doc: Document): Buffer {
  const bytes = BSON.serialize(doc);
  return checkedSize(doc, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** `bytes`, the stored form of `doc`, unless they are more than a document may hold. */
export function checkedSize<T extends Buffer | undefined>(doc: Document, bytes: T): T {
  if (bytes && bytes.byteLength > MAX_DOCUMENT_BYTES) {
    throw new MongoCommandError(
      "BSONObjectTooLarge",
      `BSONObj size: ${bytes.byteLength} (0x${bytes.byteLength.toString(16).toUpperCase()}) is invalid. Size must be between 0 and 16793600(16MB) First element: _id: ${EJSON.stringify({ v: doc._id } as Document).slice(5, -1)}`,
    );
  }
  return bytes;
}

export function hasPath(doc: Document, path: string): boolean {
  let cur: unknown = doc;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) return false;
    cur = (cur as Record<string, unknown>)[part];
  }
  return true;
}

/** Unique keys can be cut short for long values; compare the real values before refusing. */
export function sameIndexedValues(index: IndexSpec, a: Document, b: Document, collation?: Collation): boolean {
  if (collation) {
    return Object.keys(index.key).every((f) => {
      const bv = valuesAtPath(b, f).values;
      return valuesAtPath(a, f).values.some((x) => bv.some((y) => collatedCompareEqual(x, y, collation)));
    });
  }
  return Object.keys(index.key).every((f) => {
    const av = new Set(valuesAtPath(a, f).values.map((v) => EJSON.stringify({ v } as Document)));
    return valuesAtPath(b, f).values.some((v) => av.has(EJSON.stringify({ v } as Document)));
  });
}

export function validateCollectionName(name: string): void {
  if (!name || name.includes("$") || name.includes("\0") || name.startsWith(".") || name.startsWith("system.")) {
    throw new MongoCommandError("InvalidNamespace", `Invalid collection name: ${name}`);
  }
}

/** MongoDB's duplicate key error, with the exact message shape drivers and Mongoose parse. */
export function duplicateKey(meta: CollectionMeta, index: IndexSpec, doc: Document): MongoCommandError {
  const keyValue: Document = {};
  for (const field of Object.keys(index.key)) {
    const { values } = valuesAtPath(doc, field);
    keyValue[field] = values.length === 1 ? values[0] : values;
  }
  const shown = Object.entries(keyValue)
    .map(([k, v]) => `${k}: ${formatValue(v)}`)
    .join(", ");
  return new MongoCommandError(
    "DuplicateKey",
    `E11000 duplicate key error collection: ${meta.db}.${meta.name} index: ${index.name}${collationText(index)} dup key: { ${shown} }`,
    { keyPattern: index.key, keyValue },
  );
}

/** As MongoDB names an index's collation in a duplicate key message. */
function collationText(index: IndexSpec): string {
  if (!index.collation) return "";
  const fields = Object.entries(index.collation).map(
    ([k, v]) => `${k}: ${typeof v === "string" ? JSON.stringify(v) : String(v)}`,
  );
  return ` collation: { ${fields.join(", ")} }`;
}

function formatValue(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  const type = (v as { _bsontype?: string })._bsontype;
  if (type === "ObjectId") return `ObjectId('${String(v)}')`;
  if (typeof v === "object") return EJSON.stringify(v as Document, { relaxed: true });
  return String(v);
}

/** The collation of an index (undefined: simple). */
export function indexCollation(index: IndexSpec): Collation | undefined {
  return index.collation ? parseCollation(index.collation) : undefined;
}

/**
 * The unique check of a new index under a collation: entries are grouped by their key up to the
 * first collated part, and each is compared with the entries it may equal (see collatedProbes).
 */
export function checkUniqueCollated(
  meta: CollectionMeta,
  spec: IndexSpec,
  collation: Collation,
  entries: Array<{ doc: Document; keys: Key[] }>,
): void {
  const groups = new Map<string, Array<{ key: Key; doc: Document }>>();
  const groupOf = (key: Key): string => {
    const probe = collatedProbes(key)[0];
    return JSON.stringify(key.slice(0, probe.length + (probe.length % 2)));
  };
  const all: Array<{ key: Key; doc: Document }> = [];
  for (const { doc, keys } of entries) {
    for (const key of keys) {
      const g = groupOf(key);
      const list = groups.get(g) ?? [];
      list.push({ key, doc });
      groups.set(g, list);
      all.push({ key, doc });
    }
  }
  const startsWith = (key: Key, prefix: Key) => prefix.every((p, i) => key[i] === p);
  const seen = new Set<Document>();
  for (const { key, doc } of all) {
    const probes = collatedProbes(key);
    // Candidates: the groups of the probes that name a bucket; a whole type otherwise.
    const candidates = probes.flatMap((p) =>
      p.length % 2 === 0 ? (groups.get(JSON.stringify(p)) ?? []) : all.filter((e) => startsWith(e.key, p)),
    );
    for (const other of candidates) {
      if (other.doc !== doc && seen.has(other.doc) && sameIndexedValues(spec, other.doc, doc, collation))
        throw duplicateKey(meta, spec, doc);
    }
    seen.add(doc);
  }
}
