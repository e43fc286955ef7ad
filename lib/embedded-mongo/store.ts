/**
 * Durable storage on LMDB. Three sub-databases of one environment, written together in one
 * transaction per write command:
 *   docs  [db, collection, idRank, idValue]                        -> the document as BSON
 *   index [db, collection, indexName, ...keyParts, idRank, idValue] -> empty
 *   meta  [db, collection]                                         -> collection catalog entry
 * Every write method here must run inside `write()`. They validate before they change anything,
 * so a failed operation never leaves half of itself behind.
 */
import fs from "node:fs";
import { open, type Database, type RootDatabase } from "lmdb";
import { BSON, EJSON, UUID, type Document } from "bson";
import { Query } from "mingo";
import { decodeDocument } from "./bson-values";
import { MongoCommandError } from "./errors";
import { collatedCompareEqual, collatedEncoder, collatedProbes, parseCollation, type Collation } from "./collation";
import { HIGH, idKey, idText, indexKeys, parallelArrays, valuesAtPath, type KeyPart, type KeyPrimitive } from "./keys";
import { checkTextLanguage, isTextIndex } from "./text";
import { ID_INDEX, type IndexSpec } from "./index-spec";

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
const NATURAL = "$natural";
const NATURAL_BY_ID = "$naturalById";

export function isCapped(meta: CollectionMeta): boolean {
  return meta.options.capped === true;
}

/** MongoDB's effective size of a capped collection: at least 4096 bytes, a multiple of 256. */
function cappedBytes(meta: CollectionMeta): number {
  return Math.max(4096, Math.ceil(Number(meta.options.size) / 256) * 256);
}

type Key = KeyPrimitive[];

export interface PreparedIndex {
  spec: IndexSpec;
  entries: Array<{ doc: Document; keys: Key[] }>;
}


export class Store {
  private readonly catalog = new Map<string, CollectionMeta>();

  private constructor(
    private readonly env: RootDatabase,
    private readonly docs: Database<Buffer, Key>,
    private readonly index: Database<Buffer, Key>,
    private readonly meta: Database<CollectionMeta, Key>,
  ) {
    this.loadCatalog();
  }

  static open(dir: string): Store {
    fs.mkdirSync(dir, { recursive: true });
    // lmdb takes a path with an extension (`/tmp/tmp.AbC123`) for a file of its own unless told
    // that the path is a directory.
    const env = open({ path: dir, noSubdir: false, maxDbs: 8 });
    return new Store(
      env,
      env.openDB<Buffer, Key>("docs", { encoding: "binary" }),
      env.openDB<Buffer, Key>("index", { encoding: "binary" }),
      env.openDB<CollectionMeta, Key>("meta", {}),
    );
  }

  async close(): Promise<void> {
    await this.env.close();
  }

  /**
   * Runs `fn` in one write transaction; resolves once the transaction is durable on disk. `fn`
   * runs in a child transaction, because lmdb keeps the writes of a batched transaction whose
   * callback throws: the child is rolled back instead, so a command that fails half-way leaves
   * nothing of itself behind.
   */
  write<T>(fn: () => T): Promise<T> {
    return this.env.transaction(() => {
      try {
        return this.env.childTransaction(fn);
      } catch (err) {
        // The catalog in memory may hold changes the rollback undid on disk.
        this.loadCatalog();
        throw err;
      }
    }) as Promise<T>;
  }

  private loadCatalog(): void {
    this.catalog.clear();
    for (const { value } of this.meta.getRange({})) this.catalog.set(ns(value.db, value.name), value);
  }

  // ---- catalog ----

  collection(db: string, name: string): CollectionMeta | undefined {
    return this.catalog.get(ns(db, name));
  }

  collections(db: string): CollectionMeta[] {
    return [...this.catalog.values()].filter((c) => c.db === db);
  }

  databases(): string[] {
    return [...new Set([...this.catalog.values()].map((c) => c.db))];
  }

