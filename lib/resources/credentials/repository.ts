/**
 * Passwords and sessions: the only code that reads or writes their collections. Secrets live in
 * collections of their own, which no `/v2` route lists or reads and no serialiser knows (session
 * tokens stored as SHA-256 hashes, so a copy of the database does not hold usable tokens either).
 * One way to the database: Mongoose models with typed lean results.
 */
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import { Schema } from "mongoose";

/** `_id` is the user's id: one password per user. */
export const Credential = defineModel(
  "Credential",
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
export const Session = defineModel("Session", sessionSchema);

// ---------------------------------------------------------------------------------------------
// Passwords

/** The user's password hash, if they have one. */
export async function findPasswordHash(userId: Id): Promise<string | undefined> {
  return (await Credential.findById(userId, { passwordHash: 1 }).lean())?.passwordHash;
}

export async function storePasswordHash(userId: Id, passwordHash: string): Promise<void> {
  await Credential.updateOne({ _id: userId }, { $set: { passwordHash, modifiedAt: new Date() } }, { upsert: true });
}

/** Stores a password unless the user has one; whether this call stored it. */
export async function storeFirstPasswordHash(userId: Id, passwordHash: string, now: Date): Promise<boolean> {
  const result = await Credential.updateOne(
    { _id: userId },
    { $setOnInsert: { passwordHash, modifiedAt: now } },
    { upsert: true },
  );
  return result.upsertedCount === 1;
}

export async function hasPassword(userId: Id): Promise<boolean> {
  return (await Credential.exists({ _id: userId })) !== null;
}

// ---------------------------------------------------------------------------------------------
// Sessions

/** What a new session is made of. */
export interface NewSession {
  _id?: Id;
  kind: "browser" | "api";
  tokenHash: string | null;
  userId: Id;
  companyId: Id;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertSession(session: NewSession): Promise<Id> {
  return (await Session.create(session))._id;
}

export const findSession = (id: string) => Session.findById(id, { userId: 1, companyId: 1, expiresAt: 1 }).lean();

export const findBrowserSession = (tokenHash: string) => Session.findOne({ tokenHash, kind: "browser" }).lean();

/** Deletes the session of this token hash; the session deleted, or `null`. */
export const deleteSessionByToken = (tokenHash: string) => Session.findOneAndDelete({ tokenHash }).lean();

/** Deletes the API session of this id; the session deleted, or `null`. */
export const deleteApiSession = (id: Id) => Session.findOneAndDelete({ _id: id, kind: "api" }).lean();

/** Deletes the user's sessions (all but `except`, only of `kind` or in `companyId` if given); how many. */
export async function deleteSessions(
  userId: Id,
  options: { except?: Id; kind?: "browser" | "api"; companyId?: Id },
): Promise<number> {
  const filter: Record<string, unknown> = { userId };
  if (options.companyId) filter.companyId = options.companyId;
  if (options.except) filter._id = { $ne: options.except };
  if (options.kind) filter.kind = options.kind;
  return (await Session.deleteMany(filter)).deletedCount;
}
