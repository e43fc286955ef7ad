/**
 * Durable storage on LMDB. Sub-databases of one environment, written together in one
 * transaction per write command:
 *   docs     [db, collection, idRank, idValue]                        -> the document as BSON
 *   index    [db, collection, indexName, ...keyParts, idRank, idValue] -> empty
 *   meta     [db, collection]                                         -> collection catalog entry
 *   sessions [sessionId]                                              -> its last retryable write and reply
 *   oplog    [seconds, increment, 0, n]                               -> the n changes of one write (oplog.ts)
 * Every write method here must run inside `write()`. They validate before they change anything,
 * so a failed operation never leaves half of itself behind.
 */
import fs from "node:fs";
import { open, type Database, type RootDatabase } from "lmdb";
import { BSON, EJSON, Timestamp, UUID, type Document } from "bson";
import { Query } from "mingo";
import { decodeDocument, decodeIdKey, idKeyOf, receivedBytes } from "./bson-values";
import { ClusterClock } from "./clock";
import { MongoCommandError } from "./errors";
import { collatedCompareEqual, collatedEncoder, collatedProbes, parseCollation, type Collation } from "./collation";
import { ConflictTracker } from "./conflicts";
import { LmdbKv, type Databases, type Kv } from "./kv";
import {
  DEFAULT_OPLOG_MAX_AGE_SECONDS,
  DEFAULT_OPLOG_MAX_ENTRIES,
  entriesUnder,
  oplogEntries,
  oplogKey,
  positionOf,
  updateDescription,
  type OplogEntry,
  type OplogKey,
  type OplogPosition,
} from "./oplog";
import { HIGH, idKey, idText, indexKeys, parallelArrays, valuesAtPath, type KeyPart, type KeyPrimitive } from "./keys";
import { checkTextLanguage, isTextIndex } from "./text";
import { ID_INDEX, type IndexSpec } from "./index-spec";

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
const NATURAL = "$natural";
const NATURAL_BY_ID = "$naturalById";

export function isCapped(meta: CollectionMeta): boolean {
  return meta.options.capped === true;
}

/** MongoDB's effective size of a capped collection: at least 4096 bytes, a multiple of 256. */
function cappedBytes(meta: CollectionMeta): number {
  return Math.max(4096, Math.ceil(Number(meta.options.size) / 256) * 256);
}

export type Key = KeyPrimitive[];

export interface PreparedIndex {
  spec: IndexSpec;
  entries: Array<{ doc: Document; keys: Key[] }>;
}

export class Store {
  private catalog = new Map<string, CollectionMeta>();
  /** The replica set's cluster time (see clock.ts). */
  readonly clock = new ClusterClock();
  /** Who wrote which document lately, so transactions detect write conflicts (see transactions.ts). */
  readonly conflicts = new ConflictTracker();
  /** The document each stored byte string of an update was made from, while it lives: a commit need not decode what its transaction encoded. */
  private readonly written = new WeakMap<Buffer, Document>();
  /** Every read and write of the sub-databases goes through this; a transaction's view puts its own in. */
  private kv: Kv;

  private constructor(
    private readonly env: RootDatabase,
    docs: Database<Buffer, Key>,
    index: Database<Buffer, Key>,
    meta: Database<CollectionMeta, Key>,
    sessions: Database<Buffer, Key>,
    oplog: Database<Buffer, Key>,
    private readonly oplogLimits: OplogLimits,
  ) {
    this.kv = new LmdbKv({ docs, index, meta, sessions, oplog } as Databases, undefined, (key) => this.conflicts.plainWrite(key));
    this.loadCatalog();
    for (const key of this.kv.keys("oplog", {})) this.oplogState.count += entriesUnder(key);
    const newest = this.oplogEdge(true);
    if (newest) this.clock.advanceTo(newest.time);
    this.committedTime = this.clock.now();
  }

  // ---- oplog ----

  /** The write under way: its time and how many entries it logged; shared by every view. */
  private readonly oplogState: { time: Timestamp; index: number; count: number; quiet: number; txn?: Document; pending: Buffer[] } = {
    time: new Timestamp({ t: 0, i: 0 }),
    index: 0,
    count: 0,
    quiet: 0,
    pending: [],
  };
  /** False in a transaction's view: its commit logs what it applies. */
  private logging = true;
  /** The time of the newest committed write: every entry up to it can be read. */
  committedTime: Timestamp;
  private readonly oplogWaiters = new Set<() => void>();

