import { requestSecurityHeaders } from "@/lib/platform/http/security-headers";
import { NextResponse, type NextRequest } from "next/server";

/**
 * Runs before every request but those of the API (Next.js' proxy, formerly middleware): puts the
 * security headers on the answer, and hands the page policy to the renderer, which takes the nonce
 * from the request's Content-Security-Policy for the scripts it writes.
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

/**
 * Every path but `/v2/…`, `/api/…` and `/metrics`. Their answers get the same headers from the
 * server entry (and from their route's wrapper under `next dev`), and for each of them Next.js'
 * proxy path took about a third of the main thread: it builds a request and copies the body
 * (docs/benchmarks.md#the-api-without-nextjs-proxy-2026-12-01-06050637-utc). It also buffers a
 * body, cut at 10 MB, where an import streams 100 MiB (docs/api.md#import).
 */
export const config = { matcher: ["/((?!v2/|api/|metrics$).*)"] };
