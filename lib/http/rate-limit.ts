import { LRUCache } from "lru-cache";
import { leaseRequests } from "@/lib/requests/repository";

/**
 * Token buckets in this process's memory: `capacity` requests per `windowMs` per key, refilled
 * continuously, so a burst of up to `capacity` is allowed after a quiet window. Each server
 * process counts on its own (several servers behind one address allow that many times the rate).
 */
export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity: () => number,
    private readonly windowMs = 60_000,
    private readonly maxKeys = 100_000,
  ) {}

  /** Takes one token; when none is left, says how many seconds until one is. */
  take(key: string, now = Date.now()): Verdict {
    const verdict = this.peek(key, now);
    if (verdict.allowed) this.buckets.get(key)!.tokens -= 1;
    return verdict;
  }

  /** Gives back a token taken for an attempt that turned out not to count. */
  give(key: string, now = Date.now()): void {
    const capacity = this.capacity();
    const bucket = this.refill(key, capacity, now);
    bucket.tokens = Math.min(capacity, bucket.tokens + 1);
  }

  /** Forgets the key: its next request finds a full bucket. */
  forget(key: string): void {
    this.buckets.delete(key);
  }

  /** The key's budget as the `RateLimit-*` headers say it, without taking a token. */
  state(key: string, now = Date.now()): RateState {
    const capacity = this.capacity();
    const bucket = this.refill(key, capacity, now);
    const perMs = capacity / this.windowMs;
    return {
      allowed: bucket.tokens >= 1,
      limit: capacity,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.max(1, Math.ceil((capacity - bucket.tokens) / perMs / 1000)),
    };
  }

  /** Whether a token is left, without taking it. */
  peek(key: string, now = Date.now()): Verdict {
    const capacity = this.capacity();
    const bucket = this.refill(key, capacity, now);
    if (bucket.tokens >= 1) return { allowed: true };
    const perMs = capacity / this.windowMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }

  private refill(key: string, capacity: number, now: number) {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.evict(capacity, now);
      bucket = { tokens: capacity, at: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(capacity, bucket.tokens + (elapsed * capacity) / this.windowMs);
    bucket.at = now;
    return bucket;
  }

  /** Forgets the buckets that have refilled (they hold no information), else the oldest. */
  private evict(capacity: number, now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) * capacity) / this.windowMs >= capacity) this.buckets.delete(key);
    }
    if (this.buckets.size >= this.maxKeys) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
  }
}


/** What the `RateLimit-*` headers say of a caller's budget (docs/api.md#rate-limits). */
export interface RateState {
  allowed: boolean;
  limit: number;
  /** Requests left in the window (an upper bound: see {@link SharedRateLimiter}). */
  remaining: number;
  /** Seconds until the window ends and the budget is whole again. */
  resetSeconds: number;
}

/** Leases the next `batch` requests of a caller's window; the window's count after the lease. */
export type LeaseStore = (caller: string, windowStart: number, batch: number, expiresAt: Date) => Promise<number>;

interface Lease {
  window: number;
  /** Requests of the lease this process has not used yet. */
  left: number;
  /** The window's count at the last lease: every process's leases together. */
  leased: number;
  /** The window's budget is all leased: nothing more to get until it ends. */
  exhausted: boolean;
  refilling?: Promise<void>;
}

/**
 * A per-caller budget of `capacity()` requests per fixed window, shared by every server process
 * over the database without a round trip per request: a process leases a batch of the window's
 * requests from the caller's counter document with one atomic `$inc`, spends it from memory, and
 * leases again when it runs out. The leases of a window never add up to more than the budget, so
 * the limit is never exceeded; what one process has leased and not used is not available to the
 * others, so a caller can be refused up to (processes − 1) × (batch − 1) requests early in a
 * window (docs/security.md#rate-limits).
 */
export class SharedRateLimiter {
  private readonly leases = new LRUCache<string, Lease>({ max: 100_000 });

  constructor(
    private readonly capacity: () => number,
    private readonly store: LeaseStore = leaseRequests,
    private readonly windowMs = 60_000,
  ) {}

  /** Requests one process leases at a time: a tenth of the budget, from 1 to 100. */
  static batchOf(limit: number): number {
    return Math.max(1, Math.min(100, Math.floor(limit / 10)));
  }

  /** Takes one request of the caller's budget, leasing more when this process has none left. */
  async take(caller: string, now = Date.now()): Promise<RateState> {
    const limit = this.capacity();
    const window = now - (now % this.windowMs);
    const resetSeconds = Math.max(1, Math.ceil((window + this.windowMs - now) / 1000));
    let lease = this.leases.get(caller);
    if (!lease || lease.window !== window) {
      lease = { window, left: 0, leased: 0, exhausted: false };
      this.leases.set(caller, lease);
    }
    // Concurrent requests share one lease; one that finds it spent by the others leases again.
    while (lease.left === 0 && !lease.exhausted) {
      lease.refilling ??= this.refill(caller, lease, limit).finally(() => (lease.refilling = undefined));
      await lease.refilling;
    }
    if (lease.left === 0) return { allowed: false, limit, remaining: 0, resetSeconds };
    lease.left -= 1;
    return { allowed: true, limit, remaining: lease.left + Math.max(0, limit - lease.leased), resetSeconds };
  }

  private async refill(caller: string, lease: Lease, limit: number): Promise<void> {
    const batch = SharedRateLimiter.batchOf(limit);
    const count = await this.store(caller, lease.window, batch, new Date(lease.window + 2 * this.windowMs));
    // This lease is the requests numbered count − batch to count − 1; those past the budget are not granted.
    const granted = Math.max(0, Math.min(batch, limit - (count - batch)));
    lease.leased = count;
    lease.left += granted;
    if (granted < batch) lease.exhausted = true;
  }
}

/**
 * The `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers of an answer (and its
 * `Retry-After` when it is a `429` without one); the limit names its policy, `600, 600;w=60`.
 */
export function setRateLimitHeaders(response: Response, state: RateState, windowSeconds = 60): void {
  response.headers.set("RateLimit-Limit", `${state.limit}, ${state.limit};w=${windowSeconds}`);
  response.headers.set("RateLimit-Remaining", String(state.remaining));
  response.headers.set("RateLimit-Reset", String(state.resetSeconds));
  if (response.status === 429 && !response.headers.has("Retry-After")) response.headers.set("Retry-After", String(state.resetSeconds));
}
