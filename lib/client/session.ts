/**
 * The browser's sign-in state: the access token lives only in this module's memory (never in
 * localStorage or a readable cookie) and is renewed through `/api/auth/token`, which reads the
 * httpOnly session cookie.
 */
import type { AccessTokenResponse } from "@/lib/resources/auth/schemas";

/** Renew this long before the token expires, so a request never leaves with a dying token. */
const RENEW_MARGIN_MS = 60_000;

let current: { token: string; expiresAt: number } | undefined;
let renewing: Promise<string | undefined> | undefined;

export function rememberToken(answer: AccessTokenResponse): void {
  current = { token: answer.accessToken, expiresAt: Date.parse(answer.expiresAt) };
}

export function forgetToken(): void {
  current = undefined;
  renewing = undefined;
}

/** A usable access token, renewed from the session cookie when needed; undefined: signed out. */
export function accessToken(options: { fresh?: boolean } = {}): Promise<string | undefined> {
  if (!options.fresh && current && current.expiresAt - Date.now() > RENEW_MARGIN_MS)
    return Promise.resolve(current.token);
  renewing ??= renew().finally(() => {
    renewing = undefined;
  });
  return renewing;
}

async function renew(): Promise<string | undefined> {
  const response = await fetch("/api/auth/token", { method: "POST", cache: "no-store", credentials: "same-origin" });
  if (!response.ok) {
    current = undefined;
    return undefined;
  }
  rememberToken((await response.json()) as AccessTokenResponse);
  return current?.token;
}

/** Ends the session on the server (the cookie is cleared) and forgets the token. */
export async function signOut(): Promise<void> {
  forgetToken();
  await fetch("/api/auth/logout", { method: "POST", cache: "no-store", credentials: "same-origin" }).catch(
    () => undefined,
  );
}

/** Stands for this site's origin: a relative path resolves onto it, anything else leaves it. */
const HERE = "http://return-path.invalid";

/**
 * Where to go after signing in: only a path of this site, else `fallback` (anything else would
 * make the sign-in page an open redirect). Control characters and backslashes are refused
 * outright, as browsers drop or reinterpret them (`/\t/evil` is `//evil` to a browser); what is
 * left must resolve onto this site, and the path given back is the parsed one, so that it
 * cannot become `//host` on its way.
 */
export function safeReturnPath(next: string | null | undefined, fallback = "/users"): string {
  if (!next || !next.startsWith("/") || /[\u0000-\u001f\u007f\\]/.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, HERE);
  } catch {
    return fallback;
  }
  if (url.origin !== HERE || url.pathname.startsWith("//") || url.pathname.startsWith("/sign-in")) return fallback;
  return url.pathname + url.search + url.hash;
}

function signInPath(returnTo: string): string {
  return `/sign-in?next=${encodeURIComponent(returnTo)}`;
}

/** Sends the browser to sign in, then back to the page it is on now. */
export function goToSignIn(): void {
  const { pathname, search } = window.location;
  window.location.replace(signInPath(pathname + search));
}
