import { describe, expect, it, onTestFinished, vi } from "vitest";
import { call, createTenant, failure, notesOf } from "@/lib/testing/http";
import { useTestDatabase } from "@/lib/testing/database";
import { leaseRequests, RateCounter } from "@/lib/requests/repository";
import * as users from "@/app/v2/users/route";
import * as login from "@/app/api/auth/login/route";
import { SharedRateLimiter } from "./rate-limit";

// The configuration is read on each request, so this file's processes run with a low limit.
process.env.RATE_LIMIT_PER_MINUTE = "5";

const INTEGER = /^\d+$/;

describe("rate limit (RATE_LIMIT_PER_MINUTE)", () => {
  useTestDatabase();

  it("answers 429 rate_limited with Retry-After once a caller has used its minute, per caller", async () => {
    const t = await createTenant("Limited");
    // The six requests must fall in one fixed window: the clock stands a second into the next minute.
    const now = Date.now();
    vi.useFakeTimers({ toFake: ["Date"], now: now - (now % 60_000) + 61_000 });
    onTestFinished(() => void vi.useRealTimers());
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await call(users.GET, "/v2/users", { token: t.adminToken });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("ratelimit-limit")).toBe("5, 5;w=60");
      expect(answer.headers.get("ratelimit-reset")).toMatch(INTEGER);
      remaining.push(Number(answer.headers.get("ratelimit-remaining")));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const limited = await call(users.GET, "/v2/users?debug=true", { token: t.adminToken });
    expect(limited.status).toBe(429);
    expect(failure(limited).code).toBe("rate_limited");
    // The budget comes back whole when the minute's window ends.
    const retryAfter = limited.headers.get("retry-after")!;
    expect(retryAfter).toMatch(INTEGER);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("ratelimit-reset")).toBe(retryAfter);
    expect(notesOf(limited)).toEqual([{ level: "error", code: "rate_limited", message: failure(limited).message }]);
    expect((await call(users.GET, "/v2/users", { token: t.memberToken })).status).toBe(200);
  });

  it("puts the rate-limit headers on answers without a caller too (a refused token counts against its address)", async () => {
    const refused = await call(users.GET, "/v2/users", { token: "not-a-token", headers: { "x-forwarded-for": "10.9.9.9" } });
    expect(refused.status).toBe(401);
    for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) expect(refused.headers.get(name)).toMatch(/^\d+/);
    const notAllowed = await call(users.DELETE, "/v2/users", { method: "DELETE" });
    expect(notAllowed.status).toBe(405);
    for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]) expect(notAllowed.headers.get(name)).toMatch(/^\d+/);
  });

  it("limits sign-in attempts per client address", async () => {
    const attempt = (address: string) =>
      call(login.POST, "/api/auth/login", { body: { email: `someone@${address}.io`, password: "x" }, headers: { "x-forwarded-for": address } });
    for (let i = 0; i < 5; i++) expect((await attempt("10.0.0.1")).status).toBe(401);
    const limited = await attempt("10.0.0.1");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await attempt("10.0.0.2")).status).toBe(401);
  });
});

describe("the shared limiter (several server processes, one database)", () => {
  useTestDatabase();
  const minute = Date.UTC(2026, 10, 25, 15, 0, 0);

  it("two limiters over one database share one budget per caller and window", async () => {
    let trips = 0;
    const store = (...args: Parameters<typeof leaseRequests>) => ((trips += 1), leaseRequests(...args));
    const a = new SharedRateLimiter(() => 50, store);
    const b = new SharedRateLimiter(() => 50, store);
    let allowed = 0;
    for (let i = 0; i < 60; i++) {
      const limiter = i % 2 === 0 ? a : b;
      if ((await limiter.take("user:shared", minute + i)).allowed) allowed += 1;
    }
    // Batches of five: each limiter leases five requests at a time, so 50 requests took 10 leases, not 50 round trips.
    expect(allowed).toBe(50);
    expect(trips).toBeLessThanOrEqual(12);
    expect((await a.take("user:shared", minute + 100)).allowed).toBe(false);
    expect((await a.take("user:other", minute + 100)).allowed).toBe(true);
    // A new window, a whole budget.
    expect((await b.take("user:shared", minute + 60_000)).allowed).toBe(true);
  });

  it("never lets the processes together exceed the budget, whatever the order", async () => {
    const limiters = [0, 1, 2].map(() => new SharedRateLimiter(() => 30));
    const verdicts = await Promise.all(Array.from({ length: 90 }, (_, i) => limiters[i % 3].take("key:burst", minute + 120_000)));
    expect(verdicts.filter((verdict) => verdict.allowed)).toHaveLength(30);
    const counter = await RateCounter.findById(`key:burst|${minute + 120_000}`).lean();
    expect(counter!.count).toBeGreaterThanOrEqual(30);
    expect(counter!.expiresAt.getTime()).toBe(minute + 240_000);
  });

  it("reports the remaining requests as what this process holds and what nobody has leased yet", async () => {
    const limiter = new SharedRateLimiter(() => 100);
    const first = await limiter.take("user:count", minute);
    expect(first).toEqual({ allowed: true, limit: 100, remaining: 99, resetSeconds: 60 });
    const second = await limiter.take("user:count", minute + 30_500);
    expect(second).toEqual({ allowed: true, limit: 100, remaining: 98, resetSeconds: 30 });
  });
});
