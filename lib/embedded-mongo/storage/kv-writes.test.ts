/**
 * The writes the server makes by itself (capped-collection evictions, TTL deletions) and the
 * BSON types of what it stores go through the same key-value layer as commands: change streams
 * see them as deletes (as MongoDB logs them), transactions keep their snapshot, and a
 * transaction's commit keeps each value's BSON type.
 */
import { Long } from "mongodb";
import { describe, expect, it } from "vitest";
import { nextEvents, tempDatabaseForThisFile } from "../testing/temp-server";

const temp = tempDatabaseForThisFile("kv-writes", "kv_writes", { useBigInt64: true });
const take = nextEvents;

type Doc = { _id: number | string; [field: string]: unknown };
const coll = (name: string) => temp.client.db("kv_writes").collection<Doc>(name);
const db = () => temp.client.db("kv_writes");

describe("capped collections", () => {
  it("reports each eviction as a delete event, after the insert that caused it", async () => {
    await db().createCollection("log", { capped: true, size: 4096, max: 2 });
    const log = coll("log");
    const stream = log.watch();
    try {
      await stream.tryNext();
      await log.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
      const events = await take(stream, 4);
      expect(events.map((e) => [e.operationType, e.documentKey._id])).toEqual([
        ["insert", 1],
        ["insert", 2],
        ["insert", 3],
        ["delete", 1],
      ]);
      expect((await log.find().toArray()).map((d) => d._id)).toEqual([2, 3]);
    } finally {
      await stream.close();
    }
  });

  it("keeps a transaction's snapshot when a later insert evicts what it read", async () => {
    await db().createCollection("ring", { capped: true, size: 4096, max: 2 });
    const ring = coll("ring");
    await ring.insertMany([{ _id: 1 }, { _id: 2 }]);
    const session = temp.client.startSession();
    try {
      session.startTransaction();
      expect(await ring.countDocuments({}, { session })).toBe(2);
      await ring.insertOne({ _id: 3 });
      expect((await ring.find({}, { session }).toArray()).map((d) => d._id)).toEqual([1, 2]);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect((await ring.find().toArray()).map((d) => d._id)).toEqual([2, 3]);
  });

  it("evicts at commit what a transaction's inserts push out, and nothing when it aborts", async () => {
    await db().createCollection("window", { capped: true, size: 4096, max: 2 });
    const win = coll("window");
    await win.insertMany([{ _id: 1 }, { _id: 2 }]);
    const session = temp.client.startSession();
    try {
      session.startTransaction();
      await win.insertOne({ _id: 3 }, { session });
      expect((await win.find({}, { session }).toArray()).map((d) => d._id)).toEqual([2, 3]);
      expect((await win.find().toArray()).map((d) => d._id)).toEqual([1, 2]);
      await session.abortTransaction();
      expect((await win.find().toArray()).map((d) => d._id)).toEqual([1, 2]);
      session.startTransaction();
      await win.insertOne({ _id: 4 }, { session });
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect((await win.find().toArray()).map((d) => d._id)).toEqual([2, 4]);
    expect((await win.find().sort({ $natural: -1 }).toArray()).map((d) => d._id)).toEqual([4, 2]);
  });
});

describe("TTL indexes", () => {
  it("report each expired document as a delete event", async () => {
    const sessions = coll("sessions");
    await sessions.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    const stream = sessions.watch();
    try {
      await stream.tryNext();
      await sessions.insertMany([
        { _id: "old", at: new Date(Date.now() - 1000) },
        { _id: "new", at: new Date(Date.now() + 3_600_000) },
      ]);
      await temp.client.db("admin").command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
      const events = await take(stream, 3);
      expect(events.map((e) => [e.operationType, e.documentKey._id])).toEqual([
        ["insert", "old"],
        ["insert", "new"],
        ["delete", "old"],
      ]);
      expect((await sessions.find().toArray()).map((d) => d._id)).toEqual(["new"]);
    } finally {
      await stream.close();
    }
  });
});

describe("BSON types", () => {
  it("keeps a long a long through a transaction's commit and in change events", async () => {
    const counters = coll("counters");
    const stream = counters.watch();
    try {
      await stream.tryNext();
      const session = temp.client.startSession();
      try {
        await session.withTransaction(async () => {
          await counters.insertOne({ _id: 1, n: Long.fromNumber(5), d: 1.5 }, { session });
        });
      } finally {
        await session.endSession();
      }
      const [insert] = await take(stream, 1);
      expect(insert.fullDocument.n).toBe(5n);
    } finally {
      await stream.close();
    }
    expect(await counters.countDocuments({ n: { $type: "long" } })).toBe(1);
    expect((await counters.findOne({ _id: 1 }))?.n).toBe(5n);
  });
});

describe("unique indexes on update", () => {
  // An update that leaves a unique index's values as they were is not checked against it again;
  // one that changes them is, also where keys are cut short (long strings) and in a transaction.
  const long = "x".repeat(2000);
  it("lets an update keep a unique value and refuses one that takes another's", async () => {
    const people = coll("people");
    await people.createIndex({ email: 1 }, { unique: true });
    await people.createIndex({ code: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await people.insertMany([
      { _id: 1, email: `${long}a`, code: "c", active: true, n: 0 },
      { _id: 2, email: `${long}b`, code: "c", active: false, n: 0 },
    ]);
    await people.updateOne({ _id: 1 }, { $set: { n: 1 } });
    await expect(people.updateOne({ _id: 2 }, { $set: { email: `${long}a` } })).rejects.toMatchObject({ code: 11000 });
    // Same values, but now inside the partial index: checked, and taken.
    await expect(people.updateOne({ _id: 2 }, { $set: { active: true } })).rejects.toMatchObject({ code: 11000 });
    const session = temp.client.startSession();
    try {
      await session.withTransaction(async () => {
        await people.updateOne({ _id: 2 }, { $set: { n: 1 } }, { session });
        await people.updateOne({ _id: 1 }, { $set: { email: `${long}c` } }, { session });
        await people.updateOne({ _id: 2 }, { $set: { email: `${long}a` } }, { session });
      });
      await expect(
        session.withTransaction(async () => {
          await people.updateOne({ _id: 2 }, { $set: { email: `${long}c` } }, { session });
        }),
      ).rejects.toMatchObject({ code: 11000 });
    } finally {
      await session.endSession();
    }
    expect(await people.find({}, { sort: { _id: 1 } }).toArray()).toEqual([
      { _id: 1, email: `${long}c`, code: "c", active: true, n: 1 },
      { _id: 2, email: `${long}a`, code: "c", active: false, n: 1 },
    ]);
  });
});
