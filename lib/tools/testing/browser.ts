/**
 * The browser client (lib/client/api.ts) against the real handlers: `fetch` is answered by the
 * route handler that Next.js would run for the request's method and path (found as the fuzzer
 * finds it, from the route files), on the test's database, with the access token of a signed-in
 * admin. Each request is kept, as sent, for the test to read.
 */
import { forgetToken, rememberToken } from "@/lib/client/session";
import type { RouteHandler } from "@/lib/platform/http/binding";
import { OPERATIONS } from "@/lib/resources";
import { boundHandlers, keyOf } from "@/lib/tools/fuzz/routes";
import { afterAll, beforeAll, vi } from "vitest";

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: RouteHandler;
}

/** `/v2/users/{id}` → a pattern of one segment per parameter; literal paths are tried first (`/v2/users/me`). */
async function routes(): Promise<Route[]> {
  const handlers = await boundHandlers();
  return OPERATIONS.map((operation) => {
    const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
    const source = operation.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "([^/]+)");
    return {
      method: operation.method.toUpperCase(),
      pattern: new RegExp(`^${source}$`),
      names,
      handler: handlers.get(keyOf(operation))!,
    };
  }).sort((a, b) => a.names.length - b.names.length);
}

/** Installs the client's transport for the tests of a file; `sent` lists each request's method and URL (path and query). */
export function useBrowserClient(token: () => string): { sent: { method: string; url: string; headers: Headers }[] } {
  const sent: { method: string; url: string; headers: Headers }[] = [];
  beforeAll(async () => {
    const table = await routes();
    vi.stubGlobal("fetch", async (input: string, init: RequestInit = {}) => {
      const request = new Request(new URL(input, "http://localhost"), init);
      const url = new URL(request.url);
      sent.push({ method: request.method, url: url.pathname + url.search, headers: request.headers });
      for (const route of table) {
        const match = route.method === request.method ? route.pattern.exec(url.pathname) : null;
        if (!match) continue;
        const params = Object.fromEntries(
          route.names.map((name, index) => [name, decodeURIComponent(match[index + 1])]),
        );
        return route.handler(request, { params: Promise.resolve(params) });
      }
      return new Response(
        JSON.stringify({ error: { status: 404, code: "not_found", message: "No route.", requestId: "test" } }),
        { status: 404 },
      );
    });
    rememberToken({ accessToken: token(), expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  });
  afterAll(() => {
    forgetToken();
    vi.unstubAllGlobals();
  });
  return { sent };
}
