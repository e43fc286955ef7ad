/**
 * Invitations: a new user without a password gets an e-mail with a one-time link to set one. The
 * link works once and for 72 hours; only the token's SHA-256 is stored. Using the link is a
 * sign-in matter: lib/resources/auth/invitations.ts.
 */
import { loadConfig } from "@/lib/base/config";
import { secretToken, type ObjectId } from "@/lib/kernel/ids";
import { companyName } from "@/lib/resources/companies/repository";
import { insertInvitation } from "./repository";
import { sendMail } from "./service";

const INVITATION_TTL_HOURS = 72;

const invitationPath = (token: string) => `/invitation/${token}`;

export async function inviteUser(invitee: { userId: ObjectId; email: string; companyId: ObjectId }): Promise<void> {
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
  // From PUBLIC_URL, never from the request's Host: a forged Host must not redirect the link (docs/deployment.md#public_url).
  const link = `${loadConfig().publicUrl}${invitationPath(token)}`;
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

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}
