/**
 * Multi-document transactions and retryable writes on the embedded replica set, through the
 * driver and Mongoose as an application uses them, and through raw commands where the exact
 * server answer matters. Every expectation is what a MongoDB replica set answers.
 */
import { Binary, Decimal128, Double, Int32, Long, MongoClient, ObjectId } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmbeddedMongo } from "../index";
import { rawCommand } from "../testing/raw-command";
import { caught, tempServerForThisFile } from "../testing/temp-server";

const DB = "txn_test";
const server = tempServerForThisFile("transactions");
let client: MongoClient;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});

afterAll(async () => {
  await client?.close();
});

const accounts = () => client.db(DB).collection<{ _id: string; balance: number }>("accounts");

beforeEach(async () => {
  await accounts().deleteMany({});
  await accounts().insertMany([
    { _id: "alice", balance: 100 },
    { _id: "bob", balance: 0 },
  ]);
});

describe("withTransaction", () => {
  it("commits all its writes at once; until then, others see none of them and it sees its own", async () => {
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await accounts().updateOne({ _id: "alice" }, { $inc: { balance: -30 } }, { session });
        await accounts().updateOne({ _id: "bob" }, { $inc: { balance: 30 } }, { session });
        await accounts().insertOne({ _id: "carol", balance: 5 }, { session });
        expect(await accounts().find({}, { session }).sort({ _id: 1 }).toArray()).toEqual([
          { _id: "alice", balance: 70 },
          { _id: "bob", balance: 30 },
          { _id: "carol", balance: 5 },
        ]);
        expect(await accounts().countDocuments({}, { session })).toBe(3);
        // Outside the transaction: nothing yet.
        expect(await accounts().find().sort({ _id: 1 }).toArray()).toEqual([
          { _id: "alice", balance: 100 },
          { _id: "bob", balance: 0 },
        ]);
      });
    } finally {
      await session.endSession();
    }
    expect(await accounts().find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: "alice", balance: 70 },
      { _id: "bob", balance: 30 },
      { _id: "carol", balance: 5 },
    ]);
  });

  it("reads a snapshot as of its start: a write committed meanwhile by others stays unseen", async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      expect(await accounts().findOne({ _id: "bob" }, { session })).toEqual({ _id: "bob", balance: 0 });
      await accounts().insertOne({ _id: "dave", balance: 1 });
      expect(await accounts().findOne({ _id: "dave" }, { session })).toBeNull();
      expect(await accounts().countDocuments({}, { session })).toBe(2);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await accounts().countDocuments({})).toBe(3);
  });

  it("discards every write when the callback throws (the driver aborts)", async () => {
    const session = client.startSession();
    try {
      await expect(
        session.withTransaction(async () => {
          await accounts().insertOne({ _id: "eve", balance: 1 }, { session });
          await accounts().deleteOne({ _id: "alice" }, { session });
          throw new Error("changed my mind");
        }),
      ).rejects.toThrow("changed my mind");
    } finally {
      await session.endSession();
    }
    expect(await accounts().find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: "alice", balance: 100 },
      { _id: "bob", balance: 0 },
    ]);
  });

  it("a duplicate key inside a transaction fails it and leaves nothing", async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      await accounts().insertOne({ _id: "frank", balance: 1 }, { session });
      const error = await caught(accounts().insertOne({ _id: "alice", balance: 1 }, { session }));
      expect(error.code).toBe(11000);
      const after = await caught(accounts().insertOne({ _id: "gina", balance: 1 }, { session }));
      expect(after.code).toBe(251);
      expect(after.errorLabels).toContain("TransientTransactionError");
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await accounts().countDocuments({})).toBe(2);
  });
});

