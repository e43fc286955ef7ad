import { loadConfig } from "@/lib/base/config";
import { ServiceError } from "@/lib/kernel/errors";

/** The sign-in session cookie (docs/api.md#tokens): httpOnly, SameSite=Strict, Secure over HTTPS. */
export const SESSION_COOKIE = "session";

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** A `PUBLIC_URL` of https makes every session cookie `Secure`; else the request's own scheme decides. */
function isHttps(request: Request): boolean {
  if (loadConfig().publicUrl.startsWith("https:")) return true;
  const forwarded = request.headers.get("x-forwarded-proto");
  return (forwarded ?? new URL(request.url).protocol.replace(":", "")).split(",")[0].trim() === "https";
}

export function sessionCookie(request: Request, token: string, expiresAt: Date): string {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  return [
    `${SESSION_COOKIE}=${encodeURIComponent(token)}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    `Max-Age=${maxAge}`,
    ...(isHttps(request) ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(request: Request): string {
  return [
    `${SESSION_COOKIE}=`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
    "Max-Age=0",
    ...(isHttps(request) ? ["Secure"] : []),
  ].join("; ");
}

/**
 * Refuses (`403 forbidden`) a browser request sent from another site to a route that acts on the
 * session cookie. Browsers say where a request comes from in `Sec-Fetch-Site`; older ones only in
 * `Origin`, which must then be `PUBLIC_URL`'s (docs/deployment.md#public_url): the product's one
 * origin, not the request's `Host`, which a proxy rewrites and a client may forge. A request with
 * neither is not a browser's cross-site request (and SameSite=Strict keeps the cookie off those anyway).
 */
export function refuseCrossSite(request: Request): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) {
    if (site === "same-origin" || site === "none") return;
    throw crossSite();
  }
  const origin = request.headers.get("origin");
  if (origin === null) return;
  let sent: string | undefined;
  try {
    sent = new URL(origin).origin;
  } catch {
    sent = undefined;
  }
  if (sent !== loadConfig().publicUrl) throw crossSite();
}

const crossSite = () => new ServiceError("forbidden", "Requests from another site may not use the session.");
