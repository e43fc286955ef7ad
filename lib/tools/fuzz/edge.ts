/**
 * The edge fuzzer: hostile methods and raw, malformed request targets sent over a real socket to
 * a running server (the server entry, lib/platform/cli/server.ts), for every route: each path of the OpenAPI
 * document, each page of `app/` and static files. Any `5xx`, or any answer without the security
 * headers or `X-Request-Id`, is a failure (docs/security.md#hostile-input). The bytes go out as
 * written, never normalised by an HTTP client: `%ZZ`, overlong UTF-8, `%00`, raw bytes above
 * 0x7F, `..`, very long paths, unknown method tokens.
 *
 * Run by e2e/45-hostile-edge.spec.ts in CI and by `npm run fuzz -- --edge URL` at length.
 */
import { FIXED_SECURITY_HEADERS } from "@/lib/platform/http/security-headers";
import { OPERATIONS } from "@/lib/resources";
import fc from "fast-check";
import { readdirSync, statSync } from "node:fs";
import net from "node:net";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..", "..");

/** Methods no route serves: Node's parser knows some (TRACE, PROPFIND…), refuses others (TRACK, made-up tokens). */
const HOSTILE_METHODS = [
  "TRACE",
  "TRACK",
  "CONNECT",
  "PROPFIND",
  "PROPPATCH",
  "MKCOL",
  "COPY",
  "MOVE",
  "LOCK",
  "UNLOCK",
  "SEARCH",
  "PURGE",
  "M-SEARCH",
  "QUERY",
  "LINK",
  "REPORT",
  "FOO",
  "get",
  "DEBUG",
  "X".repeat(40),
];
const SERVED = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Segments that break a path's encoding or meaning, as raw bytes (latin1: one char, one byte). */
const HOSTILE_SEGMENTS = [
  "%ZZ",
  "%",
  "%f",
  "%ff",
  "%C0%AF",
  "%E0%80%AF",
  "%ED%A0%80",
  "%F8%88%80%80%80",
  "%00",
  "a%00b",
  "%2e%2e",
  "..",
  "../../../../etc/passwd",
  "%2e%2e%2f%2e%2e%2f",
  "%5c..%5c",
  "\xff",
  "\xc3\xa9",
  "\xc0\xaf",
  "%25ZZ",
  "%u0041",
  "a".repeat(3000),
  "%41".repeat(1500),
  // Past Node's 16 KiB of request head: refused by its parser (431), answered by the entry.
  "b".repeat(20_000),
];

export interface EdgeCase {
  method: string;
  /** The request target as bytes, latin1-encoded. */
  target: string;
  /** Sent without a Host header (HTTP/1.1 requires one). */
  noHost?: boolean;
}

export interface EdgeAnswer {
  status: number;
  headers: Record<string, string>;
}

export interface EdgeFailure extends EdgeCase {
  status: number;
  why: string;
}

/** A path template's placeholders (`{id}`, `[id]`, `[...slug]`) filled with a plausible id. */
const fill = (template: string) => template.replace(/\{[^}]+\}|\[[^\]]+\]/g, "ffffffffffffffffffffffff");

/** The page paths of `app/` (each folder with a page.tsx; route groups `(x)` leave the URL). */
function pagePaths(dir = path.join(root, "app"), prefix = ""): string[] {
  const paths: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) {
      const segment = /^\(.*\)$/.test(entry) ? "" : `/${entry}`;
      paths.push(...pagePaths(full, prefix + segment));
    } else if (entry === "page.tsx") paths.push(prefix || "/");
  }
  return paths;
}

/** Every route the edge fuzzer aims at: API paths, `/api` routes, pages and static files. */
export function edgeRoutes(staticFiles: string[] = []): string[] {
  const api = [...new Set(OPERATIONS.map((operation) => operation.path))];
  const pages = pagePaths();
  const fixed = [
    "/api/health",
    "/api/health/live",
    "/api/health/ready",
    "/api/auth/login",
    "/api/auth/token",
    "/v2/openapi.json",
    "/favicon.ico",
    "/icon.svg",
    "/_next/static/x.js",
    "/_next/image",
    "/no/such/route",
  ];
  return [...new Set([...api, ...pages, ...fixed, ...staticFiles])].map(fill);
}

/** A path with a hostile segment put at one of its places (after the last slash, replacing a segment, or appended). */
function mutate(route: string, segment: string, at: number): string {
  const parts = route.split("/");
  const index = 1 + (at % Math.max(1, parts.length - 1));
  const choice = at % 3;
  if (choice === 0) parts[index] = segment;
  else if (choice === 1) parts.splice(index, 0, segment);
  else parts.push(segment);
  return parts.join("/") || "/";
}

