import { clearedSessionCookie, readCookie, refuseCrossSite, SESSION_COOKIE } from "@/lib/platform/http/cookies";
import { otherMethods, publicRoute, Reply } from "@/lib/platform/http/route";
import { logout } from "@/lib/resources/auth/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Ends the session of the cookie (its access tokens stop working) and clears the cookie; not from another site. */
export const POST = publicRoute({}, async ({ request }) => {
  refuseCrossSite(request);
  const sessionToken = readCookie(request, SESSION_COOKIE);
  if (sessionToken) await logout(sessionToken);
  return new Reply(null, 204, { "Set-Cookie": clearedSessionCookie(request) });
});

export const { GET, HEAD, OPTIONS, PUT, PATCH, DELETE } = otherMethods({ POST });
