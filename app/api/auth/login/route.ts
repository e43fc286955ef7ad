import { sessionCookie } from "@/lib/http/cookies";
import { loginFailures } from "@/lib/http/rate-limit";
import { limit, publicRoute, Reply } from "@/lib/http/route";
import { LoginBody } from "@/lib/schemas/auth";
import { login } from "@/lib/services/auth";
import { ServiceError } from "@/lib/services/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** E-mail and password → an access token and the session cookie (docs/api.md#tokens). */
export const POST = publicRoute({ body: LoginBody }, async ({ request, body }) => {
  const key = `email:${body.email}`;
  if (!loginFailures.peek(key).allowed) limit(loginFailures, key);
  try {
    const signIn = await login(body.email, body.password, body.companyId);
    return new Reply(
      { accessToken: signIn.accessToken, expiresAt: signIn.expiresAt.toISOString() },
      200,
      { "Set-Cookie": sessionCookie(request, signIn.sessionToken, signIn.sessionExpiresAt) },
    );
  } catch (error) {
    if (error instanceof ServiceError && error.code === "unauthorized") loginFailures.take(key);
    throw error;
  }
});