describe("write conflicts", () => {
  it("a second transaction writing the same document gets WriteConflict (112) with TransientTransactionError", async () => {
    const first = client.startSession();
    const second = client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await accounts().updateOne({ _id: "alice" }, { $inc: { balance: 1 } }, { session: first });
      const error = await caught(accounts().updateOne({ _id: "alice" }, { $inc: { balance: 2 } }, { session: second }));
      expect(error.code).toBe(112);
      expect(error.codeName).toBe("WriteConflict");
      expect(error.errorLabels).toContain("TransientTransactionError");
      await first.commitTransaction();
      await second.abortTransaction();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect(await accounts().findOne({ _id: "alice" })).toEqual({ _id: "alice", balance: 101 });
  });

  it("withTransaction retries a conflicting transaction until it goes through", async () => {
    const holder = client.startSession();
    const retrier = client.startSession();
    let attempts = 0;
    try {
      holder.startTransaction();
      await accounts().updateOne({ _id: "bob" }, { $inc: { balance: 10 } }, { session: holder });
      const retried = retrier.withTransaction(async () => {
        attempts += 1;
        if (attempts === 2) await holder.commitTransaction();
        await accounts().updateOne({ _id: "bob" }, { $inc: { balance: 5 } }, { session: retrier });
      });
      await retried;
    } finally {
      await holder.endSession();
      await retrier.endSession();
    }
    expect(attempts).toBe(2);
    expect(await accounts().findOne({ _id: "bob" })).toEqual({ _id: "bob", balance: 15 });
  });

  it("a transaction writing a document changed by a plain write after its snapshot conflicts", async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      await accounts().findOne({ _id: "alice" }, { session });
      await accounts().updateOne({ _id: "alice" }, { $set: { balance: 1 } });
      const error = await caught(accounts().updateOne({ _id: "alice" }, { $set: { balance: 2 } }, { session }));
      expect(error.code).toBe(112);
      expect(error.errorLabels).toContain("TransientTransactionError");
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await accounts().findOne({ _id: "alice" })).toEqual({ _id: "alice", balance: 1 });
  });

  it("two transactions taking the same unique key: the later commit conflicts, and its retry meets the duplicate", async () => {
    const users = client.db(DB).collection("unique_users");
    await users.createIndex({ email: 1 }, { unique: true });
    const first = client.startSession();
    const second = client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await users.insertOne({ email: "same@x" }, { session: first });
      await users.insertOne({ email: "same@x" }, { session: second });
      await first.commitTransaction();
      const error = await caught(second.commitTransaction());
      expect(error.code).toBe(112);
      expect(error.errorLabels).toContain("TransientTransactionError");
      const retried = await caught(
        second.withTransaction(() => users.insertOne({ email: "same@x" }, { session: second })),
      );
      expect(retried.code).toBe(11000);
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect(await users.countDocuments({ email: "same@x" })).toBe(1);
  });

  it("two transactions taking unique keys that differ only past what an index key keeps of a string: both commit", async () => {
    const users = client.db(DB).collection("long_unique_users");
    await users.createIndex({ email: 1 }, { unique: true });
    const long = "x".repeat(250);
    const first = client.startSession();
    const second = client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await users.insertOne({ email: `${long}1` }, { session: first });
      await users.insertOne({ email: `${long}2` }, { session: second });
      await first.commitTransaction();
      await second.commitTransaction();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect((await users.find({}, { sort: { email: 1 } }).toArray()).map((u) => u.email)).toEqual([
      `${long}1`,
      `${long}2`,
    ]);
    expect(await users.countDocuments({ email: `${long}2` })).toBe(1);
  });

  it("a plain write to a document an open transaction wrote waits for its commit, then applies", async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      await accounts().updateOne({ _id: "alice" }, { $set: { balance: 7 } }, { session });
      let done = false;
      const plain = accounts()
        .updateOne({ _id: "alice" }, { $inc: { balance: 1 } })
        .then(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(done).toBe(false);
      await session.commitTransaction();
      await plain;
    } finally {
      await session.endSession();
    }
    expect(await accounts().findOne({ _id: "alice" })).toEqual({ _id: "alice", balance: 8 });
  });
});

