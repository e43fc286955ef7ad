/**
 * Token buckets in this process's memory: `perMinute` requests a minute per key, refilled
 * continuously, so a burst of up to `perMinute` is allowed after a quiet minute. Each server
 * process counts on its own (several servers behind one address allow that many times the rate).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: () => number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Takes one token; when none is left, the number of seconds until one is. */
  take(key: string, now = Date.now()): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const capacity = this.perMinute();
    const bucket = this.refill(key, capacity, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    const perMs = capacity / 60_000;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }

  /** Whether a token is left, without taking it. */
  peek(key: string, now = Date.now()): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const capacity = this.perMinute();
    const bucket = this.refill(key, capacity, now);
    if (bucket.tokens >= 1) return { allowed: true };
    const perMs = capacity / 60_000;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }

  private refill(key: string, capacity: number, now: number) {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.maxKeys) this.evictFull(capacity, now);
      bucket = { tokens: capacity, at: now };
      this.buckets.set(key, bucket);
      return bucket;
    }
    const elapsed = Math.max(0, now - bucket.at);
    bucket.tokens = Math.min(capacity, bucket.tokens + (elapsed * capacity) / 60_000);
    bucket.at = now;
    return bucket;
  }

  /** Forgets the buckets that have refilled (they hold no information), else the oldest. */
  private evictFull(capacity: number, now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) * capacity) / 60_000 >= capacity) this.buckets.delete(key);
    }
    if (this.buckets.size >= this.maxKeys) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
  }
}
