/**
 * The outbox (e-mails kept while no SMTP server is configured) and the invitations: the only code
 * that reads or writes their collections. One way to the database: Mongoose models with typed
 * lean results (the outbox page reads through the single-batch find every list uses).
 */
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import { findDocs, type ReadOptions } from "@/lib/kernel/models/read";
import mongoose, { Schema } from "mongoose";

/** E-mails kept instead of sent when `SMTP_URL` is unset (docs/api.md#outbox). */
const outboxSchema = new Schema(
  {
    company: { type: ObjectId, default: null },
    to: { type: String, required: true },
    subject: { type: String, required: true },
    text: { type: String, required: true },
    html: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "outbox" },
);
outboxSchema.index({ company: 1, createdAt: 1, _id: 1 });
outboxSchema.index({ to: 1 });

export const OutboxMail = defineModel("OutboxMail", outboxSchema);

export type OutboxDoc = mongoose.InferSchemaType<typeof outboxSchema> & { _id: mongoose.Types.ObjectId };

/** Keeps an e-mail in the outbox. */
export async function insertOutboxMail(mail: Omit<OutboxDoc, "_id">): Promise<void> {
  await OutboxMail.create(mail);
}

/** A page of the outbox mails `filter` (already scoped to a company) matches. */
export const findOutboxMails = (filter: Record<string, unknown>, options: ReadOptions): Promise<OutboxDoc[]> =>
  findDocs<OutboxDoc>(OutboxMail, filter, options);

export const countOutboxMails = (filter: Record<string, unknown>): Promise<number> =>
  OutboxMail.countDocuments(filter).exec();

// ---------------------------------------------------------------------------------------------
// Invitations (only the token's SHA-256 is stored, so a copy of the database holds no usable link)

/** A one-time link to set a password, valid for 72 hours. */
const invitationSchema = new Schema(
  {
    tokenHash: { type: String, required: true },
    userId: { type: ObjectId, required: true },
    companyId: { type: ObjectId, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
  },
  { ...schemaOptions, collection: "invitations" },
);
invitationSchema.index({ tokenHash: 1 }, { unique: true });
invitationSchema.index({ userId: 1 });
export const Invitation = defineModel("Invitation", invitationSchema);

export interface InvitationDoc {
  tokenHash: string;
  userId: Id;
  companyId: Id;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertInvitation(invitation: InvitationDoc): Promise<void> {
  await Invitation.create(invitation);
}

/** The invitation of this token hash while it is unused and unexpired. */
export const findUsableInvitation = (tokenHash: string, now: Date) =>
  Invitation.findOne({ tokenHash, usedAt: null, expiresAt: { $gt: now } }).lean();

/** Uses up the invitation of this token hash, atomically; `null` if it was not usable. */
export const claimInvitation = (tokenHash: string, now: Date) =>
  Invitation.findOneAndUpdate(
    { tokenHash, usedAt: null, expiresAt: { $gt: now } },
    { $set: { usedAt: now } },
    { returnDocument: "after" },
  ).lean();