describe("the commit", () => {
  // A commit writes the index entries its transaction computed, and checks its unique keys again when someone else wrote to the collection since its snapshot (transactions.ts): both must leave the same sound collection.
  for (const meanwhile of [false, true]) {
    it(`leaves indexes exact, multikey learned and the change stream told, ${meanwhile ? "after another write to the collection" : "when no one else wrote"}`, async () => {
      const db = client.db(DB);
      const name = `commit_${meanwhile ? "slow" : "fast"}`;
      const things = db.collection<{ _id: number; email?: string; tags?: string[]; n?: number }>(name);
      await things.drop().catch(() => undefined);
      await things.insertMany([
        { _id: 1, email: "a@x", n: 1 },
        { _id: 2, email: "b@x", n: 2 },
        { _id: 3, email: "c@x", n: 3 },
      ]);
      await things.createIndex({ email: 1 }, { unique: true });
      await things.createIndex({ tags: 1 });
      await things.createIndex({ n: 1, email: 1 });
      const stream = things.watch();
      await stream.tryNext();
      const session = client.startSession();
      try {
        session.startTransaction();
        await things.insertOne({ _id: 4, email: "d@x", tags: ["red", "blue"], n: 4 }, { session });
        await things.updateOne({ _id: 1 }, { $set: { email: "a2@x", tags: ["green"] } }, { session });
        await things.deleteOne({ _id: 2 }, { session });
        // A unique key freed and taken again inside the transaction: the order of its writes counts.
        await things.updateOne({ _id: 3 }, { $set: { email: "c-old@x" } }, { session });
        await things.insertOne({ _id: 5, email: "c@x" }, { session });
        if (meanwhile) await things.insertOne({ _id: 6, email: "f@x" });
        await session.commitTransaction();
      } finally {
        await session.endSession();
      }
      const report = await db.command({ validate: name });
      expect(report).toMatchObject({
        valid: true,
        missingIndexEntries: [],
        extraIndexEntries: [],
        nrecords: meanwhile ? 5 : 4,
      });
      expect(report.keysPerIndex).toEqual({
        _id_: meanwhile ? 5 : 4,
        email_1: meanwhile ? 5 : 4,
        tags_1: meanwhile ? 6 : 5,
        n_1_email_1: meanwhile ? 5 : 4,
      });
      expect((await things.find({ tags: "blue" }).toArray()).map((doc) => doc._id)).toEqual([4]);
      expect((await things.find({ email: "c@x" }).toArray()).map((doc) => doc._id)).toEqual([5]);
      const plan = JSON.stringify(await things.find({ tags: "red" }).explain());
      expect(plan).toContain('"indexName":"tags_1"');
      expect(plan).toContain('"isMultiKey":true');
      const seen: string[] = [];
      while (seen.length < (meanwhile ? 6 : 5)) {
        const change = await stream.tryNext();
        if (!change) continue;
        seen.push(`${change.operationType} ${String((change as { documentKey?: { _id: number } }).documentKey?._id)}`);
        if (change.operationType === "insert" && change.documentKey._id === 4)
          expect(change.fullDocument).toEqual({ _id: 4, email: "d@x", tags: ["red", "blue"], n: 4 });
      }
      await stream.close();
      expect(seen.filter((line) => line !== "insert 6")).toEqual([
        "insert 4",
        "update 1",
        "delete 2",
        "update 3",
        "insert 5",
      ]);
    });
  }
});

