/**
 * A small time-limited memo of this process. Concurrent misses of one key share one computation,
 * and `clear()` drops everything (called after writes that could change the answers). Other
 * processes' writes are seen once an entry expires, so answers lag them by at most the TTL.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expires: number }>();
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, compute: () => Promise<V>, now = Date.now()): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (this.entries.size >= this.maxEntries) this.evict(now);
    const generation = this.generation;
    const value = compute();
    this.entries.set(key, { value, expires: now + this.ttlMs });
    // A failure is not remembered, nor an answer computed across a clear().
    value.then(
      () => {
        if (generation !== this.generation) this.entries.delete(key);
      },
      () => this.entries.delete(key),
    );
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Drops the entries whose key starts with `prefix` (all of them without one). */
  clear(prefix?: string): void {
    this.generation += 1;
    if (prefix === undefined) {
      this.entries.clear();
      return;
    }
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  private evict(now: number): void {
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }
}
