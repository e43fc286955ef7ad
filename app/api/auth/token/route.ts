import { readCookie, SESSION_COOKIE } from "@/lib/http/cookies";
import { publicRoute } from "@/lib/http/route";
import { refresh } from "@/lib/services/auth";
import { ServiceError } from "@/lib/services/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The session cookie → a fresh short-lived access token. */
export const POST = publicRoute({}, async ({ request }) => {
  const sessionToken = readCookie(request, SESSION_COOKIE);
  if (!sessionToken) throw new ServiceError("unauthorized", "No session: sign in first.");
  const token = await refresh(sessionToken);
  return { accessToken: token.accessToken, expiresAt: token.expiresAt.toISOString() };
});
