/** The sign-in operation bound to the auth service: what app/api/auth/login/route.ts exports. */
import { refuseCrossSite, sessionCookie } from "@/lib/http/cookies";
import { handle, Reply, requestAddress } from "@/lib/http/route";
import { reserveSignIn } from "@/lib/http/sign-in-throttle";
import { login as signIn } from "@/lib/auth/service";
import { ServiceError } from "@/lib/server/errors";
import * as auth from "@/lib/auth/contract";

export const login = handle(auth.login, async ({ request, body }) => {
  refuseCrossSite(request);
  const attempt = reserveSignIn(body.email, requestAddress(request));
  try {
    const session = await signIn(body.email, body.password, body.companyId);
    attempt.succeeded();
    return new Reply(
      { accessToken: session.accessToken, expiresAt: session.expiresAt.toISOString() },
      200,
      { "Set-Cookie": sessionCookie(request, session.sessionToken, session.sessionExpiresAt) },
    );
  } catch (error) {
    if (error instanceof ServiceError && error.code === "unauthorized") attempt.failed();
    else attempt.abandoned();
    throw error;
  }
});
