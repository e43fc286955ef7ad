/**
 * The wire protocol written by hand over raw TCP sockets: well-formed messages get MongoDB's
 * answers, malformed ones close their own connection and nothing else.
 */
import { BSON, type Document } from "bson";
import { MongoClient, MongoServerError } from "mongodb";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "../testing/temp-server";

const OP_REPLY = 1;
const OP_QUERY = 2004;
const OP_MSG = 2013;
const DB = "protocol_test";

const server = tempServerForThisFile("protocol");
let client: MongoClient;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
  await client
    .db(DB)
    .collection("things")
    .insertMany([
      { _id: 1 as never, name: "one" },
      { _id: 2 as never, name: "two" },
    ]);
});

afterAll(async () => {
  await client?.close();
});

function header(length: number, requestId: number, opCode: number, responseTo = 0): Buffer {
  const buf = Buffer.alloc(16);
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(requestId, 4);
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(opCode, 12);
  return buf;
}

function bson(doc: Document): Buffer {
  return Buffer.from(BSON.serialize(doc));
}

/** An OP_MSG with one kind-0 section; `trailer` is appended after it (a checksum, for instance). */
function opMsg(requestId: number, doc: Document, flags = 0, trailer = Buffer.alloc(0)): Buffer {
  const flagBits = Buffer.alloc(4);
  flagBits.writeUInt32LE(flags >>> 0);
  const body = Buffer.concat([flagBits, Buffer.from([0]), bson(doc), trailer]);
  return Buffer.concat([header(16 + body.length, requestId, OP_MSG), body]);
}

function opQuery(requestId: number, collection: string, query: Document): Buffer {
  const flags = Buffer.alloc(4);
  const name = Buffer.from(`${collection}\0`, "utf8");
  const skipReturn = Buffer.alloc(8);
  skipReturn.writeInt32LE(0, 0);
  skipReturn.writeInt32LE(-1, 4);
  const body = Buffer.concat([flags, name, skipReturn, bson(query)]);
  return Buffer.concat([header(16 + body.length, requestId, OP_QUERY), body]);
}

function crc32c(buf: Buffer): number {
  let crc = ~0;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return ~crc >>> 0;
}

interface Reply {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
  /** OP_MSG: flagBits; OP_REPLY: responseFlags. */
  flags: number;
  doc: Document;
  /** OP_REPLY only. */
  cursorId?: bigint;
  numberReturned?: number;
  /** OP_REPLY only: the length its document declares. */
  bodyLength?: number;
}

/** A reply without the cluster time every replica-set member adds to it. */
function withoutClusterTime(doc: Document): Document {
  const rest = { ...doc };
  delete rest.$clusterTime;
  delete rest.operationTime;
  return rest;
}

function parseReply(frame: Buffer): Reply {
  const base = {
    length: frame.readInt32LE(0),
    requestId: frame.readInt32LE(4),
    responseTo: frame.readInt32LE(8),
    opCode: frame.readInt32LE(12),
  };
  if (base.opCode === OP_MSG) {
    expect(frame.readUInt8(20)).toBe(0);
    return { ...base, flags: frame.readUInt32LE(16), doc: BSON.deserialize(frame.subarray(21)) };
  }
  expect(base.opCode).toBe(OP_REPLY);
  return {
    ...base,
    flags: frame.readInt32LE(16),
    cursorId: frame.readBigInt64LE(20),
    numberReturned: frame.readInt32LE(32),
    bodyLength: frame.readInt32LE(36),
    doc: BSON.deserialize(frame.subarray(36)),
  };
}

