/**
 * The server as a replica set of a primary and a read-only secondary, seen through the driver and
 * Mongoose: what `hello` reports on each member, that the driver monitors them by the streaming
 * protocol, uses sessions and retryable writes, discovers the secondary and reads from it for a
 * `secondary` read preference, and that the secondary refuses what a MongoDB secondary refuses.
 */
import {
  MongoClient,
  Timestamp,
  UUID,
  type CommandStartedEvent,
  type Document,
  type MongoClientOptions,
  type MongoServerError,
} from "mongodb";
import mongoose, { Schema } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCredentials, socketUriFor } from "../index";
import { RawTcpConnection } from "../testing/raw-tcp";
import { caught, nextEvents, serverFailure, tempServerForThisFile } from "../testing/temp-server";

const server = tempServerForThisFile("replset");
let client: MongoClient;

const primaryAddress = () => `127.0.0.1:${server.port}`;
const secondaryAddress = () => `127.0.0.1:${server.secondaryPort}`;
/** The set discovered from the primary, as a URI without directConnection reaches it. */
const replicaSetUri = () => server.uri.replace("directConnection=true", "replicaSet=rs0");
/** The secondary alone, reached directly (as a tool pointed at one member would). */
const secondaryDirectUri = () => server.uri.replace(`:${server.port}/`, `:${server.secondaryPort}/`);

async function withClient<T>(uri: string, options: MongoClientOptions, work: (c: MongoClient) => Promise<T>) {
  const other = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000, ...options });
  try {
    return await work(other);
  } finally {
    await other.close();
  }
}

/** The addresses the client sent each command of `names` to, while `run` ran. */
async function addressesOf(c: MongoClient, names: string[], run: () => Promise<unknown>): Promise<string[]> {
  const started: CommandStartedEvent[] = [];
  const listener = (e: CommandStartedEvent) => started.push(e);
  c.on("commandStarted", listener);
  try {
    await run();
  } finally {
    c.off("commandStarted", listener);
  }
  return started.filter((e) => names.includes(e.commandName)).map((e) => e.address);
}

function serverTypes(c: MongoClient): Document {
  const description = (
    c as unknown as { topology: { description: { type: string; servers: Map<string, { type: string }> } } }
  ).topology.description;
  return {
    type: description.type,
    servers: Object.fromEntries([...description.servers].map(([address, s]) => [address, s.type])),
  };
}

beforeAll(async () => {
  client = await MongoClient.connect(server.uri, { monitorCommands: true });
});

afterAll(async () => {
  await client?.close();
});