/** The cases of one run: hostile methods on every route, then `runs` random mixes, from `seed`. */
export function edgeCases(routes: string[], { seed, runs }: { seed: number; runs: number }): EdgeCase[] {
  const cases: EdgeCase[] = [];
  // Each route once with a method it cannot have, and once with a malformed path.
  routes.forEach((route, i) => {
    cases.push({ method: HOSTILE_METHODS[i % HOSTILE_METHODS.length], target: route });
    cases.push({
      method: SERVED[i % SERVED.length],
      target: mutate(route, HOSTILE_SEGMENTS[i % HOSTILE_SEGMENTS.length], i),
    });
    if (i % 10 === 0) cases.push({ method: "GET", target: route, noHost: true });
  });
  const hostileCase = fc.record({
    route: fc.constantFrom(...routes),
    method: fc.oneof(fc.constantFrom(...SERVED), fc.constantFrom(...HOSTILE_METHODS)),
    segment: fc.oneof(
      fc.constantFrom(...HOSTILE_SEGMENTS),
      fc.string({ unit: fc.integer({ min: 0x21, max: 0xff }).map((code) => String.fromCharCode(code)), maxLength: 12 }),
    ),
    at: fc.nat(20),
    query: fc.constantFrom("", "?q=%ZZ", "?cursor=%C0%AF", "?page=%00", "?\xff=1", "?a=1&a=%"),
  });
  for (const one of fc.sample(hostileCase, { seed, numRuns: runs })) {
    cases.push({ method: one.method, target: mutate(one.route, one.segment, one.at) + one.query });
  }
  return cases;
}

/** Sends one request with the bytes as given and reads the status and headers of the answer. */
export function sendRaw(base: string, { method, target, noHost }: EdgeCase, timeoutMs = 15_000): Promise<EdgeAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const done = (error?: Error) => {
      socket.destroy();
      const text = Buffer.concat(chunks).toString("latin1");
      const head = text.split("\r\n\r\n", 1)[0];
      const [statusLine, ...lines] = head.split("\r\n");
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
      if (!status) {
        reject(error ?? new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
        return;
      }
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status, headers });
    };
    socket.setTimeout(timeoutMs, () => done(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      // The head is all we read: the body of a page may stream for a while.
      if (Buffer.concat(chunks).includes("\r\n\r\n")) done();
    });
    socket.on("error", (error) => done(error));
    socket.on("end", () => done());
    socket.on("connect", () => {
      const body = method === "POST" || method === "PUT" || method === "PATCH" ? "{}" : "";
      const head = `${method} ${target} HTTP/1.1\r\n${noHost ? "" : `Host: ${url.host}\r\n`}Connection: close\r\nAccept: */*\r\n${body ? `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` : ""}\r\n`;
      socket.write(Buffer.from(head + body, "latin1"));
    });
  });
}

/** Why an answer fails the edge's rule, or undefined when it holds. */
export function edgeProblem(answer: EdgeAnswer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (!answer.headers["x-request-id"]) return "no X-Request-Id";
  for (const name of [...Object.keys(FIXED_SECURITY_HEADERS), "Content-Security-Policy"]) {
    if (!answer.headers[name.toLowerCase()]) return `no ${name}`;
  }
  return undefined;
}

/** Sends every case (a few at a time) and returns the failures with their reason. */
export async function runEdgeFuzz(
  base: string,
  cases: EdgeCase[],
  { concurrency = 4, onCase }: { concurrency?: number; onCase?: () => void } = {},
): Promise<{ failures: EdgeFailure[]; statuses: Map<number, number> }> {
  const failures: EdgeFailure[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const one = cases[next++];
      try {
        const answer = await sendRaw(base, one);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const why = edgeProblem(answer);
        if (why) failures.push({ ...one, status: answer.status, why });
      } catch (error) {
        failures.push({ ...one, status: 0, why: error instanceof Error ? error.message : String(error) });
      }
      onCase?.();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { failures, statuses };
}

/** A failure as one line: the bytes shown escaped. */
export const formatEdgeFailure = (failure: EdgeFailure) =>
  `${failure.noHost ? "(no Host) " : ""}${JSON.stringify(failure.method)} ${JSON.stringify(failure.target.length > 120 ? `${failure.target.slice(0, 120)}…(${failure.target.length})` : failure.target)} → ${failure.status}: ${failure.why}`;
