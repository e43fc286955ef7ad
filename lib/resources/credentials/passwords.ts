import type { ObjectId } from "@/lib/kernel/ids";
import { hash, verify } from "@node-rs/argon2";
import { findPasswordHash } from "./repository";

/** Argon2id with the library's defaults (19 MiB, 2 passes): slow on purpose. */
export const hashPassword = (password: string): Promise<string> => hash(password);

let dummyHash: Promise<string> | undefined;

/**
 * Whether `password` is the user's. A user without a password (or no user at all) still costs one
 * hash verification, so that timing does not tell which e-mails exist.
 */
export async function checkPassword(userId: ObjectId | null, password: string): Promise<boolean> {
  const passwordHash = userId ? await findPasswordHash(userId) : undefined;
  if (passwordHash === undefined) {
    dummyHash ??= hash("not-a-password-of-anyone");
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