describe("index entries of a transaction", () => {
  // Entries of an index the transaction never reads wait unsorted, in the order written, until the commit (kv.ts): a key written, removed and written again must end as the last write left it.
  it("end as the transaction's last write left them, whether or not it read the index meanwhile", async () => {
    const db = client.db(DB);
    const things = db.collection<{ _id: number; colour: string; size: number }>("entries_order");
    await things.drop().catch(() => undefined);
    await things.insertMany([
      { _id: 1, colour: "red", size: 1 },
      { _id: 2, colour: "blue", size: 2 },
    ]);
    await things.createIndex({ colour: 1 });
    await things.createIndex({ size: 1 });
    const session = client.startSession();
    try {
      session.startTransaction();
      // `colour` is never read inside: red → green → red again, and blue → green.
      await things.updateOne({ _id: 1 }, { $set: { colour: "green" } }, { session });
      await things.updateOne({ _id: 1 }, { $set: { colour: "red" } }, { session });
      await things.updateOne({ _id: 2 }, { $set: { colour: "green" } }, { session });
      // `size` is read half-way, then written again.
      await things.updateOne({ _id: 1 }, { $set: { size: 3 } }, { session });
      expect((await things.find({ size: 3 }, { session, hint: { size: 1 } }).toArray()).map((doc) => doc._id)).toEqual([
        1,
      ]);
      await things.updateOne({ _id: 1 }, { $set: { size: 1 } }, { session });
      await things.insertOne({ _id: 3, colour: "green", size: 3 }, { session });
      expect(
        (await things.find({ size: { $gte: 1 } }, { session, hint: { size: 1 } }).toArray()).map((doc) => doc._id),
      ).toEqual([1, 2, 3]);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    const report = await db.command({ validate: "entries_order" });
    expect(report).toMatchObject({ valid: true, missingIndexEntries: [], extraIndexEntries: [], nrecords: 3 });
    expect(report.keysPerIndex).toEqual({ _id_: 3, colour_1: 3, size_1: 3 });
    const ids = async (filter: object, hint: object) =>
      (await things.find(filter, { hint }).toArray()).map((doc) => doc._id);
    expect(await ids({ colour: "red" }, { colour: 1 })).toEqual([1]);
    expect(await ids({ colour: "green" }, { colour: 1 })).toEqual([2, 3]);
    expect(await ids({ colour: "blue" }, { colour: 1 })).toEqual([]);
    expect(await ids({ size: 3 }, { size: 1 })).toEqual([3]);
    expect(await ids({ size: 1 }, { size: 1 })).toEqual([1]);
  });
});

describe("inserts committed by a transaction", () => {
  // The commit reads each inserted document's `_id` alone from its bytes (bson-values.ts decodeId): every type must reach the change stream as it was sent.
  it("reach the change stream with each _id of its own BSON type, as a plain insert does", async () => {
    const coll = client.db(DB).collection<{ _id: unknown; n: number }>("id_types");
    await coll.drop().catch(() => undefined);
    await client.db(DB).createCollection("id_types");
    const ids = [
      new ObjectId(),
      "text-id",
      "",
      new Int32(7),
      Long.fromString("1099511627776"),
      new Double(2.5),
      new Double(-0.5),
      new Date("2026-01-02T03:04:05Z"),
      new Decimal128("1.10"),
      { nested: "id" },
    ];
    const raw = { promoteValues: false } as const;
    const opened = await rawCommand(
      server.socketPath,
      { aggregate: "id_types", pipeline: [{ $changeStream: {} }], cursor: {}, $db: DB },
      raw,
    );
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await coll.insertMany(
          ids.map((_id, n) => ({ _id, n })),
          { session, promoteValues: false, ignoreUndefined: false },
        );
      });
    } finally {
      await session.endSession();
    }
    // And one written outside a transaction, through the same log.
    const plain = Long.fromString("2199023255552");
    await coll.insertOne({ _id: plain, n: ids.length });
    ids.push(plain);
    const keys: unknown[] = [];
    for (let tries = 0; keys.length < ids.length && tries < 50; tries++) {
      const more = await rawCommand(
        server.socketPath,
        { getMore: opened.cursor.id, collection: "id_types", $db: DB },
        raw,
      );
      for (const change of more.cursor.nextBatch as Array<{ operationType: string; documentKey: { _id: unknown } }>)
        if (change.operationType === "insert") keys.push(change.documentKey._id);
    }
    const typeOf = (value: unknown) =>
      (value as { _bsontype?: string } | null)?._bsontype ?? (value instanceof Date ? "Date" : typeof value);
    expect(keys.map(typeOf)).toEqual(ids.map(typeOf));
    expect(keys.map((key) => JSON.stringify(key))).toEqual(ids.map((id) => JSON.stringify(id)));
  });
});

