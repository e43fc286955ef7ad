import { NextRequest } from "next/server";
// Next's own reader of the nonce: the policy must be one it understands.
import { parseTrustProxy } from "@/lib/base/config/trust-proxy";
import { config, proxy } from "@/proxy";
import * as staticInfo from "next/dist/build/analysis/get-page-static-info";
import { getScriptNonceFromHeader } from "next/dist/server/app-render/get-script-nonce-from-header";
import { afterEach, describe, expect, it } from "vitest";
import { contentSecurityPolicy, createNonce, proxyTrusted, servedOverHttps } from "./security-headers";

/** The directives of a policy, by name. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(";")
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  );
}

/** What Next.js passes on to the renderer as the request's Content-Security-Policy. */
const forwardedPolicy = (response: Response) => response.headers.get("x-middleware-request-content-security-policy");

const run = (path: string, headers: Record<string, string> = {}) =>
  proxy(new NextRequest(new URL(path, "http://localhost:3000"), { headers }));

// Every kind of answer the proxy gives its headers: pages, the API reference, 404s of pages,
// static files. The API's answers get the same headers from the server entry (edge.test.ts).
const PATHS = [
  "/",
  "/sign-in",
  "/users",
  "/surveys/0123456789abcdef01234567/edit",
  "/invitation/some-token",
  "/docs",
  "/no-such-page",
  "/_next/static/chunks/app.js",
  "/icon.svg",
];

describe("where the proxy runs", () => {
  // The matchers as Next.js compiles them from the proxy's config into its build.
  // Next.js' own compiler of the matchers into its build; exported, though not in its types.
  const { getMiddlewareMatchers } = staticInfo as unknown as {
    getMiddlewareMatchers(matcher: string[], nextConfig: object): { regexp: string }[];
  };
  const matchers = getMiddlewareMatchers(config.matcher, {}).map(({ regexp }) => new RegExp(regexp));
  const proxied = (pathname: string) => matchers.some((matcher) => matcher.test(pathname));

  it("runs for every page, 404 page and static file", () => {
    for (const pathname of [...PATHS, "/v2", "/api", "/metrics/x", "/v2x/users"])
      expect(proxied(pathname), pathname).toBe(true);
  });

  it("leaves every path of the API to the server entry and the route wrapper", () => {
    for (const pathname of [
      "/v2/users",
      "/v2/users/ffffffffffffffffffffffff",
      "/v2/users/import",
      "/v2/openapi.json",
      "/v2/no-such-resource",
      "/api/health",
      "/api/auth/token",
      "/api/no-such-path",
      "/metrics",
    ])
      expect(proxied(pathname), pathname).toBe(false);
  });
});

