/**
 * One TCP connection that sends command documents exactly as given, for tests that need what no
 * driver sends: a read without `$readPreference` to a secondary (the driver adds
 * `primaryPreferred` on a direct connection), or the SASL exchange step by step. It can
 * authenticate with SCRAM-SHA-256, the client's side written from RFC 5802 independently of the
 * server's.
 */
import { Binary, BSON, type Document } from "bson";
import type { MongoClient } from "mongodb";
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import net from "node:net";
import { expect } from "vitest";

export class RawTcpConnection {
  private pending = Buffer.alloc(0);
  private readonly replies: Document[] = [];
  private wake?: () => void;
  private requestId = 0;

  private constructor(private readonly socket: net.Socket) {
    socket.on("data", (chunk) => {
      this.pending = Buffer.concat([this.pending, chunk]);
      while (this.pending.length >= 4 && this.pending.length >= this.pending.readInt32LE(0)) {
        const length = this.pending.readInt32LE(0);
        // Header (16), flag bits (4), section kind (1), then the body document.
        this.replies.push(BSON.deserialize(this.pending.subarray(21, length)));
        this.pending = this.pending.subarray(length);
      }
      this.wake?.();
    });
  }

  /** Connects to `port` on 127.0.0.1, without authenticating. */
  static connect(port: number): Promise<RawTcpConnection> {
    return new Promise<RawTcpConnection>((resolve, reject) => {
      const socket = net.connect({ host: "127.0.0.1", port }, () => resolve(new RawTcpConnection(socket)));
      socket.once("error", reject);
    });
  }

  /** Connects to `port` on 127.0.0.1 and authenticates as `user` (in `admin`). */
  static async open(port: number, user: string, password: string): Promise<RawTcpConnection> {
    const connection = await RawTcpConnection.connect(port);
    try {
      await connection.authenticate(user, password);
      return connection;
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  async command(doc: Document): Promise<Document> {
    const body = Buffer.concat([Buffer.alloc(5), Buffer.from(BSON.serialize(doc))]);
    const header = Buffer.alloc(16);
    header.writeInt32LE(16 + body.length, 0);
    header.writeInt32LE(++this.requestId, 4);
    header.writeInt32LE(2013, 12);
    this.socket.write(Buffer.concat([header, body]));
    while (this.replies.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.replies.shift()!;
  }

  close(): void {
    this.socket.destroy();
  }

  private async authenticate(user: string, password: string): Promise<void> {
    const client = scramClient(user, password);
    const started = await this.command({
      saslStart: 1,
      mechanism: "SCRAM-SHA-256",
      payload: new Binary(Buffer.from(client.first)),
      options: { skipEmptyExchange: true },
      $db: "admin",
    });
    if (started.ok !== 1) throw new Error(`saslStart failed: ${String(started.errmsg)}`);
    const done = await this.command({
      saslContinue: 1,
      conversationId: started.conversationId,
      payload: new Binary(Buffer.from(client.final(payloadText(started.payload)).message)),
      $db: "admin",
    });
    if (done.ok !== 1 || done.done !== true) throw new Error(`saslContinue failed: ${String(done.errmsg)}`);
  }
}

/** The client's side of SCRAM-SHA-256 (RFC 5802): its first message, then its final one and the server signature it expects. */
export function scramClient(user: string, password: string) {
  const bare = `n=${user},r=${randomBytes(18).toString("base64")}`;
  const hmac = (key: Buffer, data: string) => createHmac("sha256", key).update(data).digest();
  return {
    first: `n,,${bare}`,
    final(serverFirst: string) {
      const attrs = Object.fromEntries(serverFirst.split(",").map((kv) => [kv[0], kv.slice(2)]));
      const salted = pbkdf2Sync(password, Buffer.from(attrs.s, "base64"), Number(attrs.i), 32, "sha256");
      const clientKey = hmac(salted, "Client Key");
      const withoutProof = `c=${Buffer.from("n,,").toString("base64")},r=${attrs.r}`;
      const authMessage = `${bare},${serverFirst},${withoutProof}`;
      const signature = hmac(createHash("sha256").update(clientKey).digest(), authMessage);
      const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]));
      return {
        message: `${withoutProof},p=${proof.toString("base64")}`,
        serverSignature: `v=${hmac(hmac(salted, "Server Key"), authMessage).toString("base64")}`,
      };
    },
  };
}

/** A SASL payload as text. */
export const payloadText = (payload: unknown): string =>
  payload instanceof Binary ? Buffer.from(payload.buffer.subarray(0, payload.position)).toString() : String(payload);

/** Expects `client`, not authenticated, to be refused data commands on `db` as MongoDB refuses them. */
export async function expectDataCommandsRefused(client: MongoClient, db: string): Promise<void> {
  await expect(client.db(db).collection("things").findOne()).rejects.toMatchObject({
    code: 13,
    codeName: "Unauthorized",
    message: "Command find requires authentication",
  });
  await expect(
    client
      .db(db)
      .collection("things")
      .insertOne({ _id: 1 as never }),
  ).rejects.toMatchObject({ code: 13 });
}