describe("the transaction commands on the wire", () => {
  const lsid = () => ({ id: new Binary(Buffer.from(crypto.getRandomValues(new Uint8Array(16))), 4) });

  it("commitTransaction after abortTransaction is NoSuchTransaction (251); abort after commit is TransactionCommitted (256)", async () => {
    const id = lsid();
    const txn = { lsid: id, txnNumber: Long.fromNumber(1), autocommit: false };
    expect(
      await rawCommand(server.socketPath, {
        insert: "wire",
        documents: [{ _id: 1 }],
        ...txn,
        startTransaction: true,
        $db: DB,
      }),
    ).toMatchObject({ ok: 1, n: 1 });
    expect(await rawCommand(server.socketPath, { abortTransaction: 1, ...txn, $db: "admin" })).toMatchObject({ ok: 1 });
    const commit = await rawCommand(server.socketPath, { commitTransaction: 1, ...txn, $db: "admin" });
    expect(commit).toMatchObject({
      ok: 0,
      code: 251,
      codeName: "NoSuchTransaction",
      errorLabels: ["TransientTransactionError"],
    });

    const next = { lsid: id, txnNumber: Long.fromNumber(2), autocommit: false };
    expect(
      await rawCommand(server.socketPath, {
        insert: "wire",
        documents: [{ _id: 2 }],
        ...next,
        startTransaction: true,
        $db: DB,
      }),
    ).toMatchObject({ ok: 1 });
    expect(await rawCommand(server.socketPath, { commitTransaction: 1, ...next, $db: "admin" })).toMatchObject({
      ok: 1,
    });
    // A retried commit is answered again; an abort now is refused.
    expect(await rawCommand(server.socketPath, { commitTransaction: 1, ...next, $db: "admin" })).toMatchObject({
      ok: 1,
    });
    expect(await rawCommand(server.socketPath, { abortTransaction: 1, ...next, $db: "admin" })).toMatchObject({
      ok: 0,
      code: 256,
      codeName: "TransactionCommitted",
    });
    expect(await client.db(DB).collection("wire").find().toArray()).toEqual([{ _id: 2 }]);
  });

  it("refuses commands MongoDB does not run in a transaction, and an older transaction number", async () => {
    const id = lsid();
    const txn = { lsid: id, txnNumber: Long.fromNumber(5), autocommit: false };
    expect(
      await rawCommand(server.socketPath, { find: "wire", ...txn, startTransaction: true, $db: DB }),
    ).toMatchObject({ ok: 1 });
    expect(await rawCommand(server.socketPath, { count: "wire", ...txn, $db: DB })).toMatchObject({
      ok: 0,
      code: 263,
      codeName: "OperationNotSupportedInTransaction",
      errmsg: "Cannot run 'count' in a multi-document transaction.",
    });
    const older = await rawCommand(server.socketPath, {
      find: "wire",
      lsid: id,
      txnNumber: Long.fromNumber(4),
      autocommit: false,
      startTransaction: true,
      $db: DB,
    });
    expect(older).toMatchObject({ ok: 0, code: 225, codeName: "TransactionTooOld" });
  });

  it("refuses a txnNumber on a command that is no retryable write, and snapshot reads outside a transaction", async () => {
    const withNumber = await rawCommand(server.socketPath, {
      find: "wire",
      lsid: lsid(),
      txnNumber: Long.fromNumber(1),
      $db: DB,
    });
    expect(withNumber).toMatchObject({ ok: 0, code: 50768 });
    const snapshot = await caught(
      client
        .db(DB)
        .collection("wire")
        .find({}, { readConcern: { level: "snapshot" } })
        .toArray(),
    );
    expect(snapshot.code).toBe(115);
    expect(snapshot.message).toMatch(/snapshot.*MONGODB_URI/);
  });

  it("creates a collection and its indexes inside a transaction, but refuses new indexes on an existing collection", async () => {
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await client.db(DB).createCollection("made_in_txn", { session });
        await client.db(DB).collection("made_in_txn").createIndex({ email: 1 }, { unique: true, session });
        await client.db(DB).collection("made_in_txn").insertOne({ email: "a@x" }, { session });
      });
      expect((await client.db(DB).collection("made_in_txn").indexes()).map((i) => i.name)).toEqual(["_id_", "email_1"]);
      const error = await caught(
        session.withTransaction(() => client.db(DB).collection("made_in_txn").createIndex({ other: 1 }, { session })),
      );
      expect(error.code).toBe(263);
    } finally {
      await session.endSession();
    }
    expect(await client.db(DB).collection("made_in_txn").countDocuments()).toBe(1);
  });

  it("a retryable write sent twice with the same lsid and txnNumber applies once and answers the same", async () => {
    const retry = { lsid: lsid(), txnNumber: Long.fromNumber(1) };
    const first = await rawCommand(server.socketPath, {
      update: "retry",
      updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } }, upsert: true }],
      ...retry,
      $db: DB,
    });
    const second = await rawCommand(server.socketPath, {
      update: "retry",
      updates: [{ q: { _id: 1 }, u: { $inc: { n: 1 } }, upsert: true }],
      ...retry,
      $db: DB,
    });
    expect(first).toMatchObject({ ok: 1, n: 1, upserted: [{ index: 0, _id: 1 }] });
    expect(second).toMatchObject({ ok: 1, n: 1, upserted: [{ index: 0, _id: 1 }] });
    expect(await client.db(DB).collection("retry").find().toArray()).toEqual([{ _id: 1, n: 1 }]);
    const older = await rawCommand(server.socketPath, {
      insert: "retry",
      documents: [{ _id: 2 }],
      ...retry,
      txnNumber: Long.fromNumber(0),
      $db: DB,
    });
    expect(older).toMatchObject({ ok: 0, code: 225, codeName: "TransactionTooOld" });
  });
});