/** One raw connection: writes bytes, reads whole reply frames, and notices the server closing. */
class Raw {
  private readonly socket: net.Socket;
  private buffered = Buffer.alloc(0);
  private readonly frames: Buffer[] = [];
  private waiter?: () => void;
  received = 0;
  /** True once the server ended or reset the connection. */
  serverClosed = false;
  readonly closed: Promise<void>;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on("data", (chunk) => {
      this.received += chunk.length;
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4 && this.buffered.length >= this.buffered.readInt32LE(0)) {
        const length = this.buffered.readInt32LE(0);
        this.frames.push(this.buffered.subarray(0, length));
        this.buffered = this.buffered.subarray(length);
      }
      this.waiter?.();
    });
    socket.on("end", () => {
      this.serverClosed = true;
    });
    socket.on("error", () => {
      this.serverClosed = true;
    });
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
    void this.closed.then(() => this.waiter?.());
  }

  /** A TCP port (where only the handshake runs before authentication), or a Unix socket's path. */
  static connect(where: number | string): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const address = typeof where === "number" ? { host: "127.0.0.1", port: where } : { path: where };
      const socket = net.connect(address, () => resolve(new Raw(socket)));
      socket.once("error", reject);
    });
  }

  write(bytes: Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(bytes, () => resolve()));
  }

  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  get destroyed(): boolean {
    return this.socket.destroyed;
  }

  async next(timeoutMs = 5000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) {
      if (this.socket.destroyed) throw new Error("connection closed before a reply");
      if (Date.now() > deadline) throw new Error("no reply in time");
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, 50);
      });
    }
    return parseReply(this.frames.shift()!);
  }

  /** Resolves true when the connection closes within the time, false otherwise. */
  async closesWithin(ms: number): Promise<boolean> {
    return Promise.race([this.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
  }
}

let requestIds = 100;
const nextRequestId = () => ++requestIds;

async function hello(raw: Raw): Promise<Document> {
  const id = nextRequestId();
  await raw.write(opMsg(id, { hello: 1, $db: "admin" }));
  const reply = await raw.next();
  expect(reply.responseTo).toBe(id);
  return reply.doc;
}

/** The driver's pooled connection and a bystander raw connection both still get answers. */
async function othersStillServed(bystander: Raw): Promise<void> {
  const db = client.db(DB);
  await expect(db.command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  const found = await db.collection("things").find({}).sort({ _id: 1 }).toArray();
  expect(found).toEqual([
    { _id: 1, name: "one" },
    { _id: 2, name: "two" },
  ]);
  expect(bystander.destroyed).toBe(false);
  expect(await hello(bystander)).toMatchObject({ ok: 1, isWritablePrimary: true });
}

describe("malformed input closes only its own connection", () => {
  let bystander: Raw;

  beforeAll(async () => {
    bystander = await Raw.connect(server.port);
    expect(await hello(bystander)).toMatchObject({ ok: 1 });
  });

  afterAll(() => {
    bystander?.destroy();
  });

  /** Sends `bytes`, expects the server to close the connection without answering. */
  async function expectServerCloses(bytes: Buffer | Buffer[]): Promise<void> {
    const raw = await Raw.connect(server.port);
    for (const part of Array.isArray(bytes) ? bytes : [bytes]) await raw.write(part);
    expect(await raw.closesWithin(3000)).toBe(true);
    expect(raw.serverClosed).toBe(true);
    expect(raw.received).toBe(0);
    await othersStillServed(bystander);
  }

  it("a truncated message: the header announces 100 bytes, 30 arrive, then the client ends", async () => {
    const raw = await Raw.connect(server.port);
    const message = Buffer.concat([header(100, nextRequestId(), OP_MSG), Buffer.alloc(84, 0x41)]);
    await raw.write(message.subarray(0, 30));
    raw.end();
    expect(await raw.closesWithin(3000)).toBe(true);
    expect(raw.received).toBe(0);
    await othersStillServed(bystander);
  });

  it("a truncated message: only part of the 4-byte length arrives", async () => {
    const raw = await Raw.connect(server.port);
    await raw.write(Buffer.from([0x20, 0x00]));
    raw.end();
    expect(await raw.closesWithin(3000)).toBe(true);
    expect(raw.received).toBe(0);
    await othersStillServed(bystander);
  });

  it("an absurd length: 0x7fffffff", async () => {
    await expectServerCloses(header(0x7fffffff, nextRequestId(), OP_MSG));
  });

  it("a negative length", async () => {
    await expectServerCloses(header(-1, nextRequestId(), OP_MSG));
  });

  it("a length shorter than the header", async () => {
    await expectServerCloses(Buffer.concat([header(8, nextRequestId(), OP_MSG), Buffer.alloc(8)]));
  });

  it("a length over MongoDB's 48,000,000-byte message limit", async () => {
    await expectServerCloses(header(48_000_001, nextRequestId(), OP_MSG));
  });

  it("bad BSON in an OP_MSG: garbage where the body document should be", async () => {
    // A document length of 20, then an element of the unknown type 0x77 and random bytes.
    const garbage = Buffer.from([
      20, 0, 0, 0, 0x77, 0x78, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x13, 0x37, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x04, 0x00,
    ]);
    const body = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), garbage]);
    await expectServerCloses(Buffer.concat([header(16 + body.length, nextRequestId(), OP_MSG), body]));
  });

  it("bad BSON in an OP_MSG: a document length past the end of the message", async () => {
    const doc = bson({ ping: 1, $db: "admin" });
    doc.writeInt32LE(doc.length + 50, 0);
    const body = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), doc]);
    await expectServerCloses(Buffer.concat([header(16 + body.length, nextRequestId(), OP_MSG), body]));
  });

  it("bad BSON in an OP_MSG: a string whose length runs past its document", async () => {
    const doc = bson({ ping: "x", $db: "admin" });
    // The string's int32 length follows the type byte and the cstring "ping".
    doc.writeInt32LE(0x7fff, 4 + 1 + 5);
    const body = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), doc]);
    await expectServerCloses(Buffer.concat([header(16 + body.length, nextRequestId(), OP_MSG), body]));
  });

  it("an OP_MSG with an unknown section kind", async () => {
    const body = Buffer.concat([Buffer.alloc(4), Buffer.from([7]), bson({ ping: 1, $db: "admin" })]);
    await expectServerCloses(Buffer.concat([header(16 + body.length, nextRequestId(), OP_MSG), body]));
  });

  it("an unknown opcode", async () => {
    const body = bson({ ping: 1 });
    await expectServerCloses(Buffer.concat([header(16 + body.length, nextRequestId(), 9999), body]));
  });

  it("OP_COMPRESSED, which the server never advertised", async () => {
    const body = Buffer.concat([Buffer.alloc(9), bson({ ping: 1 })]);
    await expectServerCloses(Buffer.concat([header(16 + body.length, nextRequestId(), 2012), body]));
  });

  it("a good message followed by garbage in the same write gets no further than the garbage", async () => {
    const raw = await Raw.connect(server.port);
    const good = opMsg(nextRequestId(), { ping: 1, $db: "admin" });
    await raw.write(Buffer.concat([good, header(-5, nextRequestId(), OP_MSG)]));
    expect(await raw.closesWithin(3000)).toBe(true);
    expect(raw.serverClosed).toBe(true);
    await othersStillServed(bystander);
  });

  it("many bad connections at once leave the server serving", async () => {
    const bad = await Promise.all(Array.from({ length: 20 }, () => Raw.connect(server.port)));
    await Promise.all(
      bad.map((raw, i) =>
        raw.write(i % 2 ? header(0x7fffffff, i, OP_MSG) : Buffer.concat([header(32, i, 4242), Buffer.alloc(16)])),
      ),
    );
    const closed = await Promise.all(bad.map((raw) => raw.closesWithin(3000)));
    expect(closed.every(Boolean)).toBe(true);
    await othersStillServed(bystander);
  });
});

