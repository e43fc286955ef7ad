/**
 * Secrets live in collections of their own, which no `/v2` route lists or reads and no
 * serialiser knows: password hashes, sessions and invitation tokens (the last two stored as
 * SHA-256 hashes, so a copy of the database does not hold usable tokens either).
 */
import { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

/** `_id` is the user's id: one password per user. */
export const Credential = defineModel(
  "SvcCredential",
  new Schema(
    {
      _id: { type: ObjectId, required: true },
      passwordHash: { type: String, required: true },
      modifiedAt: { type: Date, required: true },
    },
    { ...schemaOptions, collection: "credentials" },
  ),
);

/**
 * A sign-in (`kind: "browser"`, its token in the session cookie) or an access token issued by
 * the CLI (`kind: "api"`, no cookie). Every access token names its session in `sid`; deleting the
 * session revokes them all.
 */
const sessionSchema = new Schema(
  {
    kind: { type: String, enum: ["browser", "api"], required: true },
    tokenHash: { type: String, default: null },
    userId: { type: ObjectId, required: true },
    companyId: { type: ObjectId, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "sessions" },
);
sessionSchema.index({ tokenHash: 1 }, { unique: true, partialFilterExpression: { tokenHash: { $type: "string" } } });
sessionSchema.index({ userId: 1 });
sessionSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
export const Session = defineModel("SvcSession", sessionSchema);

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
export const Invitation = defineModel("SvcInvitation", invitationSchema);
