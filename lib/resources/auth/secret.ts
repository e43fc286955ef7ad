import { loadConfig } from "@/lib/base/config";
import { serverSecret } from "@/lib/kernel/secret";

const cache = new Map<string, Promise<CryptoKey>>();

/**
 * The key that signs access tokens: the server's secret (lib/kernel/secret.ts). It is imported as
 * an HMAC CryptoKey once: given raw bytes, jose would import them on every request.
 */
export function signingKey(): Promise<CryptoKey> {
  const { authSecret, dataDir } = loadConfig();
  const cacheKey = authSecret ? `env:${authSecret}` : `file:${dataDir}`;
  let key = cache.get(cacheKey);
  if (!key) {
    key = serverSecret().then((bytes) =>
      crypto.subtle.importKey("raw", new Uint8Array(bytes), { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
        "verify",
      ]),
    );
    key.catch(() => cache.delete(cacheKey));
    cache.set(cacheKey, key);
  }
  return key;
}
