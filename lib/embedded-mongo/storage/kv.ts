/**
 * The key-value layer under the store: the three LMDB sub-databases, read either at their latest
 * state or at a snapshot (an LMDB read transaction), and an overlay that keeps a multi-document
 * transaction's writes in memory over its snapshot, so the transaction reads its own writes and
 * nobody else sees them before the commit.
 */
import { compareKeys, type Database, type Transaction } from "lmdb";
import BTree from "sorted-btree";
import type { KeyPrimitive } from "./keys";

export type SubDb = "docs" | "index" | "meta" | "sessions" | "oplog";
type Key = KeyPrimitive[];

export interface KvRange {
  start?: Key;
  end?: Key;
  reverse?: boolean;
}

export interface Kv {
  get(db: SubDb, key: Key): unknown;
  range(db: SubDb, range: KvRange): Iterable<{ key: Key; value: unknown }>;
  keys(db: SubDb, range: KvRange): Iterable<Key>;
  count(db: SubDb, range: KvRange): number;
  put(db: SubDb, key: Key, value: unknown): void;
  remove(db: SubDb, key: Key): void;
}

export type Databases = Record<SubDb, Database<unknown, Key>>;

/** LMDB itself; writes happen inside the store's write transaction. */
export class LmdbKv implements Kv {
  constructor(
    private readonly dbs: Databases,
    private readonly transaction: Transaction | undefined,
    /** Told of every document written, before it is (it may throw to refuse the write). */
    private readonly beforeDocWrite?: (key: Key) => void,
  ) {}

  /** The same sub-databases read at `transaction`'s snapshot (read-only). */
  at(transaction: Transaction): LmdbKv {
    return new LmdbKv(this.dbs, transaction);
  }

  /** Whether this reads the latest committed state (not a snapshot). */
  readsLatest(): boolean {
    return this.transaction === undefined;
  }

  // Assigned, not spread then extended: every read of a snapshot passes here (../README.md#object-literals).
  private options<T extends object>(range: T): T {
    return this.transaction ? Object.assign({}, range, { transaction: this.transaction }) : range;
  }

  get(db: SubDb, key: Key): unknown {
    return this.dbs[db].get(key, this.transaction ? { transaction: this.transaction } : {});
  }

  range(db: SubDb, range: KvRange): Iterable<{ key: Key; value: unknown }> {
    return this.dbs[db].getRange(this.options({ ...range })) as Iterable<{ key: Key; value: unknown }>;
  }

  keys(db: SubDb, range: KvRange): Iterable<Key> {
    return this.dbs[db].getKeys(this.options({ ...range })) as Iterable<Key>;
  }

  count(db: SubDb, range: KvRange): number {
    return this.dbs[db].getKeysCount(this.options({ ...range }));
  }

  put(db: SubDb, key: Key, value: unknown): void {
    if (this.transaction) throw new Error("a snapshot is read-only");
    if (db === "docs") this.beforeDocWrite?.(key);
    void this.dbs[db].put(key, value);
  }

  remove(db: SubDb, key: Key): void {
    if (this.transaction) throw new Error("a snapshot is read-only");
    if (db === "docs") this.beforeDocWrite?.(key);
    void this.dbs[db].remove(key);
  }
}

/** A transaction's pending change of one key: its new value, or `null` when removed. */
interface Change {
  key: Key;
  value: unknown;
}

const REMOVED = null;
const SUB_DBS: SubDb[] = ["docs", "index", "meta", "sessions", "oplog"];

/** A snapshot with the transaction's own writes over it. */
export class OverlayKv implements Kv {
  /**
   * The changes of each sub-database in key order: a B+ tree, so a transaction of thousands of
   * writes inserts each in O(log n) and its reads (a unique check per insert) find their range
   * without scanning all it wrote.
   */
  private readonly changes = Object.fromEntries(
    SUB_DBS.map((db) => [db, new BTree<Key, unknown>(undefined, compareKeys)]),
  ) as Record<SubDb, BTree<Key, unknown>>;
  /**
   * Index entries of indexes the transaction has not read, in the order written, by index: most
   * indexes a transaction writes (an import's keywords, the audit log's) are never read before
   * the commit, which applies the entries in this order; sorting them into `changes` is put off
   * until a read of that index needs it.
   */
  private readonly unread = new Map<string, Change[]>();
  /** The documents written, in the order they were: the commit applies them so (a delete before the insert that reuses its unique key). */
  private readonly written = new Map<string, Change>();

  constructor(
    private readonly snapshot: Kv,
    /** Told of every document the transaction writes, before it is (it throws on a write conflict). */
    private readonly beforeDocWrite: (key: Key) => void,
  ) {}

  /** The documents written (value `null`: removed), for the commit. */
  documentChanges(): Change[] {
    return [...this.written.values()];
  }

  /**
   * Every change of one sub-database (value `null`: removed), for the commit to apply in this
   * order: in key order, except the entries of indexes never read, which follow in the order
   * written (a key written twice appears twice, the later change last).
   */
  changesOf(db: SubDb): Change[] {
    const sorted = this.sortedChanges(db, {});
    if (db !== "index" || this.unread.size === 0) return sorted;
    return [...sorted, ...[...this.unread.values()].flat()];
  }