  ensureCollection(db: string, name: string, options: Document = {}): { meta: CollectionMeta; created: boolean } {
    const existing = this.collection(db, name);
    if (existing) return { meta: existing, created: false };
    validateCollectionName(name);
    // Under a default collation the `_id_` index has it too, as in MongoDB.
    const idIndex: IndexSpec = options.collation ? { ...ID_INDEX, collation: options.collation as Document } : { ...ID_INDEX };
    const meta: CollectionMeta = { db, name, uuid: new UUID().toHexString(), options, indexes: [idIndex] };
    this.saveMeta(meta);
    return { meta, created: true };
  }

  private saveMeta(meta: CollectionMeta): void {
    this.catalog.set(ns(meta.db, meta.name), meta);
    void this.meta.put([meta.db, meta.name], meta);
  }

  /** Replaces a collection's options and index specifications (collMod). */
  updateMeta(meta: CollectionMeta, options: Document, indexes: IndexSpec[]): void {
    meta.options = options;
    meta.indexes = indexes;
    this.saveMeta(meta);
  }

  dropCollection(meta: CollectionMeta): void {
    for (const key of this.docs.getKeys({ start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })) void this.docs.remove(key);
    for (const key of this.index.getKeys({ start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })) void this.index.remove(key);
    void this.meta.remove([meta.db, meta.name]);
    this.catalog.delete(ns(meta.db, meta.name));
  }

  renameCollection(meta: CollectionMeta, toDb: string, toName: string): void {
    const docs = [...this.scan(meta)];
    const indexes = meta.indexes;
    this.dropCollection(meta);
    const { meta: target } = this.ensureCollection(toDb, toName, meta.options);
    target.indexes = indexes.map((i) => ({ ...i, multikeyFields: [] }));
    this.saveMeta(target);
    for (const doc of docs) this.insert(target, doc);
  }

  // ---- reads ----

  get(meta: CollectionMeta, id: unknown): Document | undefined {
    return this.getByIdPart(meta, idKey(id));
  }

  getByIdPart(meta: CollectionMeta, id: KeyPart): Document | undefined {
    const buf = this.docs.get([meta.db, meta.name, ...id]);
    return buf ? decodeDocument(buf) : undefined;
  }

  /** Every document in natural order: `_id` order, or insertion order in a capped collection. */
  *scan(meta: CollectionMeta, reverse = false): Generator<Document> {
    if (isCapped(meta)) {
      for (const id of this.scanIndex(meta, NATURAL, [], [HIGH], reverse)) {
        const doc = this.getByIdPart(meta, id);
        if (doc) yield doc;
      }
      return;
    }
    const low = [meta.db, meta.name];
    const high = [meta.db, meta.name, HIGH];
    const range = reverse ? { start: high, end: low, reverse } : { start: low, end: high };
    for (const { value } of this.docs.getRange(range)) yield decodeDocument(value);
  }

