import { LRUCache } from "lru-cache";

/**
 * A small time-limited memo of this process: lru-cache's `fetch`, its `fetchMethod` computing an
 * answer, bounded to `maxEntries` (the least recently used go first). Concurrent misses of one key
 * share one computation, and `clear()` drops entries (called after writes that could change the
 * answers). Other processes' writes are seen once an entry expires, so answers lag them by at most
 * the TTL (or, with `staleMs`, by at most that).
 */
export interface CacheOptions<V, C> {
  /** How long an answer is served as it is. */
  ttlMs: number;
  /**
   * Up to this age an expired answer is still served while a fresh one is computed in the
   * background, so that a slow computation does not make every caller wait each TTL.
   */
  staleMs?: number;
  maxEntries?: number;
  /** Computes the answer of `key`; `context` is what the caller passed to `fetch` (the filter to count, say). */
  load: (key: string, context: C) => Promise<V>;
}

interface Cache<V, C> {
  /** The answer of `key`: cached, stale while refreshed (within `staleMs`), or computed now. */
  fetch(key: string, context: C): Promise<V>;
  /** Drops the entries whose key starts with `prefix` (all of them without one). */
  clear(prefix?: string): void;
}

export function newCache<V extends NonNullable<unknown>, C = undefined>(options: CacheOptions<V, C>): Cache<V, C> {
  // lru-cache takes an entry for stale once its age is past `ttl`; an answer is fresh while younger than `ttlMs`.
  const ttl = Math.max(options.ttlMs - 1, 1);
  const staleMs = Math.max(options.staleMs ?? 0, options.ttlMs);
  const cache = new LRUCache<string, V, C>({
    max: options.maxEntries ?? 10_000,
    ttl,
    // Read through `Date.now` at each call, so that a faked clock (vi.useFakeTimers) reaches it.
    ttlResolution: 0,
    perf: { now: () => Date.now() },
    allowStale: options.staleMs !== undefined,
    // A failed refresh keeps the stale answer until it ages out; a failed first computation is not remembered.
    noDeleteOnFetchRejection: true,
    // An entry dropped (clear()) while computed still answers whoever waits for it, but is not stored.
    ignoreFetchAbort: true,
    fetchMethod: (key, _stale, { context }) => options.load(key, context),
  });
  // lru-cache's keys() leaves out the computations still pending: clear() must drop them too.
  const computing = new Map<string, number>();
  const settled = (key: string) => {
    const left = (computing.get(key) ?? 1) - 1;
    if (left > 0) computing.set(key, left);
    else computing.delete(key);
  };
  return {
    fetch(key, context) {
      const remaining = cache.getRemainingTTL(key);
      if (remaining !== 0) {
        const age = ttl - remaining;
        const answered = cache.peek(key, { allowStale: true }) !== undefined;
        // Past the stale window an answer is not served at all; and a computation still pending past
        // the TTL (one started as the database went away, say) is not shared any longer: a new one is started.
        if (age >= staleMs || (!answered && age > ttl)) cache.delete(key);
      }
      computing.set(key, (computing.get(key) ?? 0) + 1);
      // lru-cache types `context` by overloads that a generic `C` cannot pick between.
      const answer = cache.fetch(key, { context } as never) as Promise<V>;
      answer.then(
        () => settled(key),
        () => settled(key),
      );
      return answer;
    },
    clear(prefix) {
      if (prefix === undefined) {
        cache.clear();
        computing.clear();
        return;
      }
      for (const key of new Set([...cache.keys(), ...computing.keys()])) if (key.startsWith(prefix)) cache.delete(key);
    },
  };
}
