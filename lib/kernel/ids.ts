import { Types } from "mongoose";
import { createHash, randomBytes } from "node:crypto";

export type ObjectId = Types.ObjectId;

export const oid = (hex: string | ObjectId): ObjectId => (typeof hex === "string" ? new Types.ObjectId(hex) : hex);

export const newId = (): ObjectId => new Types.ObjectId();

/** An ObjectId derived from a name: the same name gives the same id (idempotent seeding). */
export const stableId = (name: string): ObjectId =>
  new Types.ObjectId(createHash("sha256").update(name).digest("hex").slice(0, 24));

/** A random URL-safe token of 32 bytes, and its SHA-256, which is what gets stored. */
export function secretToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");
