/**
 * Using an invitation link (lib/resources/mail/invitations.ts sends it): whether it still works, and setting
 * the password it was sent for.
 */
import { ServiceError } from "@/lib/kernel/errors";
import { hashToken, type ObjectId } from "@/lib/kernel/ids";
import type { InvitationStatus } from "@/lib/resources/auth/schemas";
import { hashPassword } from "@/lib/resources/credentials/passwords";
import { storePasswordHash } from "@/lib/resources/credentials/repository";
import { revokeSessions } from "@/lib/resources/credentials/sessions";
import { claimInvitation, findUsableInvitation } from "@/lib/resources/mail/repository";
import { findActiveMember } from "@/lib/resources/users/repository";

/** Whether a link can still be used, and for which e-mail (shown on the page). */
export async function invitationStatus(token: string): Promise<InvitationStatus> {
  const invitation = await findUsableInvitation(hashToken(token), new Date());
  if (!invitation) return { valid: false };
  const user = await activeMember(invitation, { email: 1 });
  return user ? { valid: true, email: user.email } : { valid: false };
}

/**
 * Sets the password of an invitation's user and uses the invitation up. The token is claimed
 * atomically, so of two concurrent uses only one succeeds.
 */
export async function acceptInvitation(token: string, password: string): Promise<{ email: string }> {
  const passwordHash = await hashPassword(password);
  const now = new Date();
  const invitation = await claimInvitation(hashToken(token), now);
  if (!invitation) throw unusable();
  const user = await activeMember(invitation, { email: 1 });
  if (!user) throw unusable();
  await storePasswordHash(user._id, passwordHash);
  // A new password ends every session and token the account had.
  await revokeSessions(user._id);
  return { email: user.email };
}

/** The invitation's user, while still an active member of the company that invited them. */
const activeMember = (invitation: { userId: ObjectId; companyId: ObjectId }, projection: Record<string, 1>) =>
  findActiveMember(invitation.companyId, invitation.userId, projection);

const unusable = () => new ServiceError("not_found", "The link is invalid, already used or expired.");