describe("hello", () => {
  it("on the primary: the set's two members at the address the client connected to, the secondary a passive one", async () => {
    const hello = await client.db("admin").command({ hello: 1 });
    expect(hello).toMatchObject({
      setName: "rs0",
      setVersion: 1,
      hosts: [primaryAddress()],
      passives: [secondaryAddress()],
      primary: primaryAddress(),
      me: primaryAddress(),
      isWritablePrimary: true,
      secondary: false,
      logicalSessionTimeoutMinutes: 30,
      ok: 1,
    });
    expect(hello.passive).toBeUndefined();
    expect(hello.electionId).toBeDefined();
    expect(hello.topologyVersion.processId).toBeDefined();
    expect(hello.lastWrite.opTime.ts).toBeInstanceOf(Timestamp);
    expect(hello.lastWrite.lastWriteDate).toBeInstanceOf(Date);
    expect(hello.$clusterTime.clusterTime).toBeInstanceOf(Timestamp);
    expect(hello.operationTime).toBeInstanceOf(Timestamp);
  });

  it("on the secondary: the same set, topology version and last write, itself as `me`, not writable, no election", async () => {
    const fromPrimary = await client.db("admin").command({ hello: 1 });
    const hello = await withClient(secondaryDirectUri(), {}, (c) => c.db("admin").command({ hello: 1 }));
    expect(hello).toMatchObject({
      setName: "rs0",
      setVersion: 1,
      hosts: [primaryAddress()],
      passives: [secondaryAddress()],
      primary: primaryAddress(),
      me: secondaryAddress(),
      isWritablePrimary: false,
      secondary: true,
      passive: true,
      ok: 1,
    });
    expect(hello.electionId).toBeUndefined();
    expect(hello.topologyVersion).toEqual(fromPrimary.topologyVersion);
    expect(hello.lastWrite.opTime.ts.greaterThanOrEqual(fromPrimary.lastWrite.opTime.ts)).toBe(true);
    const legacy = await withClient(secondaryDirectUri(), {}, (c) => c.db("admin").command({ isMaster: 1 }));
    expect(legacy).toMatchObject({ ismaster: false, secondary: true, me: secondaryAddress() });
  });

  it("on the Unix socket: the primary alone, at the socket's path", async () => {
    const hello = await withClient(socketUriFor(server.socketPath), {}, (c) => c.db("admin").command({ hello: 1 }));
    expect(hello).toMatchObject({ hosts: [server.socketPath], primary: server.socketPath, me: server.socketPath });
    expect(hello.passives).toBeUndefined();
  });

  it("puts the cluster time in every reply, errors included, and advances it with each write", async () => {
    const db = client.db("replset_test");
    const before = (await db.command({ ping: 1 })).operationTime as Timestamp;
    await db.collection("clock").insertOne({ x: 1 });
    const after = (await db.command({ ping: 1 })).operationTime as Timestamp;
    expect(after.greaterThan(before)).toBe(true);
    const error = await db
      .command({ noSuchCommand: 1 })
      .catch((e: { errorResponse: Record<string, unknown> }) => e.errorResponse);
    expect(error).toMatchObject({ ok: 0, code: 59 });
    expect(error.$clusterTime).toBeDefined();
    expect(error.operationTime).toBeInstanceOf(Timestamp);
  });
});

describe("replSetGetConfig and replSetGetStatus", () => {
  it("describe the secondary as a member of priority 0 without a vote, on either member", async () => {
    const { config } = await client.db("admin").command({ replSetGetConfig: 1 });
    expect(config).toMatchObject({ _id: "rs0", version: 1 });
    expect(config.members).toMatchObject([
      { _id: 0, host: primaryAddress(), priority: 1, votes: 1, hidden: false, arbiterOnly: false },
      { _id: 1, host: secondaryAddress(), priority: 0, votes: 0, hidden: false, arbiterOnly: false },
    ]);
    const onSecondary = await withClient(secondaryDirectUri(), {}, (c) =>
      c.db("admin").command({ replSetGetConfig: 1 }),
    );
    expect(onSecondary.config.members).toEqual(config.members);
    // On the Unix socket, the secondary is where the TCP ports listen.
    const onSocket = await withClient(socketUriFor(server.socketPath), {}, (c) =>
      c.db("admin").command({ replSetGetConfig: 1 }),
    );
    expect(onSocket.config.members.map((m: Document) => m.host)).toEqual([server.socketPath, secondaryAddress()]);
  });

  it("report both members healthy at the same optime, and which one answered", async () => {
    const status = await withClient(secondaryDirectUri(), {}, (c) => c.db("admin").command({ replSetGetStatus: 1 }));
    expect(status).toMatchObject({ set: "rs0", myState: 2, votingMembersCount: 1, writeMajorityCount: 1, ok: 1 });
    expect(status.members).toMatchObject([
      { _id: 0, name: primaryAddress(), health: 1, state: 1, stateStr: "PRIMARY", self: false },
      { _id: 1, name: secondaryAddress(), health: 1, state: 2, stateStr: "SECONDARY", self: true },
    ]);
    expect(status.members[0].optime.ts.equals(status.members[1].optime.ts)).toBe(true);
    expect((await client.db("admin").command({ replSetGetStatus: 1 })).myState).toBe(1);
    const elsewhere = await serverFailure(client.db("replset_test").command({ replSetGetStatus: 1 }));
    expect(elsewhere).toMatchObject({
      code: 13,
      message: "replSetGetStatus may only be run against the admin database.",
    });
  });
});

