import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "@/lib/config";
import { privateDirectory, privateFiles } from "@/lib/embedded-mongo/private-files";

const cache = new Map<string, Promise<CryptoKey>>();

/**
 * The key that signs access tokens: `AUTH_SECRET`, else a random secret generated once into
 * `DATA_DIR/auth-secret` (created exclusively, so concurrent first starts agree on one; the file
 * and its directory readable by their owner only). It is imported as an HMAC CryptoKey once:
 * given raw bytes, jose would import them on every request.
 */
export function signingKey(): Promise<CryptoKey> {
  const { authSecret, dataDir } = loadConfig();
  const cacheKey = authSecret ? `env:${authSecret}` : `file:${dataDir}`;
  let key = cache.get(cacheKey);
  if (!key) {
    const secret = authSecret ? Promise.resolve(new TextEncoder().encode(authSecret)) : generatedSecret(dataDir);
    key = secret.then((bytes) => crypto.subtle.importKey("raw", new Uint8Array(bytes), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
    key.catch(() => cache.delete(cacheKey));
    cache.set(cacheKey, key);
  }
  return key;
}

async function generatedSecret(dataDir: string): Promise<Uint8Array> {
  const file = path.join(dataDir, "auth-secret");
  privateDirectory(dataDir);
  try {
    await writeFile(file, randomBytes(48).toString("base64url"), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // A secret written by an older version may be readable by others.
    privateFiles([file]);
  }
  // Another process may have created the file and not yet written it: give it a moment.
  for (let attempt = 0; attempt < 20; attempt++) {
    const secret = (await readFile(file, "utf8")).trim();
    if (secret.length >= 32) return new TextEncoder().encode(secret);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${file} holds no usable secret; delete it to generate a new one`);
}
