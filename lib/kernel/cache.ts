import { LRUCache } from "lru-cache";

/**
 * A small time-limited memo of this process, its entries held in an `LRUCache` bounded to
 * `maxEntries` (the least recently used go first). Concurrent misses of one key share one computation,
 * and `clear()` drops entries (called after writes that could change the answers). Other
 * processes' writes are seen once an entry expires, so answers lag them by at most the TTL (or,
 * with `staleMs`, by at most that).
 */
export interface TtlCacheOptions {
  /** How long an answer is served as it is. */
  ttlMs: number;
  /**
   * Up to this age an expired answer is still served while a fresh one is computed in the
   * background, so that a slow computation does not make every caller wait each TTL.
   */
  staleMs?: number;
  maxEntries?: number;
  /** The time in milliseconds; tests pass their own so that no answer depends on the machine's speed. */
  clock?: () => number;
}

interface Entry<V> {
  value: Promise<V>;
  at: number;
  refreshing: boolean;
  /** Whether `value` has an answer: only an answer is served stale. */
  settled: boolean;
}

export class TtlCache<V> {
  private readonly entries: LRUCache<string, Entry<V>>;
  private generation = 0;
  private readonly ttlMs: number;
  private readonly staleMs: number;
  private readonly clock: () => number;

  constructor(options: TtlCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.staleMs = Math.max(options.staleMs ?? 0, options.ttlMs);
    // Read through `Date.now` at each call, so that a faked clock (vi.useFakeTimers) reaches it.
    this.clock = options.clock ?? (() => Date.now());
    this.entries = new LRUCache({ max: options.maxEntries ?? 10_000 });
  }

  get(key: string, compute: () => Promise<V>): Promise<V> {
    const now = this.clock();
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    // A computation still pending past the TTL (one started as the database went away, say) is
    // not shared any longer: a new one is started, so no caller waits on it for ever.
    if (hit && hit.settled && now - hit.at < this.staleMs) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        // Only a settled answer replaces the stale one; a failed refresh keeps it until it ages out.
        const generation = this.generation;
        compute().then(
          (value) => {
            if (generation === this.generation && this.entries.peek(key) === hit) {
              this.entries.set(key, { value: Promise.resolve(value), at: this.clock(), refreshing: false, settled: true });
            }
          },
          () => {
            hit.refreshing = false;
          },
        );
      }
      return hit.value;
    }
    const generation = this.generation;
    const entry: Entry<V> = { value: compute(), at: now, refreshing: false, settled: false };
    this.entries.set(key, entry);
    // A failure is not remembered, nor an answer computed across a clear().
    entry.value.then(
      () => {
        entry.settled = true;
        if (generation !== this.generation && this.entries.peek(key) === entry) this.entries.delete(key);
      },
      () => {
        if (this.entries.peek(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }

  /** Drops the entries whose key starts with `prefix` (all of them without one). */
  clear(prefix?: string): void {
    this.generation += 1;
    if (prefix === undefined) {
      this.entries.clear();
      return;
    }
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}
