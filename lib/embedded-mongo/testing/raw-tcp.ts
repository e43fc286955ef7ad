/**
 * One authenticated TCP connection that sends command documents exactly as given, for tests that
 * need what no driver sends: a read without `$readPreference` to a secondary (the driver adds
 * `primaryPreferred` on a direct connection). It authenticates with SCRAM-SHA-256, the client's
 * side written from RFC 5802.
 */
import { Binary, BSON, type Document } from "bson";
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import net from "node:net";

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

  /** Connects to `port` on 127.0.0.1 and authenticates as `user` (in `admin`). */
  static async open(port: number, user: string, password: string): Promise<RawTcpConnection> {
    const connection = await new Promise<RawTcpConnection>((resolve, reject) => {
      const socket = net.connect({ host: "127.0.0.1", port }, () => resolve(new RawTcpConnection(socket)));
      socket.once("error", reject);
    });
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
    const bare = `n=${user},r=${randomBytes(18).toString("base64")}`;
    const started = await this.command({
      saslStart: 1,
      mechanism: "SCRAM-SHA-256",
      payload: new Binary(Buffer.from(`n,,${bare}`)),
      options: { skipEmptyExchange: true },
      $db: "admin",
    });
    if (started.ok !== 1) throw new Error(`saslStart failed: ${String(started.errmsg)}`);
    const serverFirst = text(started.payload);
    const attrs = Object.fromEntries(serverFirst.split(",").map((kv) => [kv[0], kv.slice(2)]));
    const hmac = (key: Buffer, data: string) => createHmac("sha256", key).update(data).digest();
    const salted = pbkdf2Sync(password, Buffer.from(attrs.s, "base64"), Number(attrs.i), 32, "sha256");
    const clientKey = hmac(salted, "Client Key");
    const withoutProof = `c=${Buffer.from("n,,").toString("base64")},r=${attrs.r}`;
    const authMessage = `${bare},${serverFirst},${withoutProof}`;
    const signature = hmac(createHash("sha256").update(clientKey).digest(), authMessage);
    const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]));
    const done = await this.command({
      saslContinue: 1,
      conversationId: started.conversationId,
      payload: new Binary(Buffer.from(`${withoutProof},p=${proof.toString("base64")}`)),
      $db: "admin",
    });
    if (done.ok !== 1 || done.done !== true) throw new Error(`saslContinue failed: ${String(done.errmsg)}`);
  }
}

const text = (payload: unknown) =>
  payload instanceof Binary ? Buffer.from(payload.buffer.subarray(0, payload.position)).toString() : String(payload);
