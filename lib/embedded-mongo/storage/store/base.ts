/**
 * The store's first section: the LMDB environment, the write transaction every write runs in,
 * views for transactions, and the oplog each write logs to (`// ---- oplog ----` of the store).
 */
import { Timestamp, type Document } from "bson";
import { type Database, type RootDatabase, type Transaction } from "lmdb";
import { ConflictTracker } from "../../txn/conflicts";
import { decodeDocument } from "../bson-values";
import { ClusterClock } from "../clock";
import { LmdbKv, type Databases, type Kv } from "../kv";
import {
  entriesUnder,
  oplogEntries,
  oplogKey,
  positionOf,
  type OplogEntry,
  type OplogKey,
  type OplogPosition,
} from "../oplog";
import { copyMeta, ns, serialize, withDocument, type CollectionMeta, type Key, type OplogLimits } from "./common";

/** A view of the store at one snapshot, and the call that releases the snapshot. */
export interface ReadSnapshot<S> {
  store: S;
  done: () => void;
}

/** At most this many LMDB snapshots are held by yielding reads at once (see readSnapshot). */
const MAX_PINNED = 64;

export abstract class StoreBase {
  /** This store, also as its views (a transaction's, a read's snapshot) see it: they inherit it. Per-store state is keyed by it. */
  readonly origin: StoreBase = this;
  protected catalog = new Map<string, CollectionMeta>();
  /** The replica set's cluster time (see clock.ts). */
  readonly clock = new ClusterClock();
  /** Who wrote which document lately, so transactions detect write conflicts (see transactions.ts). */
  readonly conflicts = new ConflictTracker();
  /** The document each stored byte string of an update was made from, while it lives: a commit need not decode what its transaction encoded. */
  protected readonly written = new WeakMap<Buffer, Document>();
  /** Every read and write of the sub-databases goes through this; a transaction's view puts its own in. */
  protected kv: Kv;

  protected constructor(
    private readonly env: RootDatabase,
    docs: Database<Buffer, Key>,
    index: Database<Buffer, Key>,
    meta: Database<CollectionMeta, Key>,
    sessions: Database<Buffer, Key>,
    oplog: Database<Buffer, Key>,
    private readonly oplogLimits: OplogLimits,
  ) {
    this.kv = new LmdbKv({ docs, index, meta, sessions, oplog } as Databases, undefined, (key) =>
      this.conflicts.plainWrite(key),
    );
    this.loadCatalog();
    for (const key of this.kv.keys("oplog", {})) this.oplogState.count += entriesUnder(key);
    const newest = this.oplogEdge(true);
    if (newest) this.clock.advanceTo(newest.time);
    this.committedTime = this.clock.now();
  }

  // ---- oplog ----

  /** The write under way: its time and how many entries it logged; shared by every view. */
  protected readonly oplogState: {
    time: Timestamp;
    index: number;
    count: number;
    quiet: number;
    txn?: Document;
    pending: Buffer[];
    /** The seconds of the oldest write's entries, once a trim has read them (only a trim removes entries). */
    oldest?: number;
  } = {
    time: new Timestamp({ t: 0, i: 0 }),
    index: 0,
    count: 0,
    quiet: 0,
    pending: [],
  };
  /** False in a transaction's view: its commit logs what it applies. */
  protected logging = true;
  /** The time of the newest committed write: every entry up to it can be read. */
  committedTime: Timestamp;
  protected readonly oplogWaiters = new Set<() => void>();

  /** Inside `write()`: records a change for change streams; `doc` may come as the bytes already stored. */
  log(entry: Omit<OplogEntry, "wall">, doc?: Buffer): void {
    if (!this.logging || this.oplogState.quiet > 0) return;
    const state = this.oplogState;
    // Assigned, not spread then extended: the slow literal of Node 20 (../../README.md#object-literals).
    const bytes = serialize(Object.assign({}, entry, state.txn, { wall: new Date(state.time.high * 1000) }));
    state.pending.push(doc ? withDocument(bytes, doc) : bytes);
    state.index += 1;
  }

