/**
 * `POST /api/auth/login` over HTTP: refuses another site's page, throttles failed attempts per
 * e-mail and client address (./sign-in-throttle.ts), and answers the access token with the
 * session in its httpOnly cookie.
 */
import { ServiceError } from "@/lib/kernel/errors";
import type { LoginBody } from "@/lib/resources/auth/schemas";
import { login } from "@/lib/resources/auth/service";
import { refuseCrossSite, sessionCookie } from "./cookies";
import { requestAddress } from "./limits";
import { Reply } from "./reply";
import { reserveSignIn } from "./sign-in-throttle";

export async function signIn(request: Request, body: LoginBody): Promise<Reply> {
  refuseCrossSite(request);
  const attempt = await reserveSignIn(body.email, requestAddress(request));
  try {
    const session = await login(body.email, body.password, body.companyId);
    await attempt.succeeded();
    return new Reply({ accessToken: session.accessToken, expiresAt: session.expiresAt.toISOString() }, 200, {
      "Set-Cookie": sessionCookie(request, session.sessionToken, session.sessionExpiresAt),
    });
  } catch (error) {
    if (error instanceof ServiceError && error.code === "unauthorized") await attempt.failed();
    else await attempt.abandoned();
    throw error;
  }
}
