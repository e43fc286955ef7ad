/**
 * Invitations: a new user without a password gets an e-mail with a one-time link to set one. The
 * link works once and for 72 hours; only the token's SHA-256 is stored.
 */
import { companyName } from "@/lib/companies/repository";
import type { InvitationStatus } from "@/lib/schemas/auth";
import { revokeSessions } from "@/lib/services/auth";
import { ServiceError } from "@/lib/services/errors";
import { hashToken, secretToken, type ObjectId } from "@/lib/services/ids";
import { hashPassword, storePasswordHash } from "@/lib/services/passwords";
import { findUser } from "@/lib/users/repository";
import { claimInvitation, findUsableInvitation, insertInvitation } from "./repository";
import { sendMail } from "./service";

export const INVITATION_TTL_HOURS = 72;

export const invitationPath = (token: string) => `/invitation/${token}`;

export async function inviteUser(invitee: { userId: ObjectId; email: string; companyId: ObjectId; origin: string }): Promise<void> {
  const now = new Date();
  const { token, hash } = secretToken();
  await insertInvitation({
    tokenHash: hash,
    userId: invitee.userId,
    companyId: invitee.companyId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_TTL_HOURS * 3600_000),
  });
  const name = await companyName(invitee.companyId);
  const link = `${invitee.origin}${invitationPath(token)}`;
  const where = name !== undefined ? ` to ${name}` : "";
  await sendMail({
    to: invitee.email,
    company: invitee.companyId,
    subject: `You are invited${where}`,
    text:
      `You have been invited${where}.\n\n` +
      `Set your password here (the link works once, for ${INVITATION_TTL_HOURS} hours):\n${link}\n`,
    html:
      `<p>You have been invited${escapeHtml(where)}.</p>` +
      `<p><a href="${escapeHtml(link)}">Set your password</a> (the link works once, for ${INVITATION_TTL_HOURS} hours).</p>`,
  });
}

/** Whether a link can still be used, and for which e-mail (shown on the page). */
export async function invitationStatus(token: string): Promise<InvitationStatus> {
  const invitation = await findUsableInvitation(hashToken(token), new Date());
  if (!invitation) return { valid: false };
  const user = await findUser(activeMember(invitation), { email: 1 });
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
  const user = await findUser(activeMember(invitation), { email: 1 });
  if (!user) throw unusable();
  await storePasswordHash(user._id, passwordHash);
  // A new password ends every session and token the account had.
  await revokeSessions(user._id);
  return { email: user.email };
}

/** The invitation's user, while still an active member of the company that invited them. */
const activeMember = (invitation: { userId: ObjectId; companyId: ObjectId }) => ({
  _id: invitation.userId,
  companies: { $elemMatch: { companyId: invitation.companyId, isActive: { $ne: false } } },
});

const unusable = () => new ServiceError("not_found", "The link is invalid, already used or expired.");

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}