  /**
   * Stores the entries a write logged as one value under the write's time: one LMDB write per
   * command or commit, however many documents it changed, and one delete when it is trimmed.
   */
  protected flushOplog(): void {
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
        if (!sameWrite || index > key[2])
          yield { position: positionOf([seconds, increment, index]), entry: decodeDocument(bytes) as OplogEntry };
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
  protected trimOplog(): void {
    const state = this.oplogState;
    const cutoff = Math.floor(Date.now() / 1000) - this.oplogLimits.maxAgeSeconds;
    // Within both limits, as the oldest entry known says: nothing to drop, and no cursor to open on every write.
    if (state.count <= this.oplogLimits.maxEntries && state.oldest !== undefined && state.oldest >= cutoff) return;
    const [seconds, increment] = oplogKey({ time: state.time, index: 0 });
    const doomed: Key[] = [];
    let left = state.count;
    let oldest: number | undefined;
    for (const key of this.kv.keys("oplog", {})) {
      if (
        (key[0] === seconds && key[1] === increment) ||
        (left <= this.oplogLimits.maxEntries && (key[0] as number) >= cutoff)
      ) {
        oldest = key[0] as number;
        break;
      }
      doomed.push(key);
      left -= entriesUnder(key);
    }
    for (const key of doomed) this.kv.remove("oplog", key);
    state.count = left;
    state.oldest = oldest;
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
  protected quietly(fn: () => void): void {
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
  forTransaction(kv: Kv, commitWrite: <T>(fn: () => T) => Promise<T>): this {
    const view = Object.create(this) as this;
    view.kv = kv;
    view.logging = false;
    view.catalog = new Map([...this.catalog].map(([name, meta]) => [name, copyMeta(meta)]));
    view.write = commitWrite;
    return view;
  }

  /** The same store whose `write()` runs `around` around each write (retryable-write records). */
  withWriteHook(around: <T>(fn: () => T) => () => T): this {
    const view = Object.create(this) as this;
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

  /** LMDB read transactions pinned by reads under way, and how many reads pin each. */
  private readonly pinned = new Map<Transaction, number>();

  /** Reads under way on a snapshot of their own (serverStatus `globalLock.activeClients.readers`). */
  activeReads(): number {
    let n = 0;
    for (const reads of this.pinned.values()) n += reads;
    return n;
  }

  /**
   * A read-only view of this store at one LMDB snapshot, for a read that lets other commands run
   * while it works (query/work.ts): what they write meanwhile is not seen, so pausing never
   * changes the answer. Undefined in a transaction's view (it reads its own snapshot and writes,
   * and runs at once), and when {@link MAX_PINNED} snapshots are already held (each holds one of
   * LMDB's reader slots, 126 by default): such a read runs at once on the latest state.
   */
  readSnapshot(): ReadSnapshot<this> | undefined {
    if (!(this.kv instanceof LmdbKv) || !this.kv.readsLatest()) return undefined;
    const transaction = this.env.useReadTransaction();
    const reads = this.pinned.get(transaction) ?? 0;
    if (reads === 0 && this.pinned.size >= MAX_PINNED) {
      transaction.done();
      return undefined;
    }
    this.pinned.set(transaction, reads + 1);
    const view = Object.create(this) as this;
    view.kv = this.kv.at(transaction);
    view.catalog = new Map(this.catalog);
    let released = false;
    const done = () => {
      if (released) return;
      released = true;
      const left = (this.pinned.get(transaction) ?? 1) - 1;
      if (left > 0) this.pinned.set(transaction, left);
      else this.pinned.delete(transaction);
      transaction.done();
    };
    return { store: view, done };
  }

  /** The collection catalog as it stands, by namespace (a transaction compares it at commit). */
  catalogEntries(): ReadonlyMap<string, CollectionMeta> {
    return this.catalog;
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

  protected loadCatalog(): void {
    this.catalog.clear();
    for (const { value } of this.kv.range("meta", {}) as Iterable<{ value: CollectionMeta }>)
      this.catalog.set(ns(value.db, value.name), value);
  }
}
