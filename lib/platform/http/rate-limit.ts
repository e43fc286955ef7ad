import { ServiceError } from "@/lib/kernel/errors";
import { leaseRequests } from "@/lib/resources/requests/repository";
import { LRUCache } from "lru-cache";

/**
 * Every request budget of the product lives in the database, so that N server processes allow
 * the rate once, not N times (docs/security.md#rate-limits): the per-caller and company-wide
 * budgets and the per-address ones of public routes and refused credentials are
 * {@link SharedRateLimiter}s (fixed windows, leased in batches); the sign-in throttle counts each
 * attempt in the database itself (./sign-in-throttle.ts).
 */

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
    if (lease?.window !== window) {
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

  /**
   * The caller's budget as this process knows it, without taking a request or asking the
   * database: what it holds and what nobody had leased at its last lease (an upper bound).
   */
  state(caller: string, now = Date.now()): RateState {
    const limit = this.capacity();
    const window = now - (now % this.windowMs);
    const resetSeconds = Math.max(1, Math.ceil((window + this.windowMs - now) / 1000));
    const lease = this.leases.get(caller);
    if (lease?.window !== window) return { allowed: true, limit, remaining: limit, resetSeconds };
    const remaining = lease.left + Math.max(0, limit - lease.leased);
    return { allowed: remaining > 0, limit, remaining, resetSeconds };
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

/** Of two budgets a request counted against, the one the headers describe: the one with fewer requests left. */
export const tighter = (a: RateState, b: RateState): RateState =>
  b.remaining < a.remaining || (!b.allowed && a.allowed) ? b : a;

/**
 * `429 rate_limited`, carrying the budget that refused: its `Retry-After` and the `RateLimit-*`
 * headers of the answer are made from that one state, so they always agree (docs/api.md#rate-limits).
 */
export class RateLimitedError extends ServiceError {
  constructor(
    readonly state: RateState,
    readonly windowSeconds = 60,
    message = "Too many requests; try again later.",
  ) {
    super("rate_limited", message, undefined, { "Retry-After": String(state.resetSeconds) });
  }
}

/**
 * The `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers of an answer, and its
 * `Retry-After` when it is a `429`, the same number as `RateLimit-Reset`; the limit names its
 * policy, `600, 600;w=60`.
 */
export function setRateLimitHeaders(response: Response, state: RateState, windowSeconds = 60): void {
  response.headers.set("RateLimit-Limit", `${state.limit}, ${state.limit};w=${windowSeconds}`);
  response.headers.set("RateLimit-Remaining", String(state.remaining));
  response.headers.set("RateLimit-Reset", String(state.resetSeconds));
  if (response.status === 429) response.headers.set("Retry-After", String(state.resetSeconds));
}
