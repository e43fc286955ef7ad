/**
 * Who may use the database: a TCP client authenticates with SCRAM-SHA-256 as MongoDB's drivers
 * speak it (the real driver, and the exchange written out by hand), and until then runs only the
 * handshake; the data directory and its files are its owner's only. The server here asks the
 * password also of its owner's own TCP connections (`peerTrust: false`), as it does of everybody
 * else's (those are auth-peer.test.ts's).
 */
import { Binary } from "bson";
import { MongoClient } from "mongodb";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readCredentials, startEmbeddedMongo } from "../index";
import { expectDataCommandsRefused, RawTcpConnection, scramClient, payloadText as text } from "../testing/raw-tcp";
import { tempServerForThisFile } from "../testing/temp-server";

const server = tempServerForThisFile("auth", { peerTrust: false });
const DB = "auth_test";

const anonymousUri = () => `mongodb://127.0.0.1:${server.port}/?directConnection=true`;
const uriWith = (user: string, password: string, authSource = "admin") =>
  `mongodb://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/?authSource=${authSource}&directConnection=true`;

async function connectError(uri: string, options: Record<string, unknown> = {}): Promise<unknown> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5000, ...options });
  try {
    await client.connect();
    await client.db(DB).collection("things").findOne();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

const bin = (value: string) => new Binary(Buffer.from(value));

describe("TCP clients authenticate with SCRAM-SHA-256", () => {
  let credentials: { user: string; password: string };

  beforeAll(() => {
    credentials = readCredentials(server.dir)!;
    expect(credentials.user).toBe("embedded");
    expect(credentials.password.length).toBeGreaterThanOrEqual(32);
  });

  it("the URI the server gives carries its credentials, and the driver's queries work through it", async () => {
    expect(server.uri).toBe(uriWith(credentials.user, credentials.password));
    const client = await MongoClient.connect(server.uri);
    try {
      const things = client.db(DB).collection<{ _id: number; name: string }>("things");
      await things.insertOne({ _id: 1, name: "one" });
      expect(await things.find().toArray()).toEqual([{ _id: 1, name: "one" }]);
      const status = await client.db("admin").command({ connectionStatus: 1 });
      expect(status.authInfo.authenticatedUsers).toEqual([{ user: "embedded", db: "admin" }]);
    } finally {
      await client.close();
    }
  });

  it("without credentials, the handshake runs and anything else is 13 Unauthorized, as on MongoDB", async () => {
    const client = await MongoClient.connect(anonymousUri());
    try {
      await expect(client.db("admin").command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
      await expect(client.db("admin").command({ buildInfo: 1 })).resolves.toMatchObject({ ok: 1 });
      await expect(client.db("admin").command({ hello: 1 })).resolves.toMatchObject({ isWritablePrimary: true });
      const status = await client.db("admin").command({ connectionStatus: 1 });
      expect(status.authInfo.authenticatedUsers).toEqual([]);
      await expectDataCommandsRefused(client, DB);
      await expect(client.db("admin").admin().listDatabases()).rejects.toMatchObject({ code: 13 });
      await expect(client.db("admin").command({ serverStatus: 1 })).rejects.toMatchObject({ code: 13 });
    } finally {
      await client.close();
    }
    // Nothing was written.
    const owner = await MongoClient.connect(server.uri);
    expect(
      await owner
        .db(DB)
        .collection("things")
        .countDocuments({ _id: 2 as never }),
    ).toBe(0);
    await owner.close();
  });

  it("a wrong password, an unknown user or another authSource is 18 AuthenticationFailed", async () => {
    for (const uri of [
      uriWith(credentials.user, `${credentials.password}x`),
      uriWith("somebody", credentials.password),
      uriWith(credentials.user, credentials.password, "test"),
    ]) {
      expect(await connectError(uri), uri).toMatchObject({
        code: 18,
        codeName: "AuthenticationFailed",
        message: "Authentication failed.",
      });
    }
  });

  it("refuses another mechanism with 334 MechanismUnavailable", async () => {
    const error = await connectError(uriWith(credentials.user, credentials.password), { authMechanism: "SCRAM-SHA-1" });
    expect(error).toMatchObject({ code: 334, codeName: "MechanismUnavailable" });
  });

  it("hello names the user's mechanisms when asked, and nothing for an unknown user", async () => {
    const wire = await RawTcpConnection.connect(server.port);
    try {
      expect(await wire.command({ hello: 1, saslSupportedMechs: "admin.embedded", $db: "admin" })).toMatchObject({
        saslSupportedMechs: ["SCRAM-SHA-256"],
        ok: 1,
      });
      expect(
        (await wire.command({ hello: 1, saslSupportedMechs: "admin.nobody", $db: "admin" })).saslSupportedMechs,
      ).toBeUndefined();
    } finally {
      wire.close();
    }
  });

  it("authenticates speculatively inside hello, and the server proves it knows the password", async () => {
    const wire = await RawTcpConnection.connect(server.port);
    try {
      const scram = scramClient(credentials.user, credentials.password);
      const hello = await wire.command({
        hello: 1,
        speculativeAuthenticate: {
          saslStart: 1,
          mechanism: "SCRAM-SHA-256",
          payload: bin(scram.first),
          options: { skipEmptyExchange: true },
          db: "admin",
        },
        $db: "admin",
      });
      expect(hello.speculativeAuthenticate).toMatchObject({ conversationId: 1, done: false });
      const final = scram.final(text(hello.speculativeAuthenticate.payload));
      const reply = await wire.command({
        saslContinue: 1,
        conversationId: 1,
        payload: bin(final.message),
        $db: "admin",
      });
      expect(reply).toMatchObject({ conversationId: 1, done: true, ok: 1 });
      expect(text(reply.payload)).toBe(final.serverSignature);
      expect(await wire.command({ find: "things", filter: {}, $db: DB })).toMatchObject({
        ok: 1,
        cursor: { firstBatch: [{ _id: 1, name: "one" }] },
      });
    } finally {
      wire.close();
    }
  });

  it("without skipEmptyExchange, finishes on an empty third message; a base64-string payload is answered in kind", async () => {
    const wire = await RawTcpConnection.connect(server.port);
    try {
      const scram = scramClient(credentials.user, credentials.password);
      const started = await wire.command({
        saslStart: 1,
        mechanism: "SCRAM-SHA-256",
        payload: Buffer.from(scram.first).toString("base64"),
        $db: "admin",
      });
      expect(started).toMatchObject({ conversationId: 1, done: false, ok: 1 });
      expect(typeof started.payload).toBe("string");
      const final = scram.final(Buffer.from(started.payload, "base64").toString());
      const second = await wire.command({
        saslContinue: 1,
        conversationId: 1,
        payload: Buffer.from(final.message).toString("base64"),
        $db: "admin",
      });
      expect(second).toMatchObject({ done: false, ok: 1 });
      expect(Buffer.from(second.payload, "base64").toString()).toBe(final.serverSignature);
      // Not yet authenticated until the exchange is done.
      expect(await wire.command({ find: "things", $db: DB })).toMatchObject({ ok: 0, code: 13 });
      expect(await wire.command({ saslContinue: 1, conversationId: 1, payload: "", $db: "admin" })).toMatchObject({
        done: true,
        ok: 1,
      });
      expect(await wire.command({ find: "things", $db: DB })).toMatchObject({ ok: 1 });
    } finally {
      wire.close();
    }
  });

  it("a wrong proof fails, leaves the connection unauthenticated, and a continue without a start is a protocol error", async () => {
    const wire = await RawTcpConnection.connect(server.port);
    try {
      expect(
        await wire.command({ saslContinue: 1, conversationId: 1, payload: bin("c=biws"), $db: "admin" }),
      ).toMatchObject({ ok: 0, code: 17, codeName: "ProtocolError" });
      const scram = scramClient(credentials.user, "not the password");
      const started = await wire.command({
        saslStart: 1,
        mechanism: "SCRAM-SHA-256",
        payload: bin(scram.first),
        $db: "admin",
      });
      const failed = await wire.command({
        saslContinue: 1,
        conversationId: 1,
        payload: bin(scram.final(text(started.payload)).message),
        $db: "admin",
      });
      expect(failed).toMatchObject({
        ok: 0,
        code: 18,
        codeName: "AuthenticationFailed",
        errmsg: "Authentication failed.",
      });
      expect(await wire.command({ find: "things", $db: DB })).toMatchObject({
        ok: 0,
        code: 13,
        errmsg: "Command find requires authentication",
      });
      // A malformed first message fails the same way, telling nothing more.
      expect(
        await wire.command({
          saslStart: 1,
          mechanism: "SCRAM-SHA-256",
          payload: bin("p=tls-unique,,n=embedded,r=abc"),
          $db: "admin",
        }),
      ).toMatchObject({ ok: 0, code: 18 });
    } finally {
      wire.close();
    }
  });
});

describe("the data directory is its owner's only", () => {
  const dirs: string[] = [];
  const tempDir = async (name = "data") => {
    const parent = await mkdtemp(path.join(tmpdir(), "embedded-mongo-modes-"));
    dirs.push(parent);
    return path.join(parent, name);
  };
  const mode = (file: string) => fs.statSync(file).mode & 0o777;

  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  afterAll(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("creates the directory 0700 and every file in it 0600, the socket included", async () => {
    const dir = await tempDir();
    const handle = await startEmbeddedMongo({ dir });
    try {
      expect(mode(dir)).toBe(0o700);
      for (const file of ["data.mdb", "lock.mdb", "mongod.lock", "credentials.json", "mongod.sock"]) {
        expect(mode(path.join(dir, file)), file).toBe(0o600);
      }
    } finally {
      await handle.close();
    }
  });

  it("tightens a directory and files left readable by others, and keeps the credentials found there", async () => {
    const dir = await tempDir();
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(
      path.join(dir, "credentials.json"),
      JSON.stringify({ user: "owner", password: "chosen password 1" }),
      { mode: 0o644 },
    );
    fs.chmodSync(path.join(dir, "credentials.json"), 0o644);
    const first = await startEmbeddedMongo({ dir });
    await first.close();
    for (const file of ["data.mdb", "lock.mdb"]) fs.chmodSync(path.join(dir, file), 0o644);
    fs.chmodSync(dir, 0o777);

    const handle = await startEmbeddedMongo({ dir });
    try {
      expect(mode(dir)).toBe(0o700);
      for (const file of ["data.mdb", "lock.mdb", "credentials.json"])
        expect(mode(path.join(dir, file)), file).toBe(0o600);
      expect(handle.uri).toContain("owner:chosen%20password%201@");
      const client = await MongoClient.connect(handle.uri);
      await expect(client.db(DB).command({ listCollections: 1 })).resolves.toMatchObject({ ok: 1 });
      await client.close();
    } finally {
      await handle.close();
    }
  });

  it("refuses to start with a password SASLprep would change, saying why", async () => {
    const dir = await tempDir();
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.writeFileSync(path.join(dir, "credentials.json"), JSON.stringify({ user: "owner", password: "pässword" }), {
      mode: 0o600,
    });
    await expect(startEmbeddedMongo({ dir })).rejects.toThrow(
      /credentials\.json: the password must be one or more printable ASCII characters/,
    );
    expect(fs.existsSync(path.join(dir, "mongod.lock"))).toBe(false);
  });

  it("serves a directory whose name has a dot, as mktemp makes them", async () => {
    const dir = await tempDir("tmp.AbC123");
    const handle = await startEmbeddedMongo({ dir });
    try {
      expect(fs.statSync(path.join(dir, "data.mdb")).isFile()).toBe(true);
      const client = await MongoClient.connect(handle.uri);
      await client
        .db(DB)
        .collection("dotted")
        .insertOne({ _id: 1 as never });
      expect(await client.db(DB).collection("dotted").countDocuments()).toBe(1);
      await client.close();
    } finally {
      await handle.close();
    }
  });
});
