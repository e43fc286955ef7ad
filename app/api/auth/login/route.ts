import { refuseCrossSite, sessionCookie } from "@/lib/http/cookies";
import { otherMethods, publicRoute, Reply, requestAddress } from "@/lib/http/route";
import { reserveSignIn } from "@/lib/http/sign-in-throttle";
import { LoginBody } from "@/lib/schemas/auth";
import { login } from "@/lib/services/auth";
import { ServiceError } from "@/lib/services/errors";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * E-mail and password → an access token and the session cookie (docs/api.md#tokens). Not from
 * another site's page, which could otherwise sign a visitor in to an account of its choosing.
 */
export const POST = publicRoute({ body: LoginBody, throttlesOwnCredentials: true }, async ({ request, body }) => {
  refuseCrossSite(request);
  const attempt = reserveSignIn(body.email, requestAddress(request));
  try {
    const signIn = await login(body.email, body.password, body.companyId);
    attempt.succeeded();
    return new Reply(
      { accessToken: signIn.accessToken, expiresAt: signIn.expiresAt.toISOString() },
      200,
      { "Set-Cookie": sessionCookie(request, signIn.sessionToken, signIn.sessionExpiresAt) },
    );
  } catch (error) {
    if (error instanceof ServiceError && error.code === "unauthorized") attempt.failed();
    else attempt.abandoned();
    throw error;
  }
});

export const { GET, HEAD, OPTIONS, PUT, PATCH, DELETE } = otherMethods({ POST });
