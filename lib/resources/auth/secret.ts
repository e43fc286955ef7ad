import { fromSecret } from "@/lib/kernel/secret";

/**
 * The key that signs access tokens: the server's secret (lib/kernel/secret.ts). It is imported as
 * an HMAC CryptoKey once: given raw bytes, jose would import them on every request.
 */
export const signingKey = (): Promise<CryptoKey> =>
  fromSecret("access-token", (bytes) =>
    crypto.subtle.importKey("raw", new Uint8Array(bytes), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]),
  );
