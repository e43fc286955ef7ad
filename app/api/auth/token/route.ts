import { ServiceError } from "@/lib/kernel/errors";
import { readCookie, refuseCrossSite, SESSION_COOKIE } from "@/lib/platform/http/cookies";
import { bearerToken, otherMethods, publicRoute } from "@/lib/platform/http/route";
import { introspect, refresh } from "@/lib/resources/auth/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The session cookie → a fresh short-lived access token; never for another site's page. */
export const POST = publicRoute({}, async ({ request }) => {
  refuseCrossSite(request);
  const sessionToken = readCookie(request, SESSION_COOKIE);
  if (!sessionToken) throw new ServiceError("unauthorized", "No session: sign in first.");
  const token = await refresh(sessionToken);
  return { accessToken: token.accessToken, expiresAt: token.expiresAt.toISOString() };
});

/**
 * What the bearer token says: user, company and expiry, checked by signature and expiry only —
 * not whether it was revoked since (a `/v2` request checks that). Also the framework's floor in
 * `npm run bench:api`: an authenticated answer that touches no database.
 */
export const GET = publicRoute({}, ({ request }) => introspect(bearerToken(request)));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ POST, GET });