describe("well-formed messages", () => {
  // On the Unix socket, which needs no authentication: these are about framing, not access.
  it("a message split into single bytes is reassembled", async () => {
    const raw = await Raw.connect(server.socketPath);
    const id = nextRequestId();
    const message = opMsg(id, { find: "things", filter: { _id: 2 }, $db: DB });
    for (const byte of message) await raw.write(Buffer.from([byte]));
    const reply = await raw.next();
    expect(reply.responseTo).toBe(id);
    expect(reply.opCode).toBe(OP_MSG);
    expect(reply.doc).toMatchObject({ ok: 1, cursor: { firstBatch: [{ _id: 2, name: "two" }], ns: `${DB}.things` } });
    raw.destroy();
  });

  it("several messages in one write are answered in order", async () => {
    const raw = await Raw.connect(server.socketPath);
    const ids = [nextRequestId(), nextRequestId(), nextRequestId()];
    await raw.write(
      Buffer.concat([
        opMsg(ids[0], { insert: "ordered", documents: [{ _id: "a" }], $db: DB }),
        opMsg(ids[1], { count: "ordered", $db: DB }),
        opMsg(ids[2], { ping: 1, $db: "admin" }),
      ]),
    );
    const replies = [await raw.next(), await raw.next(), await raw.next()];
    expect(replies.map((r) => r.responseTo)).toEqual(ids);
    expect(replies.map((r) => withoutClusterTime(r.doc))).toEqual([{ n: 1, ok: 1 }, { n: 1, ok: 1 }, { ok: 1 }]);
    raw.destroy();
  });

  it("a kind-1 document sequence supplies the command's documents", async () => {
    const raw = await Raw.connect(server.socketPath);
    const id = nextRequestId();
    const docs = Buffer.concat([bson({ _id: "s1" }), bson({ _id: "s2" })]);
    const identifier = Buffer.from("documents\0");
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + identifier.length + docs.length);
    const body = Buffer.concat([
      Buffer.alloc(4),
      Buffer.from([0]),
      bson({ insert: "sequence", $db: DB }),
      Buffer.from([1]),
      size,
      identifier,
      docs,
    ]);
    await raw.write(Buffer.concat([header(16 + body.length, id, OP_MSG), body]));
    expect(withoutClusterTime((await raw.next()).doc)).toEqual({ n: 2, ok: 1 });
    expect(await client.db(DB).collection("sequence").find().toArray()).toEqual([{ _id: "s1" }, { _id: "s2" }]);
    raw.destroy();
  });

  it("tolerates the checksumPresent flag", async () => {
    const raw = await Raw.connect(server.socketPath);
    const id = nextRequestId();
    const unsigned = opMsg(id, { ping: 1, $db: "admin" }, 1, Buffer.alloc(4));
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32LE(crc32c(unsigned.subarray(0, unsigned.length - 4)));
    checksum.copy(unsigned, unsigned.length - 4);
    await raw.write(unsigned);
    const reply = await raw.next();
    expect(reply.responseTo).toBe(id);
    expect(withoutClusterTime(reply.doc)).toEqual({ ok: 1 });
    raw.destroy();
  });

  it("does not answer a moreToCome message, and runs it before the next one", async () => {
    const raw = await Raw.connect(server.socketPath);
    const quiet = nextRequestId();
    const loud = nextRequestId();
    await raw.write(opMsg(quiet, { insert: "quiet", documents: [{ _id: 1 }], writeConcern: { w: 0 }, $db: DB }, 2));
    await raw.write(opMsg(loud, { count: "quiet", $db: DB }));
    const reply = await raw.next();
    expect(reply.responseTo).toBe(loud);
    expect(withoutClusterTime(reply.doc)).toEqual({ n: 1, ok: 1 });
    raw.destroy();
  });

  it("answers a legacy OP_QUERY isMaster on admin.$cmd with an OP_REPLY", async () => {
    const raw = await Raw.connect(server.socketPath);
    const id = nextRequestId();
    await raw.write(
      opQuery(id, "admin.$cmd", { isMaster: 1, client: { driver: { name: "hand-written", version: "0" } } }),
    );
    const reply = await raw.next();
    expect(reply.opCode).toBe(OP_REPLY);
    expect(reply.responseTo).toBe(id);
    expect(reply.length).toBe(36 + reply.bodyLength!);
    expect(reply.flags).toBe(0);
    expect(reply.cursorId).toBe(0n);
    expect(reply.numberReturned).toBe(1);
    expect(reply.doc).toMatchObject({ ismaster: true, maxWireVersion: 21, ok: 1 });
    expect(reply.doc.minWireVersion).toBeLessThanOrEqual(21);
    expect(typeof reply.doc.maxBsonObjectSize).toBe("number");
    expect(reply.doc.compression).toBeUndefined();

    // Drivers may wrap the command in $query with a read preference.
    const wrapped = nextRequestId();
    await raw.write(
      opQuery(wrapped, "admin.$cmd", { $query: { ismaster: 1 }, $readPreference: { mode: "primaryPreferred" } }),
    );
    const second = await raw.next();
    expect(second.responseTo).toBe(wrapped);
    expect(second.doc).toMatchObject({ ismaster: true, maxWireVersion: 21, ok: 1 });

    // The same connection then speaks OP_MSG.
    expect(await hello(raw)).toMatchObject({ isWritablePrimary: true, maxWireVersion: 21 });
    raw.destroy();
  });
});

