import { describe, expect, it } from "vitest";
import { TtlCache } from "@/lib/server/cache";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("TtlCache", () => {
  it("computes once per key within the TTL, sharing concurrent misses", async () => {
    const cache = new TtlCache<number>({ ttlMs: 1000 });
    let calls = 0;
    const compute = async () => ++calls;
    const [a, b] = await Promise.all([cache.get("k", compute, 0), cache.get("k", compute, 0)]);
    expect([a, b, calls]).toEqual([1, 1, 1]);
    expect(await cache.get("k", compute, 999)).toBe(1);
    expect(await cache.get("k", compute, 1000)).toBe(2);
  });

  it("forgets failures, cleared keys and answers computed across a clear", async () => {
    const cache = new TtlCache<number>({ ttlMs: 1000 });
    await expect(cache.get("k", () => Promise.reject(new Error("x")), 0)).rejects.toThrow("x");
    expect(await cache.get("k", async () => 1, 0)).toBe(1);
    cache.clear("k");
    expect(await cache.get("k", async () => 2, 0)).toBe(2);
    let release!: (n: number) => void;
    const pending = cache.get("slow", () => new Promise<number>((resolve) => (release = resolve)), 0);
    cache.clear("other");
    release(3);
    expect(await pending).toBe(3);
    await tick();
    expect(await cache.get("slow", async () => 4, 0)).toBe(4);
  });

  it("serves a stale answer while refreshing it once in the background", async () => {
    const cache = new TtlCache<number>({ ttlMs: 10, staleMs: 100 });
    let calls = 0;
    const compute = async () => ++calls;
    const t0 = Date.now();
    expect(await cache.get("k", compute, t0)).toBe(1);
    const stale = [cache.get("k", compute, t0 + 50), cache.get("k", compute, t0 + 51)];
    expect(await Promise.all(stale)).toEqual([1, 1]);
    await tick();
    expect(calls).toBe(2);
    expect(await cache.get("k", compute, Date.now())).toBe(2);
    cache.clear();
    expect(await cache.get("k", compute, Date.now())).toBe(3);
  });

  it("stops sharing a computation that has not answered within the TTL", async () => {
    const cache = new TtlCache<number>({ ttlMs: 1_000, staleMs: 60_000 });
    const never = new Promise<number>(() => undefined);
    expect(cache.get("k", () => never, 0)).toBe(never);
    expect(cache.get("k", () => Promise.resolve(1), 500)).toBe(never);
    await expect(cache.get("k", () => Promise.resolve(2), 1_500)).resolves.toBe(2);
    await expect(cache.get("k", () => Promise.resolve(3), 1_600)).resolves.toBe(2);
  });

  it("holds at most maxEntries, dropping the least recently used", async () => {
    const cache = new TtlCache<string>({ ttlMs: 1000, maxEntries: 2 });
    const computed: string[] = [];
    const compute = (key: string) => async () => {
      computed.push(key);
      return key;
    };
    await cache.get("a", compute("a"), 0);
    await cache.get("b", compute("b"), 0);
    await cache.get("a", compute("a"), 1);
    await cache.get("c", compute("c"), 2);
    await cache.get("a", compute("a"), 3);
    await cache.get("b", compute("b"), 4);
    expect(computed).toEqual(["a", "b", "c", "b"]);
  });
});
