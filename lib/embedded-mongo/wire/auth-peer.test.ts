/**
 * A TCP connection from a socket of the directory's owner on this machine needs no password, as
 * the Unix socket does; one the server cannot attribute to that owner (another user, another
 * socket, a table it cannot read or parse) still authenticates. Real servers, real sockets and
 * the kernel's own /proc/net/tcp rows.
 */
import { BSON, type Document } from "bson";
import fc from "fast-check";
import { MongoClient } from "mongodb";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedMongo, startOrAttach, type EmbeddedMongoHandle } from "../index";
import { Store } from "../storage/store";
import { expectDataCommandsRefused } from "../testing/raw-tcp";
import { connectedByUser, peerUidIn, TCP_TABLES } from "./auth-peer";
import { scramSecret } from "./scram";
import { listen, type WireServer } from "./server";

const DB = "peer_test";
const uid = process.geteuid!();
const anonymous = (host: string, port: number) =>
  `mongodb://${host.includes(":") ? `[${host}]` : host}:${port}/?directConnection=true`;

const dirs: string[] = [];
const tempDir = async (name: string) => {
  const parent = await mkdtemp(path.join(tmpdir(), `embedded-mongo-peer-${name}-`));
  dirs.push(parent);
  return path.join(parent, "db");
};
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A connected pair of real TCP sockets on `host`: the client's, and the one the server accepted. */
async function socketPair(
  host: string,
  connectTo = host,
): Promise<{ client: net.Socket; accepted: net.Socket; close(): void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen({ host, port: 0 }, resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once("connection", resolve));
  const client = net.connect({ host: connectTo, port: (server.address() as net.AddressInfo).port });
  await new Promise<void>((resolve, reject) => client.once("connect", resolve).once("error", reject));
  const socket = await accepted;
  return {
    client,
    accepted: socket,
    close: () => {
      client.destroy();
      socket.destroy();
      server.close();
    },
  };
}

/** A command sent as the very first message of a new connection (no handshake before it), and its reply. */
function firstCommand(port: number, doc: Document): Promise<Document> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      const body = Buffer.concat([Buffer.alloc(5), Buffer.from(BSON.serialize(doc))]);
      const header = Buffer.alloc(16);
      header.writeInt32LE(16 + body.length, 0);
      header.writeInt32LE(1, 4);
      header.writeInt32LE(2013, 12);
      socket.write(Buffer.concat([header, body]));
    });
    let received = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4 && received.length >= received.readInt32LE(0)) {
        socket.destroy();
        resolve(BSON.deserialize(received.subarray(21, received.readInt32LE(0))));
      }
    });
    socket.once("error", reject);
  });
}

const endpoints = (socket: net.Socket) => ({
  peer: { address: socket.remoteAddress!, port: socket.remotePort! },
  server: { address: socket.localAddress!, port: socket.localPort! },
});

describe("the owner's own TCP connections need no password", () => {
  let handle: EmbeddedMongoHandle;
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir("owner");
    handle = await startEmbeddedMongo({ dir });
  });
  afterAll(async () => {
    await handle?.close();
  });

  it("hands out a URI without credentials that reads and writes, reported as the Unix socket's connections are", async () => {
    expect(handle.ownerUri).toBe(anonymous("127.0.0.1", handle.port));
    // Several pooled connections at once: each is attributed on its own.
    const client = await MongoClient.connect(handle.ownerUri!, { maxPoolSize: 8, minPoolSize: 4 });
    const viaSocket = await MongoClient.connect(handle.localUri);
    try {
      const things = client.db(DB).collection<{ _id: number }>("things");
      await Promise.all(Array.from({ length: 16 }, (_, i) => things.insertOne({ _id: i })));
      expect(await things.countDocuments()).toBe(16);
      const status = await client.db("admin").command({ connectionStatus: 1 });
      expect(status.authInfo).toEqual((await viaSocket.db("admin").command({ connectionStatus: 1 })).authInfo);
      expect(status.authInfo.authenticatedUsers).toEqual([]);
    } finally {
      await client.close();
      await viaSocket.close();
    }
  });

  it("a data command sent first, before any handshake, waits for the owner and runs", async () => {
    expect(await firstCommand(handle.port, { find: "things", filter: { _id: 3 }, $db: DB })).toMatchObject({
      ok: 1,
      cursor: { firstBatch: [{ _id: 3 }] },
    });
  });

  it("still authenticates a client that brings the credentials", async () => {
    const client = await MongoClient.connect(handle.uri);
    try {
      expect(await client.db(DB).collection("things").countDocuments()).toBe(16);
      const status = await client.db("admin").command({ connectionStatus: 1 });
      expect(status.authInfo.authenticatedUsers).toEqual([{ user: "embedded", db: "admin" }]);
    } finally {
      await client.close();
    }
  });

  it("a process attaching to the directory gets the same URI", async () => {
    const attached = await startOrAttach({ dir });
    expect(attached.attached).toBe(true);
    expect(attached.ownerUri).toBe(handle.ownerUri);
  });
});

