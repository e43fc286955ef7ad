import { hash, verify } from "@node-rs/argon2";
import { Credential } from "@/lib/models";
import type { ObjectId } from "@/lib/server/ids";

/** Argon2id with the library's defaults (19 MiB, 2 passes): slow on purpose. */
export const hashPassword = (password: string): Promise<string> => hash(password);

let dummyHash: Promise<string> | undefined;

/**
 * Whether `password` is the user's. A user without a password (or no user at all) still costs one
 * hash verification, so that timing does not tell which e-mails exist.
 */
export async function checkPassword(userId: ObjectId | null, password: string): Promise<boolean> {
  const credential = userId ? await Credential.findById(userId, { passwordHash: 1 }).lean() : null;
  if (!credential) {
    dummyHash ??= hash("not-a-password-of-anyone");
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(credential.passwordHash, password).catch(() => false);
}

export async function storePasswordHash(userId: ObjectId, passwordHash: string): Promise<void> {
  await Credential.updateOne(
    { _id: userId },
    { $set: { passwordHash, modifiedAt: new Date() } },
    { upsert: true },
  );
}

/** Stores a password unless the user has one; whether this call stored it. */
export async function storeFirstPasswordHash(userId: ObjectId, passwordHash: string, now: Date): Promise<boolean> {
  const result = await Credential.updateOne({ _id: userId }, { $setOnInsert: { passwordHash, modifiedAt: now } }, { upsert: true });
  return result.upsertedCount === 1;
}

export async function hasPassword(userId: ObjectId): Promise<boolean> {
  return (await Credential.exists({ _id: userId })) !== null;
}