describe("the proxy's headers", () => {
  afterEach(() => {
    delete process.env.TRUST_PROXY;
  });

  it.each(PATHS)(
    "%s: a policy with a fresh nonce, nosniff, no framing, a Referrer-Policy; no HSTS over HTTP",
    async (path) => {
      const response = run(path);
      const policy = response.headers.get("content-security-policy")!;
      const parsed = directives(policy);
      expect(parsed.get("default-src")).toEqual(["'self'"]);
      expect(parsed.get("script-src")).toEqual([
        "'self'",
        expect.stringMatching(/^'nonce-[A-Za-z0-9+/]{22}=='$/),
        "'strict-dynamic'",
      ]);
      expect(parsed.get("frame-ancestors")).toEqual(["'none'"]);
      expect(parsed.get("object-src")).toEqual(["'none'"]);
      expect(parsed.get("base-uri")).toEqual(["'self'"]);
      expect(parsed.get("form-action")).toEqual(["'self'"]);
      expect(policy).not.toContain("unsafe-eval");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
      expect(response.headers.get("strict-transport-security")).toBeNull();
      expect(response.headers.get("x-powered-by")).toBeNull();
      // The renderer gets the very policy the browser gets, and reads the same nonce from it.
      expect(forwardedPolicy(response)).toBe(policy);
      expect(getScriptNonceFromHeader(policy)).toBe(/'nonce-([^']+)'/.exec(policy)![1]);
    },
  );

  it("gives each request a nonce of its own", () => {
    const nonces = new Set(
      Array.from({ length: 200 }, () =>
        getScriptNonceFromHeader(run("/users").headers.get("content-security-policy")!),
      ),
    );
    expect(nonces.size).toBe(200);
  });

  it("replaces a policy the client sent, so the renderer never uses a nonce the client chose", () => {
    const response = run("/users", {
      "Content-Security-Policy": "script-src 'nonce-chosenbytheclient'",
      "Content-Security-Policy-Report-Only": "script-src 'nonce-chosenbytheclient'",
    });
    expect(forwardedPolicy(response)).toBe(response.headers.get("content-security-policy"));
    expect(forwardedPolicy(response)).not.toContain("chosenbytheclient");
    expect(response.headers.get("x-middleware-request-content-security-policy-report-only")).toBeNull();
  });

  it("allows no inline style or script on any page, the API reference included", () => {
    for (const path of ["/docs", "/users", "/sign-in"]) {
      const parsed = directives(run(path).headers.get("content-security-policy")!);
      expect(parsed.get("style-src"), path).toEqual(["'self'", expect.stringMatching(/^'nonce-/)]);
      expect(parsed.get("script-src"), path).not.toContain("'unsafe-inline'");
    }
  });

  it("ignores X-Forwarded-Proto from a client when no proxy is trusted", () => {
    const response = run("/users", { "X-Forwarded-Proto": "https" });
    expect(response.headers.get("strict-transport-security")).toBeNull();
    expect(response.headers.get("content-security-policy")).not.toContain("upgrade-insecure-requests");
  });

  it("sends Strict-Transport-Security and upgrades requests when a trusted proxy says https", () => {
    process.env.TRUST_PROXY = "1";
    for (const path of ["/users", "/sign-in"]) {
      const response = run(path, { "X-Forwarded-Proto": "https" });
      expect(response.headers.get("strict-transport-security"), path).toBe("max-age=31536000");
      expect(
        directives(response.headers.get("content-security-policy")!).get("upgrade-insecure-requests"),
        path,
      ).toEqual([]);
    }
    expect(run("/users", { "X-Forwarded-Proto": "http" }).headers.get("strict-transport-security")).toBeNull();
  });
});

describe("servedOverHttps", () => {
  const request = (url: string, proto?: string) =>
    new Request(url, { headers: proto === undefined ? {} : { "X-Forwarded-Proto": proto } });

  it("believes X-Forwarded-Proto only from a trusted proxy, and then the entry the nearest proxy wrote", () => {
    expect(servedOverHttps(request("http://x/", "https"), { trustProxy: false })).toBe(false);
    expect(servedOverHttps(request("http://x/", "https"), { trustProxy: true })).toBe(true);
    expect(servedOverHttps(request("http://x/", "HTTPS"), { trustProxy: true })).toBe(true);
    expect(servedOverHttps(request("http://x/", "http"), { trustProxy: true })).toBe(false);
    expect(servedOverHttps(request("http://x/", "http, https"), { trustProxy: true })).toBe(true);
    expect(servedOverHttps(request("http://x/", "https, http"), { trustProxy: true })).toBe(false);
    expect(servedOverHttps(request("https://x/"), { trustProxy: true })).toBe(true);
    expect(servedOverHttps(request("http://x/"), { trustProxy: true })).toBe(false);
  });

  it("trusts the peer as a proxy by TRUST_PROXY: a hop count above 0, or a peer on the address list", () => {
    const from = (peer: string) => new Request("http://x/", { headers: { "x-forwarded-for": `6.6.6.6, ${peer}` } });
    const rule = (value: string) => parseTrustProxy(value)!;
    for (const value of ["", " ", "0"])
      expect(proxyTrusted(from("10.0.0.1"), rule(value)), JSON.stringify(value)).toBe(false);
    for (const value of ["1", "2"]) expect(proxyTrusted(from("10.0.0.1"), rule(value)), value).toBe(true);
    expect(proxyTrusted(from("10.0.0.1"), rule("10.0.0.0/8, 127.0.0.1"))).toBe(true);
    expect(proxyTrusted(from("127.0.0.1"), rule("loopback"))).toBe(true);
    // A client that connects directly is not the listed proxy, whatever it writes before itself.
    expect(proxyTrusted(from("203.0.113.9"), rule("10.0.0.0/8"))).toBe(false);
    expect(proxyTrusted(new Request("http://x/"), rule("10.0.0.0/8"))).toBe(false);
  });
});

describe("contentSecurityPolicy", () => {
  const options = { nonce: createNonce(), https: false };

  it("allows eval and injected styles under `next dev` only", () => {
    const development = directives(contentSecurityPolicy({ ...options, development: true }));
    expect(development.get("script-src")).toContain("'unsafe-eval'");
    expect(development.get("style-src")).toEqual(["'self'", "'unsafe-inline'"]);
    const production = contentSecurityPolicy({ ...options, development: false });
    expect(production).not.toContain("unsafe-eval");
    expect(production).not.toContain("unsafe-inline");
  });
});
