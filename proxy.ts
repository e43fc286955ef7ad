import { loadConfig } from "@/lib/base/config";
import { createNonce, proxyTrusted, securityHeaders, servedOverHttps } from "@/lib/platform/http/security-headers";
import { NextResponse, type NextRequest } from "next/server";

/**
 * Runs before every request (Next.js' proxy, formerly middleware): puts the security headers on
 * the answer, whatever produces it, and hands the page policy to the renderer, which takes the
 * nonce from the request's Content-Security-Policy for the scripts it writes.
 */
export function proxy(request: NextRequest): NextResponse {
  const headers = requestSecurityHeaders(request);
  // Replaces any policy the client sent: the renderer must see ours alone.
  const forwarded = new Headers(request.headers);
  forwarded.set("content-security-policy", headers["Content-Security-Policy"]);
  forwarded.delete("content-security-policy-report-only");
  const response = NextResponse.next({ request: { headers: forwarded } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
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
 * Every path but the import's upload: Next.js buffers a body the proxy could read, cut at 10 MB,
 * and an import takes 100 MiB, streamed (docs/api.md#import); that route sets these headers itself.
 */
export const config = { matcher: ["/((?!v2/users/import$).*)"] };
