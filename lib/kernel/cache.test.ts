import { describe, expect, it } from "vitest";
import { TtlCache, type TtlCacheOptions } from "@/lib/kernel/cache";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A cache on a clock the test moves, so that no answer depends on how fast the machine runs. */
function cacheAt<V>(options: Omit<TtlCacheOptions, "clock">) {
  const clock = { now: 0 };
  const cache = new TtlCache<V>({ ...options, clock: () => clock.now });
  return { cache, at: (ms: number) => ((clock.now = ms), cache) };
}

describe("TtlCache", () => {
  it("computes once per key within the TTL, sharing concurrent misses", async () => {
    const { cache, at } = cacheAt<number>({ ttlMs: 1000 });
    let calls = 0;
    const compute = async () => ++calls;
    const [a, b] = await Promise.all([cache.get("k", compute), cache.get("k", compute)]);
    expect([a, b, calls]).toEqual([1, 1, 1]);
    expect(await at(999).get("k", compute)).toBe(1);
    expect(await at(1000).get("k", compute)).toBe(2);
  });

  it("forgets failures, cleared keys and answers computed across a clear", async () => {
    const { cache } = cacheAt<number>({ ttlMs: 1000 });
    await expect(cache.get("k", () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(await cache.get("k", async () => 1)).toBe(1);
    cache.clear("k");
    expect(await cache.get("k", async () => 2)).toBe(2);
    let release!: (n: number) => void;
    const pending = cache.get("slow", () => new Promise<number>((resolve) => (release = resolve)));
    cache.clear("other");
    release(3);
    expect(await pending).toBe(3);
    await tick();
    expect(await cache.get("slow", async () => 4)).toBe(4);
  });

  it("serves a stale answer while refreshing it once in the background", async () => {
    const { cache, at } = cacheAt<number>({ ttlMs: 10, staleMs: 100 });
    let calls = 0;
    const compute = async () => ++calls;
    expect(await cache.get("k", compute)).toBe(1);
    const stale = [at(50).get("k", compute), at(51).get("k", compute)];
    expect(await Promise.all(stale)).toEqual([1, 1]);
    await tick();
    expect(calls).toBe(2);
    // The refreshed answer is fresh from when it arrived (51), so it is served without a third call.
    expect(await at(60).get("k", compute)).toBe(2);
    expect(calls).toBe(2);
    cache.clear();
    expect(await cache.get("k", compute)).toBe(3);
    // Past the stale window an answer is not served at all: the caller waits for a new one.
    expect(await at(60 + 100).get("k", compute)).toBe(4);
  });

  it("stops sharing a computation that has not answered within the TTL", async () => {
    const { cache, at } = cacheAt<number>({ ttlMs: 1_000, staleMs: 60_000 });
    const never = new Promise<number>(() => undefined);
    expect(cache.get("k", () => never)).toBe(never);
    expect(at(500).get("k", () => Promise.resolve(1))).toBe(never);
    await expect(at(1_500).get("k", () => Promise.resolve(2))).resolves.toBe(2);
    await expect(at(1_600).get("k", () => Promise.resolve(3))).resolves.toBe(2);
  });

  it("holds at most maxEntries, dropping the least recently used", async () => {
    const { cache, at } = cacheAt<string>({ ttlMs: 1000, maxEntries: 2 });
    const computed: string[] = [];
    const compute = (key: string) => async () => {
      computed.push(key);
      return key;
    };
    await cache.get("a", compute("a"));
    await cache.get("b", compute("b"));
    await at(1).get("a", compute("a"));
    await at(2).get("c", compute("c"));
    await at(3).get("a", compute("a"));
    await at(4).get("b", compute("b"));
    expect(computed).toEqual(["a", "b", "c", "b"]);
  });
});