  /** Inside `write()`: records a change for change streams; `doc` may come as the bytes already stored. */
  log(entry: Omit<OplogEntry, "wall">, doc?: Buffer): void {
    if (!this.logging || this.oplogState.quiet > 0) return;
    const state = this.oplogState;
    const bytes = serialize({ ...entry, ...state.txn, wall: new Date(state.time.high * 1000) });
    state.pending.push(doc ? withDocument(bytes, doc) : bytes);
    state.index += 1;
  }

  /**
   * Stores the entries a write logged as one value under the write's time: one LMDB write per
   * command or commit, however many documents it changed, and one delete when it is trimmed.
   */
  private flushOplog(): void {
    const state = this.oplogState;
    if (state.pending.length === 0) return;
    const [seconds, increment] = oplogKey({ time: state.time, index: 0 });
    this.kv.put("oplog", [seconds, increment, 0, state.pending.length], Buffer.concat(state.pending));
    state.count += state.pending.length;
    state.pending = [];
  }

  /** The oldest (or newest) entry's position. */
  oplogEdge(newest = false): OplogPosition | undefined {
    for (const key of this.kv.keys("oplog", { reverse: newest })) {
      const [seconds, increment, first] = key as number[];
      return positionOf([seconds, increment, newest ? first + entriesUnder(key) - 1 : first]);
    }
    return undefined;
  }

  /** The entries after `key` (excluded) in order, with their positions; only those are decoded. */
  *oplogAfter(key: OplogKey): Generator<{ position: OplogPosition; entry: OplogEntry }> {
    for (const { key: k, value } of this.kv.range("oplog", { start: [key[0], key[1]] })) {
      const [seconds, increment, first] = k as number[];
      const sameWrite = seconds === key[0] && increment === key[1];
      let index = first;
      for (const bytes of oplogEntries(value as Buffer)) {
        if (!sameWrite || index > key[2]) yield { position: positionOf([seconds, increment, index]), entry: decodeDocument(bytes) as OplogEntry };
        index += 1;
      }
    }
  }

