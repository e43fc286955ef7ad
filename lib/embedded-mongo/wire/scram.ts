/**
 * SCRAM-SHA-256 (RFC 5802 with RFC 7677's hash), the server's side, as MongoDB's drivers speak it
 * in `saslStart` / `saslContinue`: no channel binding, the password prepared with SASLprep, the
 * iteration count MongoDB uses by default. Only printable-ASCII passwords are accepted, for which
 * SASLprep changes nothing; any other password is refused rather than prepared half-right.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";

export const SCRAM_SHA_256 = "SCRAM-SHA-256";
/** MongoDB's default `scramSHA256IterationCount`. */
const SCRAM_ITERATIONS = 15_000;
const SALT_BYTES = 28;
const NONCE_BYTES = 24;

/** What the server keeps of a password (RFC 5802 §3): enough to check a proof, not to make one. */
export interface ScramSecret {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

/** Any failure of a conversation; the client is told only that authentication failed. */
export class ScramError extends Error {
  override name = "ScramError";
}

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * SASLprep (RFC 4013) of a printable-ASCII string is the string itself; other characters would
 * need the full Unicode mapping and normalisation tables, so they are refused.
 */
export function saslPrepAscii(password: string): string {
  if (!PRINTABLE_ASCII.test(password)) {
    throw new ScramError(
      "the password must be one or more printable ASCII characters (SASLprep of other characters is not supported)",
    );
  }
  return password;
}

export function scramSecret(
  password: string,
  iterations = SCRAM_ITERATIONS,
  salt: Buffer = randomBytes(SALT_BYTES),
): ScramSecret {
  const salted = pbkdf2Sync(saslPrepAscii(password), salt, iterations, 32, "sha256");
  return { salt, iterations, storedKey: sha256(hmac(salted, "Client Key")), serverKey: hmac(salted, "Server Key") };
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac("sha256", key).update(text, "utf8").digest();
}

function sha256(data: Buffer): Buffer {
  return createHash("sha256").update(data).digest();
}

/** `=2C` and `=3D` stand for `,` and `=` in a SCRAM user name; any other `=` is malformed. */
function decodeName(text: string): string {
  if (/=(?!2C|3D)/.test(text)) throw new ScramError("malformed user name");
  return text.replace(/=2C/g, ",").replace(/=3D/g, "=");
}

/** `k=v,k=v,...` into its attributes, in order. */
function attributes(text: string): Array<[string, string]> {
  return text.split(",").map((part) => {
    const match = /^([A-Za-z])=(.*)$/s.exec(part);
    if (!match) throw new ScramError("malformed SCRAM message");
    return [match[1], match[2]];
  });
}

const NONCE = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * One authentication attempt: `start` reads the client-first message and answers the
 * server-first; `finish` checks the client's proof and answers the server's signature.
 */
export class ScramConversation {
  private constructor(
    readonly user: string,
    private readonly secret: ScramSecret,
    private readonly gs2Header: string,
    private readonly clientFirstBare: string,
    private readonly serverFirst: string,
    private readonly nonce: string,
  ) {}

  /** `lookup` gives the secret of a user name, or undefined for an unknown user. */
  static start(
    clientFirst: string,
    lookup: (user: string) => ScramSecret | undefined,
  ): { conversation: ScramConversation; reply: string } {
    // gs2-header: a channel-binding flag ("n": client does not support it, "y": thinks the server
    // does not) and an optional authorisation identity; "p=" asks for channel binding.
    const match = /^([ny]),(a=[^,]*)?,(.*)$/s.exec(clientFirst);
    if (!match) throw new ScramError("unsupported or malformed GS2 header");
    const [, , authzid, bare] = match;
    const attrs = attributes(bare);
    if (attrs.length < 2 || attrs[0][0] !== "n" || attrs[1][0] !== "r")
      throw new ScramError("malformed client-first message");
    const user = decodeName(attrs[0][1]);
    if (authzid !== undefined && decodeName(authzid.slice(2)) !== user)
      throw new ScramError("authorisation identity differs from the user");
    const clientNonce = attrs[1][1];
    if (!NONCE.test(clientNonce)) throw new ScramError("malformed nonce");
    const secret = lookup(user);
    if (!secret) throw new ScramError(`no user ${JSON.stringify(user)}`);
    const nonce = clientNonce + randomBytes(NONCE_BYTES).toString("base64");
    const serverFirst = `r=${nonce},s=${secret.salt.toString("base64")},i=${secret.iterations}`;
    const gs2Header = clientFirst.slice(0, clientFirst.length - bare.length);
    return {
      conversation: new ScramConversation(user, secret, gs2Header, bare, serverFirst, nonce),
      reply: serverFirst,
    };
  }

  /** Checks the client-final message; answers the server-final one (`v=` signature). */
  finish(clientFinal: string): string {
    const proofAt = clientFinal.lastIndexOf(",p=");
    if (proofAt < 0) throw new ScramError("no proof in the client-final message");
    const withoutProof = clientFinal.slice(0, proofAt);
    const attrs = attributes(withoutProof);
    if (attrs.length < 2 || attrs[0][0] !== "c" || attrs[1][0] !== "r")
      throw new ScramError("malformed client-final message");
    if (attrs[0][1] !== Buffer.from(this.gs2Header, "utf8").toString("base64"))
      throw new ScramError("channel binding differs from the GS2 header");
    if (attrs[1][1] !== this.nonce) throw new ScramError("nonce differs from the server's");
    const proof = Buffer.from(clientFinal.slice(proofAt + 3), "base64");
    if (proof.length !== this.secret.storedKey.length) throw new ScramError("malformed proof");

    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = hmac(this.secret.storedKey, authMessage);
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i] ^ clientSignature[i];
    if (!timingSafeEqual(sha256(clientKey), this.secret.storedKey)) throw new ScramError("wrong password");
    return `v=${hmac(this.secret.serverKey, authMessage).toString("base64")}`;
  }
}