describe("lifetime", () => {
  it("a transaction open longer than transactionLifetimeLimitSeconds is aborted", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-txn-lifetime-"));
    const short = await startEmbeddedMongo({ dir, transactionLifetimeLimitSeconds: 1 });
    const other = await MongoClient.connect(short.localUri);
    try {
      const session = other.startSession();
      session.startTransaction();
      await other
        .db(DB)
        .collection("stale")
        .insertOne({ _id: 1 as never }, { session });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const error = await caught(
        other
          .db(DB)
          .collection("stale")
          .insertOne({ _id: 2 as never }, { session }),
      );
      expect(error.code).toBe(251);
      expect(error.message).toMatch(/transactionLifetimeLimitSeconds/);
      await session.endSession();
      expect(await other.db(DB).collection("stale").countDocuments()).toBe(0);
    } finally {
      await other.close();
      await short.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("retryable writes across a restart", () => {
  it("a write retried after the database restarted is not applied again", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-retry-restart-"));
    const retry = { lsid: { id: new Binary(Buffer.alloc(16, 7), 4) }, txnNumber: Long.fromNumber(3) };
    const command = {
      update: "counter",
      updates: [{ q: { _id: "c" }, u: { $inc: { n: 1 } }, upsert: true }],
      ...retry,
      $db: DB,
    };
    try {
      let running = await startEmbeddedMongo({ dir });
      expect(await rawCommand(running.socketPath!, command)).toMatchObject({ ok: 1, n: 1 });
      await running.close();
      running = await startEmbeddedMongo({ dir });
      expect(await rawCommand(running.socketPath!, command)).toMatchObject({ ok: 1, n: 1 });
      expect(await rawCommand(running.socketPath!, { find: "counter", $db: DB })).toMatchObject({
        cursor: { firstBatch: [{ _id: "c", n: 1 }] },
      });
      await running.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Mongoose", () => {
  let conn: mongoose.Connection;
  interface Order {
    item: string;
    qty: number;
  }
  const Order = () => conn.models.Order ?? conn.model<Order>("Order", new Schema<Order>({ item: String, qty: Number }));

  beforeAll(async () => {
    conn = await mongoose.createConnection(server.uri, { dbName: "txn_mongoose" }).asPromise();
    await Order().createCollection();
  });

  afterAll(async () => {
    await conn?.close();
  });

  it("connection.transaction() commits, and an error inside it rolls everything back", async () => {
    await conn.transaction(async (session) => {
      await Order().create([{ item: "pen", qty: 1 }], { session });
      await Order().updateOne({ item: "pen" }, { $inc: { qty: 2 } }, { session });
      expect(await Order().findOne({ item: "pen" })).toBeNull();
    });
    expect(await Order().findOne({ item: "pen" }).lean()).toMatchObject({ item: "pen", qty: 3 });

    await expect(
      conn.transaction(async (session) => {
        await Order().create([{ item: "ink", qty: 1 }], { session });
        await Order().deleteOne({ item: "pen" }, { session });
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    expect(await Order().find().lean()).toMatchObject([{ item: "pen", qty: 3 }]);
  });

  it("a document loaded in a session saves in its transaction", async () => {
    const session = await conn.startSession();
    try {
      session.startTransaction();
      const pen = await Order().findOne({ item: "pen" }).session(session);
      pen!.set("qty", 10);
      await pen!.save();
      expect(await Order().findOne({ item: "pen" }).lean()).toMatchObject({ qty: 3 });
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await Order().findOne({ item: "pen" }).lean()).toMatchObject({ qty: 10 });
  });
});
