/** The sign-in operation (outside `/v2`), the one of `/api/auth` the document describes. */
import { type ComponentNames, publicOperation } from "@/lib/base/schemas/operation";
import { AccessTokenResponse, LoginBody } from "@/lib/resources/auth/schemas";

/**
 * E-mail and password → an access token and the session cookie (docs/api.md#tokens). Not from
 * another site's page, which could otherwise sign a visitor in to an account of its choosing.
 */
export const login = publicOperation({
  method: "post",
  path: "/api/auth/login",
  body: LoginBody,
  throttlesOwnCredentials: true,
  doc: {
    tag: "Authentication",
    summary: "Sign in",
    description:
      "E-mail and password → an access token for `Authorization: Bearer`, and a session cookie for the admin pages. Wrong credentials are `401` whether the e-mail is unknown or the password wrong; repeated failures are throttled (`429`). A browser request from another site's page is refused (`403 forbidden`). For an external system, `npm run --silent token -- --email <email> [--ttl 30d]` prints a longer-lived token.",
    status: 200,
    response: AccessTokenResponse,
    errors: ["unauthorized", "forbidden"],
    setsCookie: true,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { answers: { AccessToken: AccessTokenResponse } };
