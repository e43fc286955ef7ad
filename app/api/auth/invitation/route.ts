import { otherMethods, publicRoute } from "@/lib/platform/http/route";
import { acceptInvitation, invitationStatus } from "@/lib/resources/auth/invitations";
import { InvitationQuery, SetPasswordBody } from "@/lib/resources/auth/schemas";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Whether an invitation link can still be used. */
export const GET = publicRoute({ query: InvitationQuery }, ({ query }) => invitationStatus(query.token));

/** Sets the password of the invited user; the link is used up. */
export const POST = publicRoute({ body: SetPasswordBody }, ({ body }) => acceptInvitation(body.token, body.password));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
