/**
 * The edge against the running server entry (lib/platform/cli/server.ts) over raw sockets: a malformed path
 * is a 400 (the error shape for /v2 and /api, the shell's page for a page), a method no route serves
 * is a 405 with Allow, and the edge fuzzer (lib/tools/fuzz/edge.ts) finds no 5xx and no answer without
 * the security headers or X-Request-Id on any route (docs/security.md#hostile-input).
 */
import { edgeCases, edgeProblem, edgeRoutes, formatEdgeFailure, runEdgeFuzz, sendRaw } from "@/lib/tools/fuzz/edge";
import { expect, test } from "@playwright/test";
import { readdirSync } from "node:fs";
import path from "node:path";

const base = () => test.info().project.use.baseURL!;

test("a malformed path is a 400 with the product's headers, JSON under /v2 and /api, the shell's page elsewhere", async () => {
  for (const target of ["/v2/users/%ZZ", "/v2/views/%ff", "/v2/webhooks/%C0%AF/test", "/api/auth/%ZZ"]) {
    const response = await fetch(new URL(target, base()));
    expect(response.status, target).toBe(400);
    expect(response.headers.get("content-type"), target).toMatch(/^application\/json/);
    const body = (await response.json()) as { error: { code: string; requestId: string } };
    expect(body.error.code, target).toBe("invalid_request");
    expect(response.headers.get("x-request-id")).toBe(body.error.requestId);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  }
  for (const target of ["/surveys/%ZZ", "/invitation/%ZZ", "/users/%C0%AF"]) {
    const response = await fetch(new URL(target, base()));
    expect(response.status, target).toBe(400);
    expect(response.headers.get("content-type"), target).toMatch(/^text\/html/);
    expect(await response.text(), target).toContain("Bad request");
    expect(response.headers.get("x-request-id"), target).toBeTruthy();
    expect(response.headers.get("content-security-policy"), target).toContain("'nonce-");
  }
});

test("the bad-request page is the shell's own, styled and without errors", async ({ page }) => {
  const answer = await page.goto("/surveys/%ZZ");
  expect(answer?.status()).toBe(400);
  await expect(page.getByRole("heading", { name: "Bad request" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Back to the users list" })).toBeVisible();
});

test("a method no route serves is a 405 with Allow, whether Node knows it or not", async () => {
  for (const method of ["TRACE", "TRACK", "CONNECT", "PROPFIND", "FOO"]) {
    for (const target of ["/api/auth/login", "/v2/users", "/users"]) {
      const answer = await sendRaw(base(), { method, target });
      expect(answer.status, `${method} ${target}`).toBe(405);
      expect(answer.headers.allow, `${method} ${target}`).toBe("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
      expect(edgeProblem(answer), `${method} ${target}`).toBeUndefined();
    }
  }
});

test("an HTTP/1.1 request without Host is a 400 with the product's headers, not Node's bare one", async () => {
  const answer = await sendRaw(base(), { method: "GET", target: "/users", noHost: true });
  expect(answer.status).toBe(400);
  expect(edgeProblem(answer)).toBeUndefined();
});

test("liveness and readiness answer 200 while the server runs", async () => {
  for (const probe of ["/api/health/live", "/api/health/ready"]) {
    const response = await fetch(new URL(probe, base()));
    expect(response.status, probe).toBe(200);
    expect(response.headers.get("x-request-id"), probe).toBeTruthy();
  }
});

test("the edge fuzzer finds no 5xx and no answer without the security headers or X-Request-Id", async () => {
  test.setTimeout(180_000);
  const staticDir = path.resolve(__dirname, "..", ".next", "static", "chunks");
  const statics = readdirSync(staticDir)
    .filter((name) => name.endsWith(".js"))
    .slice(0, 3)
    .map((name) => `/_next/static/chunks/${name}`);
  const routes = edgeRoutes(statics);
  const cases = edgeCases(routes, { seed: 20261129, runs: 600 });
  const { failures, statuses } = await runEdgeFuzz(base(), cases);
  expect(failures.map(formatEdgeFailure), `statuses ${JSON.stringify([...statuses])}`).toEqual([]);
  // Both refusals were met, and the routes answered too: not every case died at the edge.
  expect(statuses.get(400)).toBeGreaterThan(0);
  expect(statuses.get(405)).toBeGreaterThan(0);
  expect([...statuses.keys()].some((status) => status < 400)).toBe(true);
});
