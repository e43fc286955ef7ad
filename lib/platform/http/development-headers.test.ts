/**
 * Under `next dev` there is no server entry, and the proxy serves only the pages: the answers of
 * the API's route handlers carry the security headers themselves (docs/security.md#headers).
 */
import * as token from "@/app/api/auth/token/route";
import * as live from "@/app/api/health/live/route";
import * as missing from "@/app/v2/[...path]/route";
import * as users from "@/app/v2/users/route";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { afterEach, describe, expect, it, vi } from "vitest";

const request = (path: string, method = "GET") => new Request(`http://localhost:3000${path}`, { method });
const params = { params: Promise.resolve({}) };

describe("the API's answers under next dev", () => {
  useTestDatabase();
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const answers = async () => ({
    "a /v2 error (no token)": await users.GET(request("/v2/users"), params),
    "a /v2 method the path lacks": await users.PUT(request("/v2/users", "PUT"), params),
    "an /api answer": await token.GET(request("/api/auth/token"), params),
    "a health check": await live.GET(request("/api/health/live")),
    "a path no route serves": await missing.GET(request("/v2/no-such-resource"), params),
  });

  it("carry the policy, nosniff, no framing and a Referrer-Policy, with a nonce each", async () => {
    vi.stubEnv("NODE_ENV", "development");
    const nonces = new Set<string>();
    for (const [kind, response] of Object.entries(await answers())) {
      const policy = response.headers.get("content-security-policy");
      expect(policy, kind).toMatch(/^default-src 'self'; script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
      expect(policy, kind).toContain("frame-ancestors 'none'");
      nonces.add(/'nonce-([^']+)'/.exec(policy!)![1]);
      expect(response.headers.get("x-frame-options"), kind).toBe("DENY");
      expect(response.headers.get("x-content-type-options"), kind).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), kind).toBe("same-origin");
    }
    expect(nonces.size).toBe(5);
  });

  it("leave them to the server entry in production, which puts them on every answer before Next.js writes it", async () => {
    vi.stubEnv("NODE_ENV", "production");
    for (const [kind, response] of Object.entries(await answers()))
      expect(response.headers.get("content-security-policy"), kind).toBeNull();
  });
});
