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