  count(meta: CollectionMeta): number {
    return this.docs.getKeysCount({ start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] });
  }

  /** The `_id` key parts of the index entries between two key-part bounds, in index order. */
  *scanIndex(meta: CollectionMeta, indexName: string, start: Key, end: Key, reverse: boolean): Generator<KeyPart> {
    const prefix = [meta.db, meta.name, indexName];
    const low = [...prefix, ...start];
    const high = [...prefix, ...end];
    const range = reverse ? { start: high, end: low, reverse } : { start: low, end: high };
    for (const key of this.index.getKeys(range)) {
      const k = key as Key;
      yield [k[k.length - 2] as number, k[k.length - 1]];
    }
  }

  /** How many documents have entries between two key-part bounds (each counted once). */
  countIndex(meta: CollectionMeta, indexName: string, start: Key, end: Key, distinct: Set<string> | undefined): number {
    const prefix = [meta.db, meta.name, indexName];
    if (!distinct) return this.index.getKeysCount({ start: [...prefix, ...start], end: [...prefix, ...end] });
    const before = distinct.size;
    this.forEachIndexId(meta, indexName, start, end, (id) => distinct.add(id));
    return distinct.size - before;
  }

  /**
   * Calls `visit` with the document id of each entry between two key-part bounds, as a string
   * (`rank:value`) fit for a Set: counting walks that only compare ids, without a generator per
   * entry.
   */
  forEachIndexId(meta: CollectionMeta, indexName: string, start: Key, end: Key, visit: (id: string) => void): void {
    const prefix = [meta.db, meta.name, indexName];
    for (const key of this.index.getKeys({ start: [...prefix, ...start], end: [...prefix, ...end] })) {
      const k = key as Key;
      visit(idText(k[k.length - 2], k[k.length - 1]));
    }
  }

  // ---- writes (inside write()) ----

  insert(meta: CollectionMeta, doc: Document): void {
    const id = idKey(doc._id);
    if (this.docs.doesExist([meta.db, meta.name, ...id])) throw duplicateKey(meta, ID_INDEX, doc);
    const entries = this.indexEntries(meta, doc);
    checkKeySizes(meta, entries, id);
    this.checkUnique(meta, doc, entries);
    const bytes = serialize(doc);
    void this.docs.put([meta.db, meta.name, ...id], bytes);
    this.putEntries(meta, entries, id);
    if (isCapped(meta)) this.appendCapped(meta, id);
  }

  /** Records a capped collection's new document as the newest, then removes the oldest beyond its limits. */
  private appendCapped(meta: CollectionMeta, id: KeyPart): void {
    const n = meta.nextInsertion ?? 0;
    meta.nextInsertion = n + 1;
    this.saveMeta(meta);
    void this.index.put([meta.db, meta.name, NATURAL, n, ...id], EMPTY);
    void this.index.put([meta.db, meta.name, NATURAL_BY_ID, ...id, n], EMPTY);
    const max = Number(meta.options.max) > 0 ? Number(meta.options.max) : Infinity;
    let count = this.count(meta);
    let bytes = 0;
    for (const { value } of this.docs.getRange({ start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })) bytes += value.length;
    // The oldest go first, never the document just inserted; chosen before any is removed.
    const victims: Document[] = [];
    for (const oldest of this.scanIndex(meta, NATURAL, [], [HIGH], false)) {
      if ((count <= max && bytes <= cappedBytes(meta)) || JSON.stringify(oldest) === JSON.stringify(id)) break;
      const buf = this.docs.get([meta.db, meta.name, ...oldest]);
      if (!buf) continue;
      bytes -= buf.length;
      count -= 1;
      victims.push(decodeDocument(buf));
    }
    for (const doc of victims) this.remove(meta, doc);
  }

  replace(meta: CollectionMeta, before: Document, after: Document): void {
    const id = idKey(before._id);
    const bytes = serialize(after);
    const oldEntries = this.indexEntries(meta, before);
    const newEntries = this.indexEntries(meta, after);
    checkKeySizes(meta, newEntries, id);
    this.checkUnique(meta, after, newEntries);
    for (const { index, keys } of oldEntries) {
      for (const key of keys) void this.index.remove([meta.db, meta.name, index.name, ...key, ...id]);
    }
    void this.docs.put([meta.db, meta.name, ...id], bytes);
    this.putEntries(meta, newEntries, id);
  }

  remove(meta: CollectionMeta, doc: Document): void {
    const id = idKey(doc._id);
    for (const { index, keys } of this.indexEntries(meta, doc)) {
      for (const key of keys) void this.index.remove([meta.db, meta.name, index.name, ...key, ...id]);
    }
    void this.docs.remove([meta.db, meta.name, ...id]);
    if (isCapped(meta)) {
      for (const key of this.index.getKeys({ start: [meta.db, meta.name, NATURAL_BY_ID, ...id], end: [meta.db, meta.name, NATURAL_BY_ID, ...id, HIGH] })) {
        const n = (key as Key)[(key as Key).length - 1];
        void this.index.remove(key as Key);
        void this.index.remove([meta.db, meta.name, NATURAL, n, ...id]);
      }
    }
  }

  /**
   * Computes an index's entries over the existing documents, refusing duplicates of a unique one;
   * writes nothing, so several indexes can all be checked before any of them is built.
   */
  prepareIndex(meta: CollectionMeta, spec: IndexSpec): PreparedIndex {
    const entries: Array<{ doc: Document; keys: Key[] }> = [];
    const multikeyFields = new Set<string>();
    for (const doc of this.scan(meta)) {
      const keyed = this.keysFor(spec, doc);
      if (!keyed) continue;
      for (const f of keyed.multikeyFields) multikeyFields.add(f);
      entries.push({ doc, keys: keyed.keys });
    }
    const collation = indexCollation(spec);
    if (spec.unique && collation) checkUniqueCollated(meta, spec, collation, entries);
    else if (spec.unique) {
      const seen = new Map<string, Document>();
      for (const { doc, keys } of entries) {
        for (const key of keys) {
          const sig = JSON.stringify(key);
          const other = seen.get(sig);
          if (other && sameIndexedValues(spec, other, doc)) throw duplicateKey(meta, spec, doc);
          seen.set(sig, doc);
        }
      }
    }
    return { spec: { ...spec, multikeyFields: [...multikeyFields] }, entries };
  }

  buildIndex(meta: CollectionMeta, prepared: PreparedIndex): void {
    meta.indexes.push(prepared.spec);
    for (const { doc, keys } of prepared.entries) {
      const id = idKey(doc._id);
      for (const key of keys) void this.index.put([meta.db, meta.name, prepared.spec.name, ...key, ...id], EMPTY);
    }
    this.saveMeta(meta);
  }

  createIndex(meta: CollectionMeta, spec: IndexSpec): void {
    this.buildIndex(meta, this.prepareIndex(meta, spec));
  }

  dropIndex(meta: CollectionMeta, name: string): void {
    const prefix = [meta.db, meta.name, name];
    for (const key of this.index.getKeys({ start: prefix, end: [...prefix, HIGH] })) void this.index.remove(key);
    meta.indexes = meta.indexes.filter((i) => i.name !== name);
    this.saveMeta(meta);
  }

  private keysFor(index: IndexSpec, doc: Document): { keys: Key[]; multikeyFields: string[] } | undefined {
    // A text index keeps no entries ($text reads and scores the documents); it only checks languages.
    if (isTextIndex(index)) {
      checkTextLanguage(index, doc);
      return undefined;
    }
    const fields = Object.keys(index.key);
    if (index.sparse && fields.every((f) => valuesAtPath(doc, f).values.every((v) => v === null || v === undefined) && !hasPath(doc, f))) return undefined;
    if (index.partialFilterExpression && !new Query(index.partialFilterExpression).test(doc)) return undefined;
    const parallel = fields.length > 1 ? parallelArrays(doc, fields) : undefined;
    if (parallel) throw new MongoCommandError("CannotIndexParallelArrays", `cannot index parallel arrays [${parallel[1]}] [${parallel[0]}]`);
    const collation = indexCollation(index);
    const { keys, multikeyFields } = indexKeys(doc, fields, collation ? collatedEncoder(collation) : undefined);
    const hashedArray = multikeyFields.find((f) => index.key[f] === "hashed");
    if (hashedArray) throw new MongoCommandError("Location16766", "Error: hashed indexes do not currently support array values");
    return { keys: keys.map((k) => k.parts), multikeyFields };
  }

  private indexEntries(meta: CollectionMeta, doc: Document): Array<{ index: IndexSpec; keys: Key[]; multikeyFields: string[] }> {
    const out: Array<{ index: IndexSpec; keys: Key[]; multikeyFields: string[] }> = [];
    for (const index of meta.indexes) {
      // The `_id_` index has entries of its own only under a collation (the documents are stored
      // by their exact `_id`, which cannot tell `"A"` from `"a"` under strength 2).
      if (index.name === ID_INDEX.name && !index.collation) continue;
      const keyed = this.keysFor(index, doc);
      if (keyed) out.push({ index, ...keyed });
    }
    return out;
  }

  private checkUnique(meta: CollectionMeta, doc: Document, entries: Array<{ index: IndexSpec; keys: Key[] }>): void {
    const id = JSON.stringify(idKey(doc._id));
    for (const { index, keys } of entries) {
      if (!index.unique && index.name !== ID_INDEX.name) continue;
      const collation = indexCollation(index);
      for (const key of keys) {
        for (const probe of collation ? collatedProbes(key) : [key]) {
          for (const other of this.scanIndex(meta, index.name, probe, [...probe, HIGH], false)) {
            if (JSON.stringify(other) === id) continue;
            const otherDoc = this.getByIdPart(meta, other);
            if (otherDoc && sameIndexedValues(index, otherDoc, doc, collation)) throw duplicateKey(meta, index, doc);
          }
        }
      }
    }
  }

  private putEntries(meta: CollectionMeta, entries: Array<{ index: IndexSpec; keys: Key[]; multikeyFields: string[] }>, id: KeyPart): void {
    for (const { index, keys, multikeyFields } of entries) {
      const known = index.multikeyFields ?? [];
      const added = multikeyFields.filter((f) => !known.includes(f));
      if (added.length) {
        index.multikeyFields = [...known, ...added];
        this.saveMeta(meta);
      }
      for (const key of keys) void this.index.put([meta.db, meta.name, index.name, ...key, ...id], EMPTY);
    }
  }
}

