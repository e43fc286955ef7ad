/**
 * The security headers of every answer — pages, `/v2` and `/api` JSON, errors, 404s and static
 * files (docs/security.md#headers). The server entry puts them on every answer it serves; proxy.ts
 * computes them again for a page, whose policy carries a fresh nonce that Next.js reads back from
 * the request's Content-Security-Policy and puts on every script it writes into the page.
 */
import { loadConfig } from "@/lib/base/config";
import type { TrustProxy } from "@/lib/base/config/trust-proxy";
import { isTrustedProxy, peerAddress } from "./client-address";
import type { RequestHeads } from "./socket-address";

/** The same on every answer. */
export const FIXED_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  // For browsers that predate `frame-ancestors`.
  "X-Frame-Options": "DENY",
  // Nothing links out, and invitation links carry their token in the path: no other site ever
  // learns a URL of ours, while same-origin requests keep their Referer and Origin.
  "Referrer-Policy": "same-origin",
};

/** A year; no `includeSubDomains`, which would bind sibling hosts this server knows nothing of. */
const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

export interface PolicyOptions {
  /** Fresh for each request (`createNonce`). */
  nonce: string;
  /** `next dev`: React's dev tooling evaluates code and Next's dev server injects styles. */
  development: boolean;
  /** Served over HTTPS (`servedOverHttps`). */
  https: boolean;
}

const NONCE_BYTES = 16;
/** Random bytes for 64 nonces: one call to the random source per 64 answers, not one per answer. */
let noncePool = Buffer.alloc(0);
let nonceAt = 0;

/**
 * 128 random bits, base64: unguessable and unique per request, as a CSP nonce must be. The bits
 * come from the system's secure random source, fetched 64 nonces at a time, each slice used once
 * (as Node's own `randomUUID` buffers its bytes): every answer carries a nonce, and one call per
 * answer cost more than the rest of the headers together (docs/benchmarks.md).
 */
export function createNonce(): string {
  if (nonceAt + NONCE_BYTES > noncePool.length) {
    noncePool = Buffer.from(crypto.getRandomValues(new Uint8Array(64 * NONCE_BYTES)));
    nonceAt = 0;
  }
  const nonce = noncePool.toString("base64", nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}

/**
 * The Content-Security-Policy. Scripts run only with this request's nonce, and whatever those
 * scripts load ('strict-dynamic'); everything else comes from this origin; nothing may frame us.
 */
export function contentSecurityPolicy({ nonce, development, https }: PolicyOptions): string {
  const scripts = ["'self'", `'nonce-${nonce}'`, "'strict-dynamic'"];
  if (development) scripts.push("'unsafe-eval'");
  // The pages' styles are stylesheet files (Tailwind's build) and Next's own nonce'd tags;
  // `next dev` injects <style> elements that carry no nonce.
  const styles = development ? ["'self'", "'unsafe-inline'"] : ["'self'", `'nonce-${nonce}'`];
  const directives: [string, ...string[]][] = [
    ["default-src", "'self'"],
    ["script-src", ...scripts],
    ["style-src", ...styles],
    ["object-src", "'none'"],
    ["base-uri", "'self'"],
    ["form-action", "'self'"],
    ["frame-ancestors", "'none'"],
  ];
  // Over plain HTTP this would send the page's own requests to an https:// that does not exist.
  if (https) directives.push(["upgrade-insecure-requests"]);
  return directives.map((directive) => directive.join(" ")).join("; ");
}

/** Every security header of one answer. */
export function securityHeaders(options: PolicyOptions): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(options),
    ...FIXED_SECURITY_HEADERS,
    ...(options.https ? { "Strict-Transport-Security": STRICT_TRANSPORT_SECURITY } : {}),
  };
}

/**
 * Whether the browser reached us over HTTPS. The server itself speaks only HTTP, so HTTPS means
 * a proxy in front terminated TLS and said so in `X-Forwarded-Proto`. Next.js passes that header
 * on as the client sent it (and fills it from the socket only when it is absent), so anyone who
 * connects directly could claim https: the header counts only when a proxy in front is trusted.
 * Of a list (each proxy appending its own), the last entry is the one the nearest proxy wrote.
 */
export function servedOverHttps(request: RequestHeads, { trustProxy }: { trustProxy: boolean }): boolean {
  if (!trustProxy) return false;
  const forwarded = request.headers.get("x-forwarded-proto");
  if (forwarded === null) return new URL(request.url).protocol === "https:";
  return forwarded.split(",").at(-1)!.trim().toLowerCase() === "https";
}

/**
 * Whether the peer that connected is a proxy trusted with the X-Forwarded-* headers, by the
 * `TRUST_PROXY` rule (docs/security.md#what-trust_proxy-means): any hop count above 0, or a peer
 * whose address is on the list.
 */
export function proxyTrusted(request: RequestHeads, trust: TrustProxy): boolean {
  if (trust.kind === "hops") return trust.hops > 0;
  const peer = peerAddress(request);
  return peer !== undefined && isTrustedProxy(peer, trust);
}

/** The security headers of an answer to `request`, with a new nonce. */
export function requestSecurityHeaders(request: Request): Record<string, string> {
  return securityHeaders({
    nonce: createNonce(),
    development: process.env.NODE_ENV === "development",
    https: servedOverHttps(request, { trustProxy: proxyTrusted(request, loadConfig().trustProxy) }),
  });
}

/**
 * Under `next dev`, which runs without the server entry, puts the security headers on an answer of
 * a `/v2` or `/api` route: the proxy serves only the pages (docs/security.md#headers).
 */
export function withDevelopmentHeaders(request: Request, response: Response): Response {
  if (process.env.NODE_ENV !== "development") return response;
  for (const [name, value] of Object.entries(requestSecurityHeaders(request))) response.headers.set(name, value);
  return response;
}