describe("a connection the server cannot attribute to its owner authenticates", () => {
  let dir: string;
  let store: Store;
  let server: WireServer;
  beforeAll(async () => {
    dir = await tempDir("other");
    store = Store.open(dir);
    // The trusted user is not this process's: every connection of this test is somebody else's.
    server = await listen(store, {
      port: 0,
      host: "127.0.0.1",
      user: { name: "embedded", secret: scramSecret("the password") },
      trustedPeerUid: uid + 1,
    });
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
  });

  it("runs the handshake only, and 13 Unauthorized for data commands", async () => {
    expect(server.peerTrust).toBe(true);
    const client = await MongoClient.connect(anonymous("127.0.0.1", server.port), { serverSelectionTimeoutMS: 5000 });
    try {
      await expect(client.db("admin").command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
      const hello = await client.db("admin").command({ hello: 1, saslSupportedMechs: "admin.embedded" });
      expect(hello.saslSupportedMechs).toEqual(["SCRAM-SHA-256"]);
      const status = await client.db("admin").command({ connectionStatus: 1 });
      expect(status.authInfo.authenticatedUsers).toEqual([]);
      await expectDataCommandsRefused(client, DB);
    } finally {
      await client.close();
    }
    const owner = await MongoClient.connect(
      `mongodb://embedded:the%20password@127.0.0.1:${server.port}/?authSource=admin&directConnection=true`,
    );
    try {
      expect(await owner.db(DB).collection("things").countDocuments()).toBe(0);
    } finally {
      await owner.close();
    }
  });

  it("a data command sent first, before any handshake, is refused", async () => {
    expect(await firstCommand(server.port, { insert: "things", documents: [{ _id: 2 }], $db: DB })).toMatchObject({
      ok: 0,
      code: 13,
      errmsg: "Command insert requires authentication",
    });
  });

  it("peerTrust: false asks the owner's connections for the password too", async () => {
    const handle = await startEmbeddedMongo({ dir: await tempDir("off"), peerTrust: false });
    try {
      expect(handle.ownerUri).toBeUndefined();
      const client = await MongoClient.connect(anonymous("127.0.0.1", handle.port));
      try {
        await expect(client.db(DB).collection("things").findOne()).rejects.toMatchObject({ code: 13 });
      } finally {
        await client.close();
      }
    } finally {
      await handle.close();
    }
  });
});

describe("the owner of a connection, from the kernel's rows", () => {
  it("finds this process's uid for a real IPv4 connection, and nothing for another port", async () => {
    const pair = await socketPair("127.0.0.1");
    try {
      const { peer, server } = endpoints(pair.accepted);
      const table = await readFile(TCP_TABLES.v4, "latin1");
      expect(peerUidIn(table, peer, server)).toBe(uid);
      expect(peerUidIn(table, { ...peer, port: peer.port === 1 ? 2 : peer.port - 1 }, server)).toBeUndefined();
      expect(peerUidIn(table, peer, { ...server, port: server.port + 1 })).toBeUndefined();
      // The connection's row as the IPv6 table would spell it is not in the IPv4 table's text.
      expect(peerUidIn(await readFile(TCP_TABLES.v6, "latin1"), peer, server)).toBeUndefined();
      expect(await connectedByUser(pair.accepted, uid)).toBe(true);
      expect(await connectedByUser(pair.accepted, uid + 1)).toBe(false);
    } finally {
      pair.close();
    }
  });

  it("finds it for ::1, and for an IPv6 socket reaching an IPv4 address (::ffff:127.0.0.1)", async () => {
    const v6 = await socketPair("::1");
    const mapped = await socketPair("127.0.0.1", "::ffff:127.0.0.1");
    try {
      const { peer, server } = endpoints(v6.accepted);
      expect(peer.address).toBe("::1");
      expect(peerUidIn(await readFile(TCP_TABLES.v6, "latin1"), peer, server)).toBe(uid);
      expect(await connectedByUser(v6.accepted, uid)).toBe(true);
      // The server sees 127.0.0.1; the client's row is in the IPv6 table, as ::ffff:127.0.0.1.
      expect(mapped.accepted.remoteAddress).toBe("127.0.0.1");
      const rows = endpoints(mapped.accepted);
      expect(peerUidIn(await readFile(TCP_TABLES.v4, "latin1"), rows.peer, rows.server)).toBeUndefined();
      expect(peerUidIn(await readFile(TCP_TABLES.v6, "latin1"), rows.peer, rows.server)).toBe(uid);
      expect(await connectedByUser(mapped.accepted, uid)).toBe(true);
    } finally {
      v6.close();
      mapped.close();
    }
  });

  it("does not trust a table it cannot read, a non-local address, or a row not established", async () => {
    const pair = await socketPair("127.0.0.1");
    try {
      const missing = { v4: "/nonexistent/tcp", v6: "/nonexistent/tcp6" };
      expect(await connectedByUser(pair.accepted, uid, missing)).toBe(false);
      const far = { remoteAddress: "203.0.113.7", remotePort: 40000, localAddress: "127.0.0.1", localPort: 27017 };
      expect(await connectedByUser(far, uid)).toBe(false);
      const { peer, server } = endpoints(pair.accepted);
      const row = rowOf(await readFile(TCP_TABLES.v4, "latin1"), peer.port);
      // TIME_WAIT (06): a closed connection's row, whose uid column the kernel writes as 0.
      const closed = row.replace(/^(\s*\d+: \S+ \S+ )01/, "$106");
      expect(closed).not.toBe(row);
      expect(peerUidIn(`${HEADER}\n${closed}\n`, peer, server)).toBeUndefined();
      // The same row twice: not one answer.
      expect(peerUidIn(`${HEADER}\n${row}\n${row}\n`, peer, server)).toBeUndefined();
      expect(peerUidIn(`${HEADER}\n${row}\n`, peer, server)).toBe(uid);
    } finally {
      pair.close();
    }
  });

  it("a malformed line never throws and is never trusted", async () => {
    const pair = await socketPair("127.0.0.1");
    try {
      const { peer, server } = endpoints(pair.accepted);
      const row = rowOf(await readFile(TCP_TABLES.v4, "latin1"), peer.port);
      const fields = row.trim().split(/\s+/);
      const withField = (i: number, value: string) => fields.map((f, j) => (j === i ? value : f)).join(" ");
      const malformed = [
        "",
        ":",
        "garbage",
        "\u0000\u0001\u00ff",
        fields.slice(0, 7).join(" "),
        withField(7, "abc"),
        withField(7, "-1"),
        withField(7, "99999999999"),
        withField(7, "4294967296"),
        withField(3, "1"),
        withField(0, "x:"),
        withField(1, fields[1].toLowerCase()),
        withField(1, `${fields[1]}0`),
        withField(1, fields[1].replace(":", "")),
        withField(2, `${fields[2]}:1`),
        withField(1, `0${fields[1]}`),
      ];
      for (const line of malformed) {
        expect(() => peerUidIn(`${HEADER}\n${line}\n`, peer, server), line).not.toThrow();
        expect(peerUidIn(`${HEADER}\n${line}\n`, peer, server), line).toBeUndefined();
      }
      const file = path.join(path.dirname(await tempDir("table")), "tcp");
      await writeFile(file, `${HEADER}\n${malformed.join("\n")}\n`);
      expect(await connectedByUser(pair.accepted, uid, { v4: file, v6: file })).toBe(false);
      // Any edit of the real row, and any text at all: an owner's uid (a whole number) or nothing, never a throw.
      fc.assert(
        fc.property(
          fc.nat(row.length),
          fc.string({ maxLength: 12 }),
          fc.string({ maxLength: 200 }),
          (at, insert, noise) => {
            for (const table of [`${HEADER}\n${row.slice(0, at)}${insert}${row.slice(at + 1)}\n`, noise]) {
              const owner = peerUidIn(table, peer, server);
              expect(owner === undefined || (Number.isInteger(owner) && owner >= 0 && owner <= 0xffffffff)).toBe(true);
            }
          },
        ),
        { numRuns: 500 },
      );
    } finally {
      pair.close();
    }
  });
});

const HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode";

/** The row of the socket bound to `port` (the client's) in a real table. */
function rowOf(table: string, port: number): string {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, "0")} `;
  const rows = table.split("\n").filter((line) => line.trim().split(/\s+/)[1]?.endsWith(hex.trim()));
  // An earlier connection from the same port may linger closed (TIME_WAIT): this pair's row is the established one.
  const row = rows.find((line) => line.trim().split(/\s+/)[3] === "01") ?? rows[0];
  expect(row, `a row for port ${port}`).toBeDefined();
  return row!;
}
