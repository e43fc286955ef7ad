import { loadConfig } from "@/lib/base/config";
import { privateDirectory, privateFiles } from "@/lib/embedded-mongo/storage/private-files";
import { createHmac, createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const secrets = new Map<string, Promise<Uint8Array>>();

/**
 * The server's secret: `AUTH_SECRET`, else a random secret generated once into
 * `DATA_DIR/auth-secret` (created exclusively, so concurrent first starts agree on one; the file
 * and its directory readable by their owner only). Every server process sharing the data
 * directory or the variable holds the same one.
 */
function serverSecret(): Promise<Uint8Array> {
  const { authSecret, dataDir } = loadConfig();
  const cacheKey = authSecret ? `env:${authSecret}` : `file:${dataDir}`;
  let secret = secrets.get(cacheKey);
  if (!secret) {
    secret = authSecret ? Promise.resolve(new TextEncoder().encode(authSecret)) : generatedSecret(dataDir);
    secret.catch(() => secrets.delete(cacheKey));
    secrets.set(cacheKey, secret);
  }
  return secret;
}

/**
 * `derive(secret)`, computed once per server secret and `name`: a key imported or derived from
 * the secret is used on every request that signs or checks something (docs/benchmarks.md).
 */
export function fromSecret<T>(name: string, derive: (secret: Uint8Array) => T | Promise<T>): Promise<T> {
  const secret = serverSecret();
  let derived = fromSecrets.get(secret);
  if (!derived) fromSecrets.set(secret, (derived = new Map()));
  let value = derived.get(name) as Promise<T> | undefined;
  if (!value) {
    value = secret.then(derive);
    // A failed derivation is tried again; a failed secret is read again (`serverSecret`), under a new promise.
    value.catch(() => derived.delete(name));
    derived.set(name, value);
  }
  return value;
}

// Keyed by the secret's promise: a secret read again, or another `AUTH_SECRET`, derives anew.
const fromSecrets = new WeakMap<Promise<Uint8Array>, Map<string, Promise<unknown>>>();

/**
 * A key of its own for one purpose (`"cursor"`…), derived from the server's secret, so that
 * what one purpose signs can never pass for another's (a cursor is no access token).
 */
export const purposeKey = (purpose: string): Promise<KeyObject> =>
  fromSecret(`purpose:${purpose}`, (bytes) =>
    createSecretKey(createHmac("sha256", bytes).update(`purpose:${purpose}`).digest()),
  );

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