describe("the driver", () => {
  it("sees a replica-set primary over directConnection, on TCP with SCRAM and on the Unix socket", async () => {
    for (const [uri, address] of [
      [server.uri, primaryAddress()],
      [socketUriFor(server.socketPath), server.socketPath],
    ]) {
      await withClient(uri, {}, async (other) => {
        await other.db("admin").command({ ping: 1 });
        expect(serverTypes(other)).toEqual({ type: "Single", servers: { [address]: "RSPrimary" } });
      });
    }
  });

  it("discovers both members from a replicaSet URI, and writes go to the primary", async () => {
    await withClient(replicaSetUri(), { monitorCommands: true }, async (other) => {
      const sentTo = await addressesOf(other, ["insert"], () =>
        other.db("replset_test").collection("discovered").insertOne({ ok: true }),
      );
      expect(sentTo).toEqual([primaryAddress()]);
      expect(serverTypes(other)).toEqual({
        type: "ReplicaSetWithPrimary",
        servers: { [primaryAddress()]: "RSPrimary", [secondaryAddress()]: "RSSecondary" },
      });
    });
  });

  it("monitors by the streaming protocol: awaited heartbeats keep coming and never fail", async () => {
    const monitored = new MongoClient(replicaSetUri(), { heartbeatFrequencyMS: 300 });
    const outcomes: string[] = [];
    monitored.on("serverHeartbeatSucceeded", (e) => outcomes.push(e.awaited ? "awaited" : "polled"));
    monitored.on("serverHeartbeatFailed", (e) => outcomes.push(`failed: ${String(e.failure)}`));
    await monitored.connect();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(outcomes.filter((o) => o === "awaited").length).toBeGreaterThanOrEqual(2);
      expect(outcomes.filter((o) => o.startsWith("failed"))).toEqual([]);
    } finally {
      await monitored.close();
    }
  });

  it("sends retryable writes (lsid and txnNumber) and they apply once", async () => {
    const started: CommandStartedEvent[] = [];
    const listener = (e: CommandStartedEvent) => started.push(e);
    client.on("commandStarted", listener);
    try {
      await client
        .db("replset_test")
        .collection("retryable")
        .insertOne({ _id: 1 as never });
    } finally {
      client.off("commandStarted", listener);
    }
    const insert = started.find((e) => e.commandName === "insert");
    expect(insert?.command.txnNumber).toBeDefined();
    expect(insert?.command.lsid).toBeDefined();
  });
});

