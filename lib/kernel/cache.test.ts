import { type CacheOptions, newCache } from "@/lib/kernel/cache";
import { afterEach, describe, expect, it, vi } from "vitest";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A cache on a clock the test moves (only `Date` is faked), so that no answer depends on how fast the machine runs. */
function cacheAt<V extends NonNullable<unknown>>(options: Omit<CacheOptions<V, () => Promise<V>>, "load">) {
  const start = 1_000_000;
  vi.useFakeTimers({ toFake: ["Date"], now: start });
  const cache = newCache<V, () => Promise<V>>({ ...options, load: (_key, compute) => compute() });
  return { cache, at: (ms: number) => (vi.setSystemTime(start + ms), cache) };
}

describe("newCache (lru-cache's fetch)", () => {
  afterEach(() => vi.useRealTimers());

  it("computes once per key within the TTL, sharing concurrent misses", async () => {
    const { cache, at } = cacheAt<number>({ ttlMs: 1000 });
    let calls = 0;
    const compute = async () => ++calls;
    const [a, b] = await Promise.all([cache.fetch("k", compute), cache.fetch("k", compute)]);
    expect([a, b, calls]).toEqual([1, 1, 1]);
    expect(await at(999).fetch("k", compute)).toBe(1);
    expect(await at(1000).fetch("k", compute)).toBe(2);
  });

  it("forgets failures, cleared keys and answers computed across a clear", async () => {
    const { cache } = cacheAt<number>({ ttlMs: 1000 });
    await expect(cache.fetch("k", () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(await cache.fetch("k", async () => 1)).toBe(1);
    cache.clear("k");
    expect(await cache.fetch("k", async () => 2)).toBe(2);
    let release!: (n: number) => void;
    const pending = cache.fetch("slow", () => new Promise<number>((resolve) => (release = resolve)));
    cache.clear("slo");
    release(3);
    expect(await pending).toBe(3);
    await tick();
    expect(await cache.fetch("slow", async () => 4)).toBe(4);
  });

  it("serves a stale answer while refreshing it once in the background", async () => {
    const { cache, at } = cacheAt<number>({ ttlMs: 10, staleMs: 100 });
    let calls = 0;
    const compute = async () => ++calls;
    expect(await cache.fetch("k", compute)).toBe(1);
    const stale = [at(50).fetch("k", compute), at(51).fetch("k", compute)];
    expect(await Promise.all(stale)).toEqual([1, 1]);
    await tick();
    expect(calls).toBe(2);
    // The refreshed answer is fresh from when it arrived (51), so it is served without a third call.
    expect(await at(60).fetch("k", compute)).toBe(2);
    expect(calls).toBe(2);
    cache.clear();
    expect(await cache.fetch("k", compute)).toBe(3);
    // Past the stale window an answer is not served at all: the caller waits for a new one.
    expect(await at(60 + 100).fetch("k", compute)).toBe(4);
  });

  it("keeps the stale answer when its refresh fails", async () => {
    const { cache, at } = cacheAt<number>({ ttlMs: 10, staleMs: 100 });
    expect(await cache.fetch("k", async () => 1)).toBe(1);
    expect(await at(20).fetch("k", () => Promise.reject(new Error("gone")))).toBe(1);
    await tick();
    expect(await at(30).fetch("k", async () => 2)).toBe(1);
  });

  it("stops sharing a computation that has not answered within the TTL", async () => {
    const { cache, at } = cacheAt<number>({ ttlMs: 1_000, staleMs: 60_000 });
    let started = 0;
    const never = () => (started++, new Promise<number>(() => undefined));
    void cache.fetch("k", never);
    void at(500).fetch("k", never);
    expect(started).toBe(1);
    await expect(at(1_500).fetch("k", () => Promise.resolve(2))).resolves.toBe(2);
    await expect(at(1_600).fetch("k", () => Promise.resolve(3))).resolves.toBe(2);
  });

  it("holds at most maxEntries, dropping the least recently used", async () => {
    const { cache, at } = cacheAt<string>({ ttlMs: 1000, maxEntries: 2 });
    const computed: string[] = [];
    const compute = (key: string) => async () => {
      computed.push(key);
      return key;
    };
    await cache.fetch("a", compute("a"));
    await cache.fetch("b", compute("b"));
    await at(1).fetch("a", compute("a"));
    await at(2).fetch("c", compute("c"));
    await at(3).fetch("a", compute("a"));
    await at(4).fetch("b", compute("b"));
    expect(computed).toEqual(["a", "b", "c", "b"]);
  });
});
