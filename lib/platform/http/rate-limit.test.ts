import * as login from "@/app/api/auth/login/route";
import * as users from "@/app/v2/users/route";
import { oid } from "@/lib/kernel/ids";
import { createApiKey } from "@/lib/resources/api-keys/service";
import { leaseRequests, RateCounter } from "@/lib/resources/requests/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, notesOf } from "@/lib/tools/testing/http";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { SharedRateLimiter } from "./rate-limit";

// The configuration is read on each request, so this file's processes run with a low limit.
process.env.RATE_LIMIT_PER_MINUTE = "5";

const INTEGER = /^\d+$/;

/** Fixed windows: a test's requests must fall in one, so the clock stands a second into the next minute. */
function atStartOfAMinute(): void {
  const now = Date.now();
  vi.useFakeTimers({ toFake: ["Date"], now: now - (now % 60_000) + 61_000 });
  onTestFinished(() => void vi.useRealTimers());
}

/** Every 429 says when to come back once, in both headers: `Retry-After` and `RateLimit-Reset` agree. */
function expectAgreeingHeaders(limited: { status: number; headers: Headers }, limit: string, maxSeconds: number): void {
  expect(limited.status).toBe(429);
  const retryAfter = limited.headers.get("retry-after")!;
  expect(retryAfter).toMatch(INTEGER);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(maxSeconds);
  expect(limited.headers.get("ratelimit-reset")).toBe(retryAfter);
  expect(limited.headers.get("ratelimit-remaining")).toBe("0");
  expect(limited.headers.get("ratelimit-limit")).toBe(limit);
}

describe("rate limit (RATE_LIMIT_PER_MINUTE)", () => {
  useTestDatabase();

  it("answers 429 rate_limited with Retry-After once a caller has used its minute, per caller", async () => {
    const t = await createTenant("Limited");
    atStartOfAMinute();
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
    const refused = await call(users.GET, "/v2/users", {
      token: "not-a-token",
      headers: { "x-forwarded-for": "10.9.9.9" },
    });
    expect(refused.status).toBe(401);
    for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"])
      expect(refused.headers.get(name)).toMatch(/^\d+/);
    const notAllowed = await call(users.DELETE, "/v2/users", { method: "DELETE" });
    expect(notAllowed.status).toBe(405);
    for (const name of ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"])
      expect(notAllowed.headers.get(name)).toMatch(/^\d+/);
  });

  it("limits sign-in attempts per client address", async () => {
    atStartOfAMinute();
    const attempt = (address: string) =>
      call(login.POST, "/api/auth/login", {
        body: { email: `someone@${address}.io`, password: "x" },
        headers: { "x-forwarded-for": address },
      });
    for (let i = 0; i < 5; i++) expect((await attempt("10.0.0.1")).status).toBe(401);
    const limited = await attempt("10.0.0.1");
    expectAgreeingHeaders(limited, "5, 5;w=60", 60);
    expect((await attempt("10.0.0.2")).status).toBe(401);
  });

  it("holds every key of a company to one company-wide ceiling: minting keys does not multiply the rate", async () => {
    process.env.RATE_LIMIT_COMPANY_PER_MINUTE = "12";
    onTestFinished(() => void delete process.env.RATE_LIMIT_COMPANY_PER_MINUTE);
    const t = await createTenant("Ceiling");
    const other = await createTenant("Elsewhere");
    const auth = { userId: t.adminId, companyId: t.companyId, sessionId: "", accessRoles: [oid(t.adminRoleId)] };
    const keys = await Promise.all(
      [1, 2, 3].map((i) => createApiKey(auth, { name: `key ${i}`, scopes: ["users:read"] })),
    );
    atStartOfAMinute();
    const get = (token: string) => call(users.GET, "/v2/users", { token });
    // Three keys of five requests a minute each would be 15: the company has 12.
    const statuses: number[] = [];
    for (const { key } of keys) for (let i = 0; i < 5; i++) statuses.push((await get(key!)).status);
    expect(statuses).toEqual([...Array(12).fill(200), 429, 429, 429]);
    // The company's users count against it too, with their own budget untouched; another company does not.
    const limited = await get(t.adminToken);
    expectAgreeingHeaders(limited, "12, 12;w=60", 60);
    expect(failure(limited).code).toBe("rate_limited");
    expect((await get(other.adminToken)).status).toBe(200);
    // A key with budget of its own left is still refused: the ceiling is the company's.
    const fresh = await createApiKey(auth, { name: "key 5", scopes: ["users:read"] });
    expect((await get(fresh.key!)).status).toBe(429);
  });

  it("describes the tighter budget in the headers: the caller's, or the company's once it has less left", async () => {
    process.env.RATE_LIMIT_COMPANY_PER_MINUTE = "7";
    onTestFinished(() => void delete process.env.RATE_LIMIT_COMPANY_PER_MINUTE);
    const t = await createTenant("Tighter");
    atStartOfAMinute();
    const first = await call(users.GET, "/v2/users", { token: t.adminToken });
    expect([first.headers.get("ratelimit-limit"), first.headers.get("ratelimit-remaining")]).toEqual([
      "5, 5;w=60",
      "4",
    ]);
    for (let i = 0; i < 4; i++) await call(users.GET, "/v2/users", { token: t.memberToken });
    const sixth = await call(users.GET, "/v2/users", { token: t.adminToken });
    expect([sixth.headers.get("ratelimit-limit"), sixth.headers.get("ratelimit-remaining")]).toEqual([
      "7, 7;w=60",
      "1",
    ]);
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
    const verdicts = await Promise.all(
      Array.from({ length: 90 }, (_, i) => limiters[i % 3].take("key:burst", minute + 120_000)),
    );
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