describe("a secondary read preference", () => {
  it("reads from the secondary what was just written to the primary (it reads the primary's storage)", async () => {
    await client
      .db("replset_test")
      .collection("read_secondary")
      .insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }] as never[]);
    await withClient(replicaSetUri(), { readPreference: "secondary", monitorCommands: true }, async (other) => {
      const things = other.db("replset_test").collection("read_secondary");
      let docs: Document[] = [];
      // batchSize 1: the rest comes by getMore, on the member that holds the cursor.
      const sentTo = await addressesOf(other, ["find", "getMore", "count"], async () => {
        docs = await things.find({}, { batchSize: 1, sort: { _id: 1 } }).toArray();
        expect(await things.countDocuments()).toBe(3);
      });
      expect(docs).toEqual([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
      expect(new Set(sentTo)).toEqual(new Set([secondaryAddress()]));
      expect(sentTo.length).toBeGreaterThanOrEqual(3);
      // Writes of the same client still go to the primary.
      const writes = await addressesOf(other, ["insert"], () => things.insertOne({ _id: 4 } as never));
      expect(writes).toEqual([primaryAddress()]);
    });
  });

  it("closes a cursor left open on the secondary with killCursors there", async () => {
    await withClient(replicaSetUri(), { readPreference: "secondary", monitorCommands: true }, async (other) => {
      const cursor = other.db("replset_test").collection("read_secondary").find({}, { batchSize: 1 });
      const sentTo = await addressesOf(other, ["find", "killCursors"], async () => {
        await cursor.next();
        await cursor.close();
      });
      expect(sentTo).toEqual([secondaryAddress(), secondaryAddress()]);
    });
  });

  it("opens a change stream on the secondary that reports the primary's writes", async () => {
    await withClient(replicaSetUri(), { readPreference: "secondary", monitorCommands: true }, async (other) => {
      const stream = other.db("replset_test").collection("streamed").watch();
      try {
        const sentTo = await addressesOf(other, ["aggregate", "getMore"], async () => {
          await stream.tryNext(); // the stream is open before the write
          await client
            .db("replset_test")
            .collection("streamed")
            .insertOne({ _id: "seen" } as never);
          const [event] = await nextEvents(stream, 1);
          expect(event).toMatchObject({ operationType: "insert", documentKey: { _id: "seen" } });
        });
        expect(new Set(sentTo)).toEqual(new Set([secondaryAddress()]));
      } finally {
        await stream.close();
      }
    });
  });

  it("mongoose.connect with readPreference 'secondary' connects, reads, and turns autoIndex/autoCreate off", async () => {
    const m = new mongoose.Mongoose();
    await m.connect(replicaSetUri(), { readPreference: "secondary", dbName: "replset_mongoose" });
    try {
      expect(m.connection.get("autoIndex")).toBe(false);
      expect(m.connection.get("autoCreate")).toBe(false);
      await client
        .db("replset_mongoose")
        .collection("people")
        .insertOne({ name: "Ada" } as never);
      const Person = m.model("Person", new Schema({ name: String }));
      const found = await Person.findOne({ name: "Ada" }).lean();
      expect(found?.name).toBe("Ada");
    } finally {
      await m.disconnect();
    }
  });

  it("a schema with read: 'secondary' sends its queries to the secondary", async () => {
    const conn = await mongoose
      .createConnection(replicaSetUri(), { dbName: "replset_mongoose", monitorCommands: true })
      .asPromise();
    try {
      const Survey = conn.model("Survey", new Schema({ title: String }, { read: "secondary" }));
      await Survey.create({ title: "Q1" });
      const sentTo = await addressesOf(conn.getClient() as unknown as MongoClient, ["find"], async () => {
        expect((await Survey.find({ title: "Q1" }).lean()).map((s) => s.title)).toEqual(["Q1"]);
      });
      expect(sentTo).toEqual([secondaryAddress()]);
    } finally {
      await conn.close();
    }
  });
});