  /** The collections (`db.name`) with a change in one sub-database whose keys start with them ("index", "meta"). */
  collectionsChanged(db: SubDb): Set<string> {
    const found = new Set<string>();
    // In key order, a collection's changes come together: one name for each run of them.
    let last: Key | undefined;
    for (const [key] of this.changes[db].entries()) {
      if (last !== undefined && key[0] === last[0] && key[1] === last[1]) continue;
      last = key;
      found.add(`${key[0]}.${key[1]}`);
    }
    if (db === "index")
      for (const entries of this.unread.values()) found.add(`${entries[0].key[0]}.${entries[0].key[1]}`);
    return found;
  }

  /**
   * Sorts into `changes` the unread index entries a read of `range` could meet: those of one
   * index when both ends name it, else all of them.
   */
  private sortIndexes(range: KvRange): void {
    if (this.unread.size === 0) return;
    const { start, end } = range;
    const one =
      start &&
      end &&
      start.length >= 3 &&
      end.length >= 3 &&
      start[0] === end[0] &&
      start[1] === end[1] &&
      start[2] === end[2]
        ? indexOf(start)
        : undefined;
    const names = one === undefined ? [...this.unread.keys()] : [one];
    for (const name of names) {
      const entries = this.unread.get(name);
      if (!entries) continue;
      this.unread.delete(name);
      for (const { key, value } of entries) this.changes.index.set(key, value);
    }
  }

  get(db: SubDb, key: Key): unknown {
    if (db === "index") this.sortIndexes({ start: key, end: key });
    const value = this.changes[db].get(key);
    if (value !== undefined) return value === REMOVED ? undefined : value;
    return this.snapshot.get(db, key);
  }

  /** The transaction's changes inside a range, in the range's order. */
  private changesIn(db: SubDb, range: KvRange): Change[] {
    if (db === "index") this.sortIndexes(range);
    return this.sortedChanges(db, range);
  }

  /** The changes of `changes` (not those still unread) inside a range, in the range's order. */
  private sortedChanges(db: SubDb, range: KvRange): Change[] {
    const tree = this.changes[db];
    const found: Change[] = [];
    if (tree.size === 0) return found;
    if (range.reverse) {
      // From `start` (inclusive) down to `end` (exclusive).
      for (const [key, value] of tree.entriesReversed(range.start)) {
        if (range.end !== undefined && compareKeys(key, range.end) <= 0) break;
        found.push({ key, value });
      }
      return found;
    }
    for (const [key, value] of tree.entries(range.start)) {
      if (range.end !== undefined && compareKeys(key, range.end) >= 0) break;
      found.push({ key, value });
    }
    return found;
  }

  *range(db: SubDb, range: KvRange): Iterable<{ key: Key; value: unknown }> {
    const mine = this.changesIn(db, range);
    if (mine.length === 0) {
      yield* this.snapshot.range(db, range);
      return;
    }
    const changes = this.changes[db];
    const direction = range.reverse ? -1 : 1;
    let i = 0;
    for (const entry of this.snapshot.range(db, range)) {
      while (i < mine.length && compareKeys(mine[i].key, entry.key) * direction < 0) {
        if (mine[i].value !== REMOVED) yield mine[i];
        i += 1;
      }
      if (changes.has(entry.key)) continue;
      yield entry;
    }
    for (; i < mine.length; i++) if (mine[i].value !== REMOVED) yield mine[i];
  }

  *keys(db: SubDb, range: KvRange): Iterable<Key> {
    for (const { key } of this.range(db, range)) yield key;
  }

  count(db: SubDb, range: KvRange): number {
    if (this.changesIn(db, range).length === 0) return this.snapshot.count(db, range);
    let n = 0;
    for (const entry of this.range(db, range)) if (entry) n += 1;
    return n;
  }

  put(db: SubDb, key: Key, value: unknown): void {
    if (db === "docs") this.beforeDocWrite(key);
    this.change(db, key, value);
  }

  remove(db: SubDb, key: Key): void {
    if (db === "docs") this.beforeDocWrite(key);
    this.change(db, key, REMOVED);
  }

  private change(db: SubDb, key: Key, value: unknown): void {
    // Index entries wait, unsorted, until a read of their index (see `unread`).
    if (db === "index") {
      const name = indexOf(key);
      const entries = this.unread.get(name);
      if (entries) entries.push({ key, value });
      else this.unread.set(name, [{ key, value }]);
      return;
    }
    this.changes[db].set(key, value);
    if (db !== "docs") return;
    const text = keyText(key);
    const known = this.written.get(text);
    if (known) known.value = value;
    else this.written.set(text, { key, value });
  }
}

/** The index an index entry's key belongs to: its database, collection and index name. */
const indexOf = (key: Key): string => `${key[0]}\u0000${key[1]}\u0000${key[2]}`;

/** A key as text, to find it in a map. */
export function keyText(key: Key): string {
  return JSON.stringify(key);
}
