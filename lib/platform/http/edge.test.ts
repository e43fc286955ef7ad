import { NO_PROXY, parseTrustProxy } from "@/lib/base/config/trust-proxy";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ALLOW, answersJson, edgeSecurityHeaders, refusalOf } from "./edge";
import { requestIdOf } from "./request-id";
import { installSocketAddress } from "./socket-address";

describe("the edge's refusals (lib/platform/http/edge.ts)", () => {
  it("refuses malformed percent-encoding anywhere in the path with invalid_request", () => {
    for (const target of [
      "/v2/users/%ZZ",
      "/v2/views/%ff",
      "/v2/webhooks/%C0%AF/test",
      "/surveys/%ZZ",
      "/invitation/%",
      "/a/%E0%80%AF",
      "/%ED%A0%80",
      "/x%f",
    ]) {
      expect(refusalOf("GET", target), target).toMatchObject({ status: 400, code: "invalid_request" });
    }
  });

  it("refuses a target that is not a path of printable ASCII", () => {
    for (const target of [
      "*",
      "http://evil.example/v2/users",
      "/users/\xff",
      "/users/\xc3\xa9",
      "/a b",
      "/a\x00b",
      "",
    ]) {
      expect(refusalOf("GET", target), JSON.stringify(target)).toMatchObject({ status: 400, code: "invalid_request" });
    }
  });

  it("lets well-formed paths through, %00 and .. included (the routes answer those), and leaves the query to the routes", () => {
    for (const target of [
      "/",
      "/v2/users",
      "/v2/users/%C3%A9",
      "/a%00b",
      "/../users",
      "/v2/users?q=%ZZ",
      "/users?%ff",
      "/_next/static/chunks/x.js",
    ]) {
      expect(refusalOf("GET", target), target).toBeUndefined();
    }
  });

  it("refuses every method the product does not serve with 405 and Allow", () => {
    for (const method of ["TRACE", "TRACK", "CONNECT", "PROPFIND", "get", "FOO", "M-SEARCH", ""]) {
      expect(refusalOf(method, "/v2/users"), method).toMatchObject({
        status: 405,
        code: "method_not_allowed",
        headers: { Allow: ALLOW },
      });
    }
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
      expect(refusalOf(method, "/v2/users"), method).toBeUndefined();
  });

  it("refuses an HTTP/1.1 request without Host", () => {
    expect(refusalOf("GET", "/users", { missingHost: true })).toMatchObject({ status: 400, code: "invalid_request" });
    expect(refusalOf("GET", "/users", { missingHost: false })).toBeUndefined();
  });

  it("answers JSON under /v2 and /api, a page elsewhere", () => {
    expect(["/v2", "/v2/users/%ZZ", "/api/auth/login", "/API/x", "/v2?x"].every(answersJson)).toBe(true);
    expect(["/", "/users", "/v2x", "/apis", "/_next/static/a.js"].some(answersJson)).toBe(false);
  });

  it("echoes a sane request id and makes one otherwise", () => {
    expect(requestIdOf("abc-123")).toBe("abc-123");
    for (const bad of [undefined, "", "a b", "x".repeat(129), ["a", "b"]])
      expect(requestIdOf(bad)).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("the edge's security headers (lib/platform/http/edge.ts)", () => {
  /** The headers the edge computes for a request sent with `headers`, over a real socket. */
  async function headersFor(trust: string, headers: Record<string, string>): Promise<Record<string, string>> {
    installSocketAddress();
    const trustProxy = parseTrustProxy(trust) ?? NO_PROXY;
    const server = http.createServer((request, response) =>
      response.end(JSON.stringify(edgeSecurityHeaders(request, trustProxy))),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      return (await (await fetch(`http://127.0.0.1:${port}/v2/users`, { headers })).json()) as Record<string, string>;
    } finally {
      server.close();
    }
  }

  it("sends HSTS only when a trusted proxy says the client came over HTTPS", async () => {
    const https = { "x-forwarded-proto": "https" };
    expect(await headersFor("1", https)).toHaveProperty("Strict-Transport-Security");
    expect(await headersFor("loopback", https)).toHaveProperty("Strict-Transport-Security");
    // No proxy trusted, or a proxy list that does not name the peer: the client's word is not taken.
    expect(await headersFor("0", https)).not.toHaveProperty("Strict-Transport-Security");
    expect(await headersFor("10.0.0.1", https)).not.toHaveProperty("Strict-Transport-Security");
    expect(await headersFor("1", { "x-forwarded-proto": "http" })).not.toHaveProperty("Strict-Transport-Security");
  });

  it("gives every answer a policy with a nonce of its own", async () => {
    const policies = await Promise.all(Array.from({ length: 70 }, () => headersFor("0", {})));
    const nonces = policies.map((headers) => /'nonce-([^']+)'/.exec(headers["Content-Security-Policy"])![1]);
    expect(new Set(nonces).size).toBe(70);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });
});