describe("the secondary refuses what a MongoDB secondary refuses", () => {
  it("every write sent straight to it: 10107 NotWritablePrimary", async () => {
    await withClient(secondaryDirectUri(), { retryWrites: false }, async (direct) => {
      const db = direct.db("replset_test");
      const things = db.collection<{ _id: number; x?: number }>("read_secondary");
      const refusals = [
        await serverFailure(things.insertOne({ _id: 9 })),
        await serverFailure(things.updateOne({ _id: 1 }, { $set: { x: 1 } })),
        await serverFailure(things.deleteOne({ _id: 1 })),
        await serverFailure(things.findOneAndUpdate({ _id: 1 }, { $set: { x: 1 } })),
        await serverFailure(db.createCollection("made_on_secondary")),
        await serverFailure(things.createIndex({ x: 1 })),
        await serverFailure(db.command({ drop: "read_secondary" })),
      ];
      for (const refusal of refusals) expect(refusal).toMatchObject({ code: 10107, codeName: "NotWritablePrimary" });
      // Its reads answer: on a direct connection the driver sends `primaryPreferred`, which opts in.
      expect(await things.countDocuments()).toBe(4);
    });
    expect(
      await client
        .db("replset_test")
        .collection("read_secondary")
        .findOne({ _id: 9 } as never),
    ).toBeNull();
  });

  it("a retryable write is refused with the label that tells the driver to retry it on the primary", async () => {
    const credentials = readCredentials(server.dir)!;
    const raw = await RawTcpConnection.open(server.secondaryPort, credentials.user, credentials.password);
    try {
      const reply = await raw.command({
        insert: "read_secondary",
        documents: [{ _id: 10 }],
        lsid: { id: new UUID() },
        txnNumber: 1,
        $db: "replset_test",
      });
      expect(reply).toMatchObject({ ok: 0, code: 10107, errmsg: "not primary", errorLabels: ["RetryableWriteError"] });
    } finally {
      raw.close();
    }
  });

  it("a read that does not opt in (no $readPreference, or 'primary'): 13435 NotPrimaryNoSecondaryOk", async () => {
    const credentials = readCredentials(server.dir)!;
    const raw = await RawTcpConnection.open(server.secondaryPort, credentials.user, credentials.password);
    try {
      const find = { find: "read_secondary", filter: {}, $db: "replset_test" };
      for (const command of [
        find,
        { ...find, $readPreference: { mode: "primary" } },
        { count: "read_secondary", $db: "replset_test" },
      ]) {
        expect(await raw.command(command)).toMatchObject({
          ok: 0,
          code: 13435,
          codeName: "NotPrimaryNoSecondaryOk",
          errmsg: "not primary and secondaryOk=false",
        });
      }
      for (const mode of ["secondary", "secondaryPreferred", "primaryPreferred", "nearest"]) {
        const reply = await raw.command({ ...find, $readPreference: { mode } });
        expect(reply).toMatchObject({ ok: 1, cursor: { firstBatch: expect.any(Array) } });
      }
      // What any member answers whoever asks.
      expect(await raw.command({ ping: 1, $db: "admin" })).toMatchObject({ ok: 1 });
      expect(await raw.command({ connectionStatus: 1, $db: "admin" })).toMatchObject({
        authInfo: { authenticatedUsers: [{ user: credentials.user, db: "admin" }] },
      });
    } finally {
      raw.close();
    }
  });

  it("a transaction: 10107, even for its reads (transactions run on the primary only)", async () => {
    await withClient(secondaryDirectUri(), {}, async (direct) => {
      const session = direct.startSession();
      try {
        session.startTransaction();
        const failure = (await caught(
          direct.db("replset_test").collection("read_secondary").findOne({}, { session }),
        )) as MongoServerError;
        expect(failure).toMatchObject({ code: 10107, codeName: "NotWritablePrimary" });
        expect(failure.hasErrorLabel("TransientTransactionError")).toBe(true);
      } finally {
        await session.endSession();
      }
    });
  });

  it("lets in a connection without credentials exactly when the primary's port does", async () => {
    const anonymous = (port: number) =>
      withClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {}, (c) =>
        c.db("replset_test").collection("read_secondary").countDocuments(),
      ).then(
        (count) => ({ count }),
        (error: MongoServerError) => ({ code: error.code }),
      );
    const [onPrimary, onSecondary] = [await anonymous(server.port), await anonymous(server.secondaryPort)];
    expect(onSecondary).toEqual(onPrimary);
  });

  it("continues only its own cursors: one opened on the primary is not found there (43)", async () => {
    const credentials = readCredentials(server.dir)!;
    const [primary, secondary] = await Promise.all(
      [server.port, server.secondaryPort].map((port) =>
        RawTcpConnection.open(port, credentials.user, credentials.password),
      ),
    );
    try {
      const opened = await primary.command({ find: "read_secondary", batchSize: 1, $db: "replset_test" });
      const getMore = { getMore: opened.cursor.id, collection: "read_secondary", $db: "replset_test" };
      expect(await secondary.command(getMore)).toMatchObject({ ok: 0, code: 43, codeName: "CursorNotFound" });
      expect(await primary.command(getMore)).toMatchObject({ ok: 1 });
    } finally {
      primary.close();
      secondary.close();
    }
  });

  it("asks for the same credentials as the primary's port", async () => {
    const wrong = secondaryDirectUri().replace(/:[^:@/]+@/, ":not-the-password@");
    const failure = await caught(withClient(wrong, {}, (c) => c.db("admin").command({ ping: 1 })));
    expect(failure).toMatchObject({ code: 18, codeName: "AuthenticationFailed" });
  });
});