const EMPTY = Buffer.alloc(0);
// LMDB refuses keys over 1978 bytes; measured with room for ordered-binary's separators.
const MAX_KEY_BYTES = 1900;

function keyBytes(key: Key): number {
  let n = 0;
  for (const part of key) n += typeof part === "string" ? Buffer.byteLength(part) + 2 : 10;
  return n;
}

/** Refuses a document before anything is written when one of its keys cannot be stored. */
function checkKeySizes(meta: CollectionMeta, entries: Array<{ index: IndexSpec; keys: Key[] }>, id: KeyPart): void {
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

export function ns(db: string, name: string): string {
  return `${db}.${name}`;
}

/** MongoDB's largest document (16 MiB). */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

function serialize(doc: Document): Buffer {
  const bytes = BSON.serialize(doc);
  if (bytes.byteLength > MAX_DOCUMENT_BYTES) {
    throw new MongoCommandError("BSONObjectTooLarge", `BSONObj size: ${bytes.byteLength} (0x${bytes.byteLength.toString(16).toUpperCase()}) is invalid. Size must be between 0 and 16793600(16MB) First element: _id: ${EJSON.stringify({ v: doc._id } as Document).slice(5, -1)}`);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function hasPath(doc: Document, path: string): boolean {
  let cur: unknown = doc;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !(part in (cur as object))) return false;
    cur = (cur as Record<string, unknown>)[part];
  }
  return true;
}

/** Unique keys can be cut short for long values; compare the real values before refusing. */
function sameIndexedValues(index: IndexSpec, a: Document, b: Document, collation?: Collation): boolean {
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
  const fields = Object.entries(index.collation).map(([k, v]) => `${k}: ${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
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
function checkUniqueCollated(meta: CollectionMeta, spec: IndexSpec, collation: Collation, entries: Array<{ doc: Document; keys: Key[] }>): void {
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
    const candidates = probes.flatMap((p) => (p.length % 2 === 0 ? (groups.get(JSON.stringify(p)) ?? []) : all.filter((e) => startsWith(e.key, p))));
    for (const other of candidates) {
      if (other.doc !== doc && seen.has(other.doc) && sameIndexedValues(spec, other.doc, doc, collation)) throw duplicateKey(meta, spec, doc);
    }
    seen.add(doc);
  }
}