describe("command errors", () => {
  it("an unknown command is CommandNotFound (59)", async () => {
    const err = await client
      .db(DB)
      .command({ nope: 1 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err).toMatchObject({ code: 59, codeName: "CommandNotFound", message: "no such command: 'nope'" });
    await expect(client.db(DB).command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
  });

  it("answers an unknown command with ok: 0, code 59 and its codeName on the wire", async () => {
    const raw = await Raw.connect(server.port);
    const id = nextRequestId();
    await raw.write(opMsg(id, { nope: 1, $db: DB }));
    const reply = await raw.next();
    expect(reply.responseTo).toBe(id);
    expect(reply.doc).toMatchObject({
      ok: 0,
      code: 59,
      codeName: "CommandNotFound",
      errmsg: "no such command: 'nope'",
    });
    // An error reply leaves the connection usable.
    expect(await hello(raw)).toMatchObject({ ok: 1 });
    raw.destroy();
  });
});

describe("server monitoring", () => {
  it("answers every driver heartbeat, so the driver never clears its pool", async () => {
    const monitored = new MongoClient(server.uri, { heartbeatFrequencyMS: 500 });
    const outcomes: string[] = [];
    monitored.on("serverHeartbeatSucceeded", () => outcomes.push("ok"));
    monitored.on("serverHeartbeatFailed", (e) => outcomes.push(`failed: ${String(e.failure)}`));
    await monitored.connect();
    try {
      await new Promise((resolve) => setTimeout(resolve, 2600));
      expect(outcomes.filter((o) => o === "ok").length).toBeGreaterThanOrEqual(3);
      expect(outcomes.filter((o) => o !== "ok")).toEqual([]);
    } finally {
      await monitored.close();
    }
  });
});
