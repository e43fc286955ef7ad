/**
 * The server as a replica set of one, seen through the driver: what `hello` reports, that the
 * driver monitors it by the streaming protocol and uses sessions and retryable writes with it,
 * over TCP with authentication and over the Unix socket.
 */
import { MongoClient, Timestamp, type CommandStartedEvent } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { socketUriFor } from "../index";
import { tempServerForThisFile } from "../testing/temp-server";

const server = tempServerForThisFile("replset");
let client: MongoClient;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri, { monitorCommands: true });
});

afterAll(async () => {
  await client?.close();
});

describe("hello", () => {
  it("reports the primary of a replica set of one, at the address the client connected to", async () => {
    const hello = await client.db("admin").command({ hello: 1 });
    const me = `127.0.0.1:${server.port}`;
    expect(hello).toMatchObject({
      setName: "rs0",
      setVersion: 1,
      hosts: [me],
      primary: me,
      me,
      isWritablePrimary: true,
      secondary: false,
      logicalSessionTimeoutMinutes: 30,
      ok: 1,
    });
    expect(hello.topologyVersion.processId).toBeDefined();
    expect(hello.lastWrite.opTime.ts).toBeInstanceOf(Timestamp);
    expect(hello.lastWrite.lastWriteDate).toBeInstanceOf(Date);
    expect(hello.$clusterTime.clusterTime).toBeInstanceOf(Timestamp);
    expect(hello.operationTime).toBeInstanceOf(Timestamp);
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

describe("the driver", () => {
  it("sees a replica-set primary over directConnection, on TCP with SCRAM and on the Unix socket", async () => {
    for (const uri of [server.uri, socketUriFor(server.socketPath)]) {
      const other = await MongoClient.connect(uri);
      try {
        await other.db("admin").command({ ping: 1 });
        const description = (
          other as unknown as { topology: { description: { servers: Map<string, { type: string; setName: string }> } } }
        ).topology.description;
        expect([...description.servers.values()].map((s) => [s.type, s.setName])).toEqual([["RSPrimary", "rs0"]]);
      } finally {
        await other.close();
      }
    }
  });

  it("discovers the set from a replicaSet URI without directConnection", async () => {
    const uri = server.uri.replace("directConnection=true", "replicaSet=rs0");
    const other = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 });
    try {
      await other.db("replset_test").collection("discovered").insertOne({ ok: true });
      const description = (other as unknown as { topology: { description: { type: string } } }).topology.description;
      expect(description.type).toBe("ReplicaSetWithPrimary");
    } finally {
      await other.close();
    }
  });

  it("monitors by the streaming protocol: awaited heartbeats keep coming and never fail", async () => {
    const monitored = new MongoClient(server.uri, { heartbeatFrequencyMS: 300 });
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
