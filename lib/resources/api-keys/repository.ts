/**
 * API keys: the only code that reads or writes their collection. A key is stored only as the
 * SHA-256 of its text (`keyHash`), so a copy of the database holds no usable key. One way to the
 * database: a Mongoose model with typed lean results.
 */
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";

const apiKeySchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    name: { type: String, required: true },
    scopes: { type: [String], required: true },
    prefix: { type: String, required: true },
    keyHash: { type: String, required: true },
    /** The user (or key) that created it. */
    createdBy: { type: ObjectId, default: null },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  { ...schemaOptions, collection: "apiKeys" },
);
apiKeySchema.index({ keyHash: 1 }, { unique: true });
apiKeySchema.index({ company: 1, revokedAt: 1, createdAt: -1, _id: -1 });
apiKeySchema.index({ company: 1, createdBy: 1 });
export const ApiKey = defineModel("ApiKey", apiKeySchema);

export type ApiKeyDoc = mongoose.InferSchemaType<typeof apiKeySchema> & { _id: mongoose.Types.ObjectId };

/** The one builder of a stored key. */
export function newDoc(
  fields: Pick<
    ApiKeyDoc,
    "company" | "name" | "scopes" | "prefix" | "keyHash" | "createdBy" | "createdAt" | "expiresAt"
  >,
): ApiKeyDoc {
  return { _id: new mongoose.Types.ObjectId(), lastUsedAt: null, revokedAt: null, ...fields };
}

export async function insertApiKey(doc: ApiKeyDoc): Promise<void> {
  await ApiKey.create(doc);
}

/** The company's keys that are not revoked, newest first. */
/** The company's keys that are not revoked, within a page's window; `after` starts after a cursor. */
export const findApiKeys = (
  company: Id,
  window: { sort: Record<string, 1 | -1>; skip: number; limit: number; after?: Record<string, unknown> },
) =>
  ApiKey.find({ company, revokedAt: null, ...(window.after ? { $and: [window.after] } : {}) })
    .sort(window.sort)
    .skip(window.skip)
    .limit(window.limit)
    .lean<ApiKeyDoc[]>();

export const countApiKeys = (company: Id) => ApiKey.countDocuments({ company, revokedAt: null }).exec();

/** The key of this hash unless revoked (expiry is the caller's check). */
export const findUsableApiKey = (keyHash: string) => ApiKey.findOne({ keyHash, revokedAt: null }).lean<ApiKeyDoc>();

/** Revokes the company's key; the key revoked, or `null` when there was none to revoke. */
export const revokeApiKeyDoc = (company: Id, id: Id, now: Date) =>
  ApiKey.findOneAndUpdate(
    { _id: id, company, revokedAt: null },
    { $set: { revokedAt: now } },
    { returnDocument: "after" },
  ).lean<ApiKeyDoc>();

/** The names of the company's keys among `ids`, revoked ones too. */
export const findKeyNames = (company: Id, ids: Id[]) =>
  ApiKey.find({ _id: { $in: ids }, company }, { name: 1 }).lean<Pick<ApiKeyDoc, "_id" | "name">[]>();

/** The company's keys not revoked that any of `creators` (users or keys) created. */
export const findLiveKeysMadeBy = (company: Id, creators: Id[]) =>
  ApiKey.find({ company, revokedAt: null, createdBy: { $in: creators } }).lean<ApiKeyDoc[]>();

/** Records a use, unless one was recorded since `since` (so concurrent requests write it once). */
export async function touchApiKey(id: Id, now: Date, since: Date): Promise<void> {
  await ApiKey.updateOne(
    { _id: id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: since } }] },
    { $set: { lastUsedAt: now } },
  );
}