  /** Resolves at the next commit that logged something, after `ms`, or when `signal` aborts. */
  oplogChanged(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.oplogWaiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.oplogWaiters.add(done);
      signal.addEventListener("abort", done);
      if (signal.aborted) done();
    });
  }

  /**
   * Drops the oldest writes' entries while there are more than the count limit, or they are older
   * than the age limit: a write's entries go together, and never those of the write under way.
   */
  private trimOplog(): void {
    const state = this.oplogState;
    const cutoff = Math.floor(Date.now() / 1000) - this.oplogLimits.maxAgeSeconds;
    const [seconds, increment] = oplogKey({ time: state.time, index: 0 });
    const doomed: Key[] = [];
    let left = state.count;
    for (const key of this.kv.keys("oplog", {})) {
      if (key[0] === seconds && key[1] === increment) break;
      if (left <= this.oplogLimits.maxEntries && (key[0] as number) >= cutoff) break;
      doomed.push(key);
      left -= entriesUnder(key);
    }
    for (const key of doomed) this.kv.remove("oplog", key);
    state.count = left;
  }

  /** Inside `write()`: the changes `fn` logs come from this transaction (`lsid`, `txnNumber`). */
  asTransaction<T>(txn: Document, fn: () => T): T {
    this.oplogState.txn = txn;
    try {
      return fn();
    } finally {
      this.oplogState.txn = undefined;
    }
  }

  /** Runs `fn` without logging (a rename moves documents, it neither inserts nor deletes them). */
  private quietly(fn: () => void): void {
    this.oplogState.quiet += 1;
    try {
      fn();
    } finally {
      this.oplogState.quiet -= 1;
    }
  }

  /**
   * A view of this store for a multi-document transaction: it reads `kv` (a snapshot with the
   * transaction's own writes over it) and writes into it; `commitWrite` replaces `write()`.
   */
  forTransaction(kv: Kv, commitWrite: <T>(fn: () => T) => Promise<T>): Store {
    const view = Object.create(this) as Store;
    view.kv = kv;
    view.logging = false;
    view.catalog = new Map([...this.catalog].map(([name, meta]) => [name, copyMeta(meta)]));
    view.write = commitWrite;
    return view;
  }

  /** The same store whose `write()` runs `around` around each write (retryable-write records). */
  withWriteHook(around: <T>(fn: () => T) => () => T): Store {
    const view = Object.create(this) as Store;
    view.write = (fn) => this.write(around(fn));
    return view;
  }

  /** A read snapshot of the data as of now, and the write sequence number it includes. */
  snapshot(): { kv: LmdbKv; seq: number; done: () => void } {
    const seq = this.conflicts.committedSeq;
    const transaction = this.env.useReadTransaction();
    const base = this.kv as LmdbKv;
    return { kv: base.at(transaction), seq, done: () => transaction.done() };
  }

  /** The collection catalog as it stands, by namespace (a transaction compares it at commit). */
  catalogEntries(): ReadonlyMap<string, CollectionMeta> {
    return this.catalog;
  }


  static open(dir: string, limits: Partial<OplogLimits> = {}): Store {
    fs.mkdirSync(dir, { recursive: true });
    // lmdb takes a path with an extension (`/tmp/tmp.AbC123`) for a file of its own unless told
    // that the path is a directory.
    const env = open({ path: dir, noSubdir: false, maxDbs: 8 });
    return new Store(
      env,
      env.openDB<Buffer, Key>("docs", { encoding: "binary" }),
      env.openDB<Buffer, Key>("index", { encoding: "binary" }),
      env.openDB<CollectionMeta, Key>("meta", {}),
      env.openDB<Buffer, Key>("sessions", { encoding: "binary" }),
      env.openDB<Buffer, Key>("oplog", { encoding: "binary" }),
      { maxEntries: limits.maxEntries ?? DEFAULT_OPLOG_MAX_ENTRIES, maxAgeSeconds: limits.maxAgeSeconds ?? DEFAULT_OPLOG_MAX_AGE_SECONDS },
    );
  }

  async close(): Promise<void> {
    await this.env.close();
  }

  /**
   * Runs `fn` in one write transaction; resolves once the transaction is committed: written to the
   * files, so it survives the end of this process however it ends (after a crash LMDB opens at
   * the last commit while the machine has not restarted), but not yet synced to the disk (see
   * `flushed`). `fn`
   * runs in a child transaction, because lmdb keeps the writes of a batched transaction whose
   * callback throws: the child is rolled back instead, so a command that fails half-way leaves
   * nothing of itself behind.
   */
  write<T>(fn: () => T): Promise<T> {
    let seq = 0;
    let time: Timestamp | undefined;
    let logged = false;
    const done = this.env.transaction(() => {
      time = this.clock.tick();
      Object.assign(this.oplogState, { time, index: 0, pending: [] });
      seq = this.conflicts.beginWrite();
      try {
        const result = this.env.childTransaction(() => {
          const result = fn();
          this.flushOplog();
          return result;
        });
        logged = this.oplogState.index > 0;
        if (logged) this.trimOplog();
        return result;
      } catch (err) {
        // The catalog in memory may hold changes the rollback undid on disk.
        this.loadCatalog();
        throw err;
      } finally {
        this.conflicts.leaveWrite();
      }
    }) as Promise<T>;
    return done.finally(() => {
      this.conflicts.endWrite(seq);
      if (time && time.greaterThan(this.committedTime)) this.committedTime = time;
      if (logged) for (const wake of [...this.oplogWaiters]) wake();
    });
  }

  /** Resolves once every transaction committed so far is synced to the disk: it then survives a power loss too. */
  async flushed(): Promise<void> {
    await this.env.flushed;
  }

  private loadCatalog(): void {
    this.catalog.clear();
    for (const { value } of this.kv.range("meta", {}) as Iterable<{ value: CollectionMeta }>) this.catalog.set(ns(value.db, value.name), value);
  }

  // ---- retryable writes ----

  /** The last retryable write recorded for a session: its number and its reply. */
  retryRecord(session: string): { txnNumber: number; reply: Document } | undefined {
    const buf = this.kv.get("sessions", [session]) as Buffer | undefined;
    if (!buf) return undefined;
    const record = BSON.deserialize(buf, deserializeOptions);
    return { txnNumber: Number(record.txnNumber), reply: record.reply as Document };
  }

  /** Inside `write()`: records a retryable write's reply with the write itself. */
  recordRetry(session: string, txnNumber: number, reply: Document): void {
    this.kv.put("sessions", [session], serialize({ txnNumber, reply, at: new Date() }));
  }

  /** Forgets the retryable-write records of sessions idle since before `before` (expired, as on MongoDB). */
  async pruneRetryRecords(before: Date, live: ReadonlySet<string>): Promise<void> {
    const expired = [...this.kv.range("sessions", {})].filter(({ key, value }) => {
      if (live.has(String(key[0]))) return false;
      const at = BSON.deserialize(value as Buffer, deserializeOptions).at;
      return !(at instanceof Date) || at < before;
    });
    if (expired.length === 0) return;
    await this.write(() => {
      for (const { key } of expired) this.kv.remove("sessions", key);
    });
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
    this.kv.put("meta", [meta.db, meta.name], meta);
  }

  /** Replaces a collection's options and index specifications (collMod). */
  updateMeta(meta: CollectionMeta, options: Document, indexes: IndexSpec[]): void {
    meta.options = options;
    meta.indexes = indexes;
    this.saveMeta(meta);
  }

  dropCollection(meta: CollectionMeta): void {
    for (const key of [...this.kv.keys("docs", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })]) this.kv.remove("docs", key);
    for (const key of [...this.kv.keys("index", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })]) this.kv.remove("index", key);
    this.kv.remove("meta", [meta.db, meta.name]);
    this.catalog.delete(ns(meta.db, meta.name));
    this.log({ op: "drop", db: meta.db, coll: meta.name });
  }

  renameCollection(meta: CollectionMeta, toDb: string, toName: string): void {
    const docs = [...this.scan(meta)];
    const indexes = meta.indexes;
    this.quietly(() => {
      this.dropCollection(meta);
      const { meta: target } = this.ensureCollection(toDb, toName, meta.options);
      target.indexes = indexes.map((i) => ({ ...i, multikeyFields: [] }));
      this.saveMeta(target);
      for (const doc of docs) this.insert(target, doc);
    });
    this.log({ op: "rename", db: meta.db, coll: meta.name, to: { db: toDb, coll: toName } });
  }

  // ---- reads ----

  get(meta: CollectionMeta, id: unknown): Document | undefined {
    return this.getByIdPart(meta, idKey(id));
  }

  getByIdPart(meta: CollectionMeta, id: KeyPart): Document | undefined {
    const buf = this.kv.get("docs", [meta.db, meta.name, ...id]) as Buffer | undefined;
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
    for (const { value } of this.kv.range("docs", range)) yield decodeDocument(value as Buffer);
  }

  count(meta: CollectionMeta): number {
    return this.kv.count("docs", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] });
  }

  /** The `_id` key parts of the index entries between two key-part bounds, in index order. */
  *scanIndex(meta: CollectionMeta, indexName: string, start: Key, end: Key, reverse: boolean): Generator<KeyPart> {
    const prefix = [meta.db, meta.name, indexName];
    const low = [...prefix, ...start];
    const high = [...prefix, ...end];
    const range = reverse ? { start: high, end: low, reverse } : { start: low, end: high };
    for (const key of this.kv.keys("index", range)) {
      const k = key;
      yield [k[k.length - 2] as number, k[k.length - 1]];
    }
  }

  /** How many documents have entries between two key-part bounds (each counted once). */
  countIndex(meta: CollectionMeta, indexName: string, start: Key, end: Key, distinct: Set<string> | undefined): number {
    const prefix = [meta.db, meta.name, indexName];
    if (!distinct) return this.kv.count("index", { start: [...prefix, ...start], end: [...prefix, ...end] });
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
    for (const key of this.kv.keys("index", { start: [...prefix, ...start], end: [...prefix, ...end] })) {
      const k = key;
      visit(idText(k[k.length - 2], k[k.length - 1]));
    }
  }

  // ---- consistency (validate) ----

  /** Each stored document's `_id` key parts and raw BSON, undecoded: validate checks they decode. */
  *records(meta: CollectionMeta): Generator<{ id: KeyPart; bytes: Buffer }> {
    for (const { key: k, value } of this.kv.range("docs", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })) {
      yield { id: [k[k.length - 2] as number, k[k.length - 1]], bytes: value as Buffer };
    }
  }

  /** Every entry stored in one index, as its key parts followed by the document's `_id` parts. */
  *storedIndexEntries(meta: CollectionMeta, indexName: string): Generator<Key> {
    const prefix = [meta.db, meta.name, indexName];
    for (const key of this.kv.keys("index", { start: prefix, end: [...prefix, HIGH] })) yield key.slice(prefix.length);
  }

  /** Whether one index holds the entry `key` (key parts followed by the document's `_id` parts). */
  hasIndexEntry(meta: CollectionMeta, indexName: string, key: Key): boolean {
    return this.kv.get("index", [meta.db, meta.name, indexName, ...key]) !== undefined;
  }

  /** The entries `insert` writes for `doc` in each index that keeps entries (the same key function). */
  expectedIndexEntries(meta: CollectionMeta, doc: Document): Array<{ index: IndexSpec; keys: Key[] }> {
    return this.indexEntries(meta, doc).map(({ index, keys }) => ({ index, keys }));
  }

  // ---- writes (inside write()) ----

  insert(meta: CollectionMeta, doc: Document): void {
    const id = idKey(doc._id);
    if (this.kv.get("docs", [meta.db, meta.name, ...id]) !== undefined) throw duplicateKey(meta, ID_INDEX, doc);
    const entries = this.indexEntries(meta, doc);
    checkKeySizes(meta, entries, id);
    this.checkUnique(meta, doc, entries);
    // A document inserted as a client sent it is stored in the bytes it came in: the same BSON.
    const bytes = checkedSize(doc, receivedBytes(doc)) ?? serialize(doc);
    this.kv.put("docs", [meta.db, meta.name, ...id], bytes);
    this.putEntries(meta, entries, id);
    this.log({ op: "insert", db: meta.db, coll: meta.name, key: idKeyOf(doc) }, bytes);
    if (isCapped(meta)) this.appendCapped(meta, id);
  }

  /**
   * Records a capped collection's new document as the newest, then removes the oldest beyond its
   * limits; through the key-value layer like any write, so the removals are deletes that
   * transactions, snapshots and change streams see (MongoDB logs them as deletes too).
   */
  private appendCapped(meta: CollectionMeta, id: KeyPart): void {
    const n = meta.nextInsertion ?? 0;
    meta.nextInsertion = n + 1;
    this.saveMeta(meta);
    this.kv.put("index", [meta.db, meta.name, NATURAL, n, ...id], EMPTY);
    this.kv.put("index", [meta.db, meta.name, NATURAL_BY_ID, ...id, n], EMPTY);
    const max = Number(meta.options.max) > 0 ? Number(meta.options.max) : Infinity;
    let count = this.count(meta);
    let bytes = 0;
    for (const { value } of this.kv.range("docs", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })) bytes += (value as Buffer).length;
    // The oldest go first, never the document just inserted; chosen before any is removed.
    const victims: Document[] = [];
    for (const oldest of this.scanIndex(meta, NATURAL, [], [HIGH], false)) {
      if ((count <= max && bytes <= cappedBytes(meta)) || JSON.stringify(oldest) === JSON.stringify(id)) break;
      const buf = this.kv.get("docs", [meta.db, meta.name, ...oldest]) as Buffer | undefined;
      if (!buf) continue;
      bytes -= buf.length;
      count -= 1;
      victims.push(decodeDocument(buf));
    }
    for (const doc of victims) this.remove(meta, doc);
  }

  /**
   * Applies a transaction's writes as it made them over its snapshot: its documents in the order
   * written, the index entries it put and removed, and the multikey flags it learned. Only for
   * collections no one else wrote to since that snapshot (transactions.ts checks), where its
   * entries and unique checks still hold, so a commit computes nothing twice.
   */
  applyOwnWrites(docs: Array<{ key: Key; value: unknown }>, entries: Array<{ key: Key; value: unknown }>, metas: CollectionMeta[]): void {
    for (const { key, value } of docs) {
      const [db, coll] = key as [string, string];
      const before = this.kv.get("docs", key) as Buffer | undefined;
      if (value === null) {
        if (!before) continue;
        this.kv.remove("docs", key);
        this.log({ op: "delete", db, coll, key: decodeIdKey(before as Buffer) });
        continue;
      }
      this.kv.put("docs", key, value);
      if (before) {
        const doc = this.written.get(value as Buffer) ?? decodeDocument(value as Buffer);
        this.log({ op: "update", db, coll, key: idKeyOf(doc), update: updateDescription(decodeDocument(before), doc) });
      } else this.log({ op: "insert", db, coll, key: decodeIdKey(value as Buffer) }, value as Buffer);
    }
    for (const { key, value } of entries) {
      if (value === null) this.kv.remove("index", key);
      else this.kv.put("index", key, value);
    }
    for (const mine of metas) {
      const meta = this.collection(mine.db, mine.name);
      if (!meta) continue;
      const learned = meta.indexes.map((index, at) => ({ index, fields: mine.indexes[at]?.multikeyFields ?? [] })).filter(({ index, fields }) => fields.some((f) => !(index.multikeyFields ?? []).includes(f)));
      for (const { index, fields } of learned) index.multikeyFields = [...new Set([...(index.multikeyFields ?? []), ...fields])];
      if (learned.length > 0) this.saveMeta(meta);
    }
  }

  /** `kind`: how change streams report it, an `update` (with what changed) or a `replace`. */
  replace(meta: CollectionMeta, before: Document, after: Document, kind: "update" | "replace" = "update"): void {
    const id = idKey(before._id);
    const bytes = serialize(after);
    this.written.set(bytes, after);
    const oldEntries = this.indexEntries(meta, before);
    const newEntries = this.indexEntries(meta, after);
    checkKeySizes(meta, newEntries, id);
    this.checkUnique(meta, after, newEntries);
    for (const { index, keys } of oldEntries) {
      for (const key of keys) this.kv.remove("index", [meta.db, meta.name, index.name, ...key, ...id]);
    }
    this.kv.put("docs", [meta.db, meta.name, ...id], bytes);
    this.putEntries(meta, newEntries, id);
    const change = kind === "replace" ? { doc: after } : { update: updateDescription(before, after) };
    this.log({ op: kind, db: meta.db, coll: meta.name, key: idKeyOf(before), ...change });
  }

  remove(meta: CollectionMeta, doc: Document): void {
    const id = idKey(doc._id);
    for (const { index, keys } of this.indexEntries(meta, doc)) {
      for (const key of keys) this.kv.remove("index", [meta.db, meta.name, index.name, ...key, ...id]);
    }
    this.kv.remove("docs", [meta.db, meta.name, ...id]);
    if (isCapped(meta)) {
      const byId = [meta.db, meta.name, NATURAL_BY_ID, ...id];
      for (const key of [...this.kv.keys("index", { start: byId, end: [...byId, HIGH] })]) {
        const n = key[key.length - 1];
        this.kv.remove("index", key);
        this.kv.remove("index", [meta.db, meta.name, NATURAL, n, ...id]);
      }
    }
    this.log({ op: "delete", db: meta.db, coll: meta.name, key: idKeyOf(doc) });
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
      for (const key of keys) this.kv.put("index", [meta.db, meta.name, prepared.spec.name, ...key, ...id], EMPTY);
    }
    this.saveMeta(meta);
  }

  createIndex(meta: CollectionMeta, spec: IndexSpec): void {
    this.buildIndex(meta, this.prepareIndex(meta, spec));
  }

  dropIndex(meta: CollectionMeta, name: string): void {
    const prefix = [meta.db, meta.name, name];
    for (const key of [...this.kv.keys("index", { start: prefix, end: [...prefix, HIGH] })]) this.kv.remove("index", key);
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
      for (const key of keys) this.kv.put("index", [meta.db, meta.name, index.name, ...key, ...id], EMPTY);
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

/** A catalog entry a transaction may change without touching the shared one. */
export function copyMeta(meta: CollectionMeta): CollectionMeta {
  return { ...meta, indexes: meta.indexes.map((index) => ({ ...index, multikeyFields: [...(index.multikeyFields ?? [])] })) };
}

export function ns(db: string, name: string): string {
  return `${db}.${name}`;
}

/** Internal records (retryable-write replies): plain JavaScript values. */
const deserializeOptions = { promoteLongs: true, promoteValues: true, promoteBuffers: false } as const;

/** MongoDB's largest document (16 MiB). */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/**
 * `entry` (BSON) with a field `doc` appended whose value is a document already encoded: an
 * embedded document is type 0x03, its name and NUL, then its bytes; the sizes are little-endian.
 */
function withDocument(entry: Buffer, doc: Buffer): Buffer {
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

function serialize(doc: Document): Buffer {
  const bytes = BSON.serialize(doc);
  return checkedSize(doc, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** `bytes`, the stored form of `doc`, unless they are more than a document may hold. */
function checkedSize<T extends Buffer | undefined>(doc: Document, bytes: T): T {
  if (bytes && bytes.byteLength > MAX_DOCUMENT_BYTES) {
    throw new MongoCommandError("BSONObjectTooLarge", `BSONObj size: ${bytes.byteLength} (0x${bytes.byteLength.toString(16).toUpperCase()}) is invalid. Size must be between 0 and 16793600(16MB) First element: _id: ${EJSON.stringify({ v: doc._id } as Document).slice(5, -1)}`);
  }
  return bytes;
}

function hasPath(doc: Document, path: string): boolean {
  let cur: unknown = doc;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) return false;
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
