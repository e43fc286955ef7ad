/**
 * The key-value layer under the store: the three LMDB sub-databases, read either at their latest
 * state or at a snapshot (an LMDB read transaction), and an overlay that keeps a multi-document
 * transaction's writes in memory over its snapshot, so the transaction reads its own writes and
 * nobody else sees them before the commit.
 */
import { compareKeys, type Database, type Transaction } from "lmdb";
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

  private options<T extends object>(range: T): T {
    return this.transaction ? { ...range, transaction: this.transaction } : range;
  }

  get(db: SubDb, key: Key): unknown {
    return this.dbs[db].get(key, this.options({}));
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

/** A snapshot with the transaction's own writes over it. */
export class OverlayKv implements Kv {
  private readonly changes: Record<SubDb, Map<string, Change>> = { docs: new Map(), index: new Map(), meta: new Map(), sessions: new Map(), oplog: new Map() };
  /** The same changes in key order. */
  private readonly sorted: Record<SubDb, Change[]> = { docs: [], index: [], meta: [], sessions: [], oplog: [] };

  constructor(
    private readonly snapshot: Kv,
    /** Told of every document the transaction writes, before it is (it throws on a write conflict). */
    private readonly beforeDocWrite: (key: Key) => void,
  ) {}

  /** The documents written (value `null`: removed), for the commit. */
  documentChanges(): Change[] {
    return [...this.changes.docs.values()];
  }

  get(db: SubDb, key: Key): unknown {
    const change = this.changes[db].get(keyText(key));
    if (change) return change.value === REMOVED ? undefined : change.value;
    return this.snapshot.get(db, key);
  }

  /**
   * The transaction's changes inside a range, in key order: found by binary search in the changes
   * kept sorted, so a large transaction's reads (a unique check per insert) do not scan all it wrote.
   */
  private changesIn(db: SubDb, range: KvRange): Change[] {
    const sorted = this.sorted[db];
    if (sorted.length === 0) return [];
    if (range.reverse) {
      // From `start` (inclusive) down to `end` (exclusive).
      const from = range.end === undefined ? 0 : firstAfter(sorted, range.end, true);
      const to = range.start === undefined ? sorted.length : firstAfter(sorted, range.start, true);
      return sorted.slice(from, to).reverse();
    }
    const from = range.start === undefined ? 0 : firstAfter(sorted, range.start, false);
    const to = range.end === undefined ? sorted.length : firstAfter(sorted, range.end, false);
    return sorted.slice(from, to);
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
      if (changes.has(keyText(entry.key))) continue;
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
    const text = keyText(key);
    const known = this.changes[db].get(text);
    if (known) {
      known.value = value;
      return;
    }
    const change = { key, value };
    this.changes[db].set(text, change);
    const sorted = this.sorted[db];
    sorted.splice(firstAfter(sorted, key, false), 0, change);
  }
}

/** The index of the first change whose key is at or after `key` (strictly after, with `strict`). */
function firstAfter(sorted: Change[], key: Key, strict: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const order = compareKeys(sorted[middle].key, key);
    if (order < 0 || (strict && order === 0)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A key as text, to find it in a map. */
export function keyText(key: Key): string {
  return JSON.stringify(key);
}
