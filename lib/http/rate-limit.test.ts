import { describe, expect, it } from "vitest";
import { call, createTenant } from "@/lib/testing/http";
import { useTestDatabase } from "@/lib/testing/database";
import * as users from "@/app/v2/users/route";
import * as login from "@/app/api/auth/login/route";

// The configuration is read on each request, so this file's processes run with a low limit.
process.env.RATE_LIMIT_PER_MINUTE = "5";

describe("rate limit (RATE_LIMIT_PER_MINUTE)", () => {
  useTestDatabase();

  it("answers 429 rate_limited with Retry-After once a token has used its minute, per token", async () => {
    const t = await createTenant("Limited");
    for (let i = 0; i < 5; i++) expect((await call(users.GET, "/v2/users", { token: t.adminToken })).status).toBe(200);
    const limited = await call(users.GET, "/v2/users?debug=true", { token: t.adminToken });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    // One request comes back every 12 seconds; the five before took some of that already.
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(12);
    expect(limited.body.debug).toEqual([{ level: "error", code: "rate_limited", message: limited.body.error.message }]);
    expect((await call(users.GET, "/v2/users", { token: t.memberToken })).status).toBe(200);
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
