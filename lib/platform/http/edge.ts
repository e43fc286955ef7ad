/**
 * What the server entry (lib/platform/cli/server.ts) checks before Next.js sees a request, and the answers
 * it writes itself (docs/security.md#hostile-input). Next.js decodes a path before any code of ours
 * runs (the proxy included) and answers a malformed one, or a method it does not know, with a bare
 * text `500`: without the security headers, without a request id, with no log line. So the entry
 * refuses those first, and guards everything Next.js answers with the same headers.
 */
import type { TrustProxy } from "@/lib/base/config/trust-proxy";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createNonce, proxyTrusted, securityHeaders, servedOverHttps } from "./security-headers";
import type { RequestHeads } from "./socket-address";

/** The methods the product serves; any other is `405` with this `Allow`. */
const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export const ALLOW = SERVED_METHODS.join(", ");
const served = new Set<string>(SERVED_METHODS);

/** The page the entry has Next.js render, as a `400`, for a malformed page address (asked for by name, a plain page). */
export const BAD_REQUEST_PAGE = "/bad-request";

export interface Refusal {
  status: 400 | 405;
  code: "invalid_request" | "method_not_allowed";
  message: string;
  headers?: Record<string, string>;
}

/**
 * Why the entry refuses a request before Next.js sees it, if it does: a method the product does not
 * serve; a target that is not a path (`*`, an absolute URL), holds a byte outside printable ASCII
 * (a client percent-encodes those) or whose path has malformed percent-encoding (`%ZZ`, an
 * overlong or otherwise invalid UTF-8 sequence such as `%C0%AF`); an HTTP/1.1 request without
 * `Host` (which Node would refuse with a bare 400 of its own).
 */
export function refusalOf(method: string, target: string, { missingHost = false } = {}): Refusal | undefined {
  if (!served.has(method)) {
    return {
      status: 405,
      code: "method_not_allowed",
      message: `${printable(method)} is not a method this server serves; it serves ${ALLOW}.`,
      headers: { Allow: ALLOW },
    };
  }
  if (!target.startsWith("/") || !/^[\x21-\x7e]*$/.test(target)) {
    return {
      status: 400,
      code: "invalid_request",
      message: "The request target must be a path of printable ASCII characters, others percent-encoded.",
    };
  }
  if (missingHost) return { status: 400, code: "invalid_request", message: "An HTTP/1.1 request must name its Host." };
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  try {
    decodeURIComponent(path);
  } catch {
    return {
      status: 400,
      code: "invalid_request",
      message: "The path has malformed percent-encoding: each % must start a valid UTF-8 sequence such as %C3%A9.",
    };
  }
  return undefined;
}

/** Whether an answer to this path is JSON (`/v2`, `/api`) rather than a page. */
export function answersJson(target: string): boolean {
  return /^\/(v2|api)(\/|\?|#|$)/i.test(target);
}

/** The request headers the scheme and proxy checks read (lib/platform/http/security-headers.ts). */
const PROBED = new Set(["x-forwarded-for", "x-forwarded-proto", "x-socket-address-stamp"]);

/** The security headers of an answer the entry writes or guards, as proxy.ts computes them. */
export function edgeSecurityHeaders(request: IncomingMessage, trustProxy: TrustProxy): Record<string, string> {
  // Read straight from Node's headers: a `Request` built for each answer cost more than the check.
  const probe: RequestHeads = {
    url: "http://edge.invalid/",
    headers: {
      get: (name) => {
        const value = PROBED.has(name) ? request.headers[name] : undefined;
        return typeof value === "string" ? value : null;
      },
    },
  };
  return securityHeaders({
    nonce: createNonce(),
    development: false,
    https: servedOverHttps(probe, { trustProxy: proxyTrusted(probe, trustProxy) }),
  });
}

/** Writes an answer in the error shape of docs/api.md#errors (JSON), or a plain page for a page's path. */
export function writeError(
  response: ServerResponse,
  options: {
    status: number;
    code: string;
    message: string;
    requestId: string;
    json: boolean;
    security: Record<string, string>;
    headers?: Record<string, string>;
  },
): void {
  const headers: Record<string, string> = {
    ...options.security,
    "Cache-Control": "no-store",
    "X-Request-Id": options.requestId,
    ...options.headers,
  };
  let body: string;
  if (options.json) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify({
      error: { status: options.status, code: options.code, message: options.message, requestId: options.requestId },
    });
  } else {
    headers["Content-Type"] = "text/html; charset=utf-8";
    body = errorPage(options.status, options.message, options.requestId);
  }
  headers["Content-Length"] = String(Buffer.byteLength(body));
  if (response.headersSent) return;
  for (const name of response.getHeaderNames()) response.removeHeader(name);
  response.writeHead(options.status, headers);
  response.end(response.req?.method === "HEAD" ? undefined : body);
}

/** The last-resort page (no script, no style: the policy allows neither inline), when Next.js itself failed. */
function errorPage(status: number, message: string, requestId: string): string {
  const title = status === 405 ? "Method not allowed" : status >= 500 ? "Something went wrong" : "Bad request";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} · Users &amp; Surveys</title></head><body><main><p>${status}</p><h1>${title}</h1><p>${escapeHtml(message)}</p><p>Request id: <code>${escapeHtml(requestId)}</code></p><p><a href="/users">Back to the users list</a></p></main></body></html>`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** A method token as it may be shown in a message: printable ASCII, 32 characters at most. */
const printable = (text: string) => text.replace(/[^\x21-\x7e]/g, "?").slice(0, 32);
