/**
 * Change streams on the embedded replica set, through the driver and Mongoose: the events and
 * their shapes as MongoDB sends them, the three scopes, invalidation, resume tokens (also after
 * a restart of the database) and getMore waiting for new events.
 */
import { open } from "lmdb";
import { BSON, MongoClient, Timestamp, type Document } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmbeddedMongo } from "../index";
import { caught, nextEvents, tempDatabaseForThisFile } from "../testing/temp-server";

const temp = tempDatabaseForThisFile("changestreams", "cs_test");
const take = nextEvents;

describe("collection.watch()", () => {
  it("reports insert, update (with updateDescription), replace and delete as MongoDB does", async () => {
    const things = temp.client
      .db("cs_test")
      .collection<{ _id: number; name: string; tags?: string[]; nested?: Document; gone?: boolean }>("things");
    const stream = things.watch();
    try {
      await stream.tryNext();
      await things.insertOne({ _id: 1, name: "a", tags: ["x", "y", "z"], nested: { a: 1, b: 2 }, gone: true });
      await things.updateOne(
        { _id: 1 },
        { $set: { name: "b", "nested.a": 5 }, $unset: { gone: "" }, $push: { tags: "w" } },
      );
      await things.updateOne({ _id: 1 }, [{ $set: { tags: { $slice: ["$tags", 2] } } }]);
      await things.replaceOne({ _id: 1 }, { name: "c" });
      await things.deleteOne({ _id: 1 });
      const [insert, update, truncate, replace, remove] = await take(stream, 5);
      expect(insert).toMatchObject({
        operationType: "insert",
        ns: { db: "cs_test", coll: "things" },
        documentKey: { _id: 1 },
        fullDocument: { _id: 1, name: "a", tags: ["x", "y", "z"], nested: { a: 1, b: 2 }, gone: true },
      });
      expect(insert.clusterTime).toBeInstanceOf(Timestamp);
      expect(insert.wallTime).toBeInstanceOf(Date);
      expect(typeof insert._id._data).toBe("string");
      expect(update).toMatchObject({
        operationType: "update",
        documentKey: { _id: 1 },
        updateDescription: {
          updatedFields: { name: "b", "nested.a": 5, "tags.3": "w" },
          removedFields: ["gone"],
          truncatedArrays: [],
        },
      });
      expect(update.fullDocument).toBeUndefined();
      expect(truncate.updateDescription).toEqual({
        updatedFields: {},
        removedFields: [],
        truncatedArrays: [{ field: "tags", newSize: 2 }],
      });
      expect(replace).toMatchObject({
        operationType: "replace",
        fullDocument: { _id: 1, name: "c" },
        documentKey: { _id: 1 },
      });
      expect(remove).toMatchObject({ operationType: "delete", documentKey: { _id: 1 } });
      expect(remove.fullDocument).toBeUndefined();
    } finally {
      await stream.close();
    }
  });

  it("looks the current document up with fullDocument: updateLookup", async () => {
    const things = temp.client.db("cs_test").collection<{ _id: number; n: number }>("lookup");
    await things.insertOne({ _id: 1, n: 0 });
    const stream = things.watch([], { fullDocument: "updateLookup" });
    try {
      await stream.tryNext();
      await things.updateOne({ _id: 1 }, { $inc: { n: 1 } });
      const [update] = await take(stream, 1);
      expect(update).toMatchObject({
        operationType: "update",
        fullDocument: { _id: 1, n: 1 },
        updateDescription: { updatedFields: { n: 1 } },
      });
    } finally {
      await stream.close();
    }
  });

  it("filters events with the rest of the pipeline", async () => {
    const things = temp.client.db("cs_test").collection("filtered");
    const stream = things.watch([
      { $match: { operationType: "insert", "fullDocument.keep": true } },
      { $project: { fullDocument: 1 } },
    ]);
    try {
      await stream.tryNext();
      await things.insertMany([{ keep: false }, { keep: true, n: 2 }]);
      const [event] = await take(stream, 1);
      expect(event.fullDocument).toMatchObject({ keep: true, n: 2 });
      expect(event.operationType).toBeUndefined();
    } finally {
      await stream.close();
    }
  });

  it("a getMore waiting for events returns at the commit that brings one, long before its maxTimeMS", async () => {
    const db = temp.client.db("cs_test");
    const opened = await db.command({ aggregate: "later", pipeline: [{ $changeStream: {} }], cursor: {} });
    setTimeout(() => void db.collection("later").insertOne({ late: true }), 100);
    // Were the wait not woken by the commit, this would outlast the test's own timeout.
    const more = await db.command({ getMore: opened.cursor.id, collection: "later", maxTimeMS: 600_000 });
    expect(more.cursor.nextBatch).toMatchObject([{ operationType: "insert", fullDocument: { late: true } }]);
    await db.command({ killCursors: "later", cursors: [opened.cursor.id] });
  });

  it("reports a transaction's writes once it commits", async () => {
    const things = temp.client.db("cs_test").collection("txn");
    await things.insertOne({ _id: "seed" as never });
    const stream = things.watch();
    try {
      await stream.tryNext();
      const session = temp.client.startSession();
      await session.withTransaction(async () => {
        await things.insertOne({ _id: "t1" as never }, { session });
        await things.deleteOne({ _id: "seed" as never }, { session });
      });
      await session.endSession();
      const events = await take(stream, 2);
      for (const event of events) {
        expect(event.lsid?.id).toBeDefined();
        expect(event.txnNumber).toBeDefined();
      }
      expect(events.map((e) => [e.operationType, e.documentKey._id]).sort()).toEqual([
        ["delete", "seed"],
        ["insert", "t1"],
      ]);
    } finally {
      await stream.close();
    }
  });

  it("ends with drop and invalidate when the collection is dropped; startAfter opens a new stream after it", async () => {
    const db = temp.client.db("cs_test");
    const doomed = db.collection("doomed");
    await doomed.insertOne({ n: 1 });
    const stream = doomed.watch();
    await stream.tryNext();
    await doomed.drop();
    const [drop, invalidate] = await take(stream, 2);
    expect(drop).toMatchObject({ operationType: "drop", ns: { db: "cs_test", coll: "doomed" } });
    expect(invalidate.operationType).toBe("invalidate");
    expect(stream.closed || (await stream.tryNext()) === null).toBe(true);
    await stream.close();

    const refused = await caught(doomed.watch([], { resumeAfter: invalidate._id }).next());
    expect(refused.code).toBe(260);
    const after = doomed.watch([], { startAfter: invalidate._id });
    try {
      await after.tryNext();
      await doomed.insertOne({ n: 2 });
      expect(await after.next()).toMatchObject({ operationType: "insert", fullDocument: { n: 2 } });
    } finally {
      await after.close();
    }
  });

  it("reports a rename, then invalidates", async () => {
    const db = temp.client.db("cs_test");
    await db.collection("old_name").insertOne({ n: 1 });
    const stream = db.collection("old_name").watch();
    try {
      await stream.tryNext();
      await db.collection("old_name").rename("new_name");
      const [rename, invalidate] = await take(stream, 2);
      expect(rename).toMatchObject({
        operationType: "rename",
        ns: { db: "cs_test", coll: "old_name" },
        to: { db: "cs_test", coll: "new_name" },
      });
      expect(invalidate.operationType).toBe("invalidate");
    } finally {
      await stream.close();
    }
  });

  it("refuses fullDocumentBeforeChange, which needs pre-images it does not keep, naming MONGODB_URI", async () => {
    const error = await caught(
      temp.client.db("cs_test").collection("pre").watch([], { fullDocumentBeforeChange: "required" }).next(),
    );
    expect(error.code).toBe(115);
    expect(error.message).toMatch(/fullDocumentBeforeChange.*MONGODB_URI/);
  });

  it("refuses an unknown stage after $changeStream as any pipeline's (40324)", async () => {
    const error = await caught(
      temp.client
        .db("cs_test")
        .collection("bad")
        .watch([{ $nosuch: {} }])
        .next(),
    );
    expect(error.code).toBe(40324);
    expect(error.message).toBe("Unrecognized pipeline stage name: '$nosuch'");
  });
});

describe("database and deployment streams", () => {
  it("db.watch() sees every collection of its database and a dropDatabase, then invalidates", async () => {
    const db = temp.client.db("cs_db");
    await db.collection("a").insertOne({ seed: 1 });
    const stream = db.watch();
    try {
      await stream.tryNext();
      await db.collection("a").insertOne({ n: 1 });
      await temp.client.db("cs_other").collection("x").insertOne({ n: 2 });
      await db.collection("b").insertOne({ n: 3 });
      await db.dropDatabase();
      const events = await take(stream, 6);
      expect(events.map((e) => [e.operationType, e.ns?.coll ?? null])).toEqual([
        ["insert", "a"],
        ["insert", "b"],
        ["drop", "a"],
        ["drop", "b"],
        ["dropDatabase", null],
        ["invalidate", null],
      ]);
    } finally {
      await stream.close();
    }
  });

  it("temp.client.watch() sees every database (aggregate on admin with allChangesForCluster)", async () => {
    const stream = temp.client.watch();
    try {
      await stream.tryNext();
      await temp.client.db("cs_one").collection("c").insertOne({ n: 1 });
      await temp.client.db("cs_two").collection("c").insertOne({ n: 2 });
      const events = await take(stream, 2);
      expect(events.map((e) => e.ns)).toEqual([
        { db: "cs_one", coll: "c" },
        { db: "cs_two", coll: "c" },
      ]);
    } finally {
      await stream.close();
    }
  });

  it("refuses a stream on admin without allChangesForCluster", async () => {
    const error = await caught(
      temp.client.db("admin").command({ aggregate: 1, pipeline: [{ $changeStream: {} }], cursor: {} }),
    );
    expect(error.code).toBe(73);
  });
});

describe("resume tokens", () => {
  it("every batch carries a postBatchResumeToken, and resumeAfter / startAtOperationTime replay what came after", async () => {
    const db = temp.client.db("cs_resume");
    const opened = await db.command({ aggregate: "r", pipeline: [{ $changeStream: {} }], cursor: {} });
    expect(opened.cursor.postBatchResumeToken._data).toEqual(expect.any(String));
    const start = opened.operationTime as Timestamp;
    await db.collection("r").insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }] as never[]);
    const more = await db.command({ getMore: opened.cursor.id, collection: "r", maxTimeMS: 1000 });
    expect(more.cursor.nextBatch.map((e: Document) => e.documentKey._id)).toEqual([1, 2, 3]);
    expect(more.cursor.postBatchResumeToken._data).toEqual(expect.any(String));
    const empty = await db.command({ getMore: opened.cursor.id, collection: "r", maxTimeMS: 50 });
    expect(empty.cursor.nextBatch).toEqual([]);
    expect(empty.cursor.postBatchResumeToken._data >= more.cursor.postBatchResumeToken._data).toBe(true);
    await db.command({ killCursors: "r", cursors: [opened.cursor.id] });

    const first = more.cursor.nextBatch[0]._id;
    const resumed = await db.command({
      aggregate: "r",
      pipeline: [{ $changeStream: { resumeAfter: first } }],
      cursor: {},
    });
    expect(resumed.cursor.firstBatch.map((e: Document) => e.documentKey._id)).toEqual([2, 3]);
    const fromTime = await db.command({
      aggregate: "r",
      pipeline: [{ $changeStream: { startAtOperationTime: start } }],
      cursor: {},
    });
    expect(fromTime.cursor.firstBatch.map((e: Document) => e.documentKey._id)).toEqual([1, 2, 3]);
  });

  it("resumes after a restart of the database, from the oplog it kept on disk", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-cs-restart-"));
    try {
      let running = await startEmbeddedMongo({ dir });
      let other = await MongoClient.connect(running.localUri);
      const stream = other.db("cs").collection("c").watch();
      await stream.tryNext();
      await other.db("cs").collection<{ _id: number }>("c").insertOne({ _id: 1 });
      const [first] = await take(stream, 1);
      await other
        .db("cs")
        .collection("c")
        .insertMany([{ _id: 2 }, { _id: 3 }] as never[]);
      await stream.close();
      await other.close();
      await running.close();

      running = await startEmbeddedMongo({ dir });
      other = await MongoClient.connect(running.localUri);
      const resumed = other.db("cs").collection("c").watch([], { resumeAfter: first._id });
      const events = await take(resumed, 2);
      expect(events.map((e) => e.documentKey._id)).toEqual([2, 3]);
      // Times keep growing across the restart, so the order of tokens holds.
      await other
        .db("cs")
        .collection("c")
        .insertOne({ _id: 4 as never });
      const [fourth] = await take(resumed, 1);
      expect(fourth._id._data > events[1]._id._data).toBe(true);
      await resumed.close();
      await other.close();
      await running.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the driver's stream resumes by itself when the database restarts under it", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-cs-autoresume-"));
    try {
      let running = await startEmbeddedMongo({ dir });
      const watcher = await MongoClient.connect(running.localUri, { serverSelectionTimeoutMS: 10_000 });
      const c = watcher.db("cs").collection<{ _id: number }>("c");
      const stream = c.watch();
      await stream.tryNext();
      await c.insertOne({ _id: 1 });
      expect(((await stream.next()) as Document).documentKey).toEqual({ _id: 1 });
      await running.close();
      running = await startEmbeddedMongo({ dir });
      const writer = await MongoClient.connect(running.localUri);
      const pending = stream.next();
      await writer.db("cs").collection<{ _id: number }>("c").insertOne({ _id: 2 });
      expect(((await pending) as Document).documentKey).toEqual({ _id: 2 });
      await stream.close();
      await writer.close();
      await watcher.close();
      await running.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a write of many documents is read in batches smaller than it, every event once and in order", async () => {
    const db = temp.client.db("cs_batches");
    const opened = await db.command({ aggregate: "b", pipeline: [{ $changeStream: {} }], cursor: { batchSize: 0 } });
    await db.collection("b").insertMany(Array.from({ length: 250 }, (_, n) => ({ _id: n })) as never[]);
    const seen: number[] = [];
    for (let round = 0; round < 5 && seen.length < 250; round++) {
      const more = await db.command({ getMore: opened.cursor.id, collection: "b", batchSize: 100, maxTimeMS: 1000 });
      seen.push(...more.cursor.nextBatch.map((e: Document) => e.documentKey._id as number));
    }
    expect(seen).toEqual(Array.from({ length: 250 }, (_, n) => n));
    await db.command({ killCursors: "b", cursors: [opened.cursor.id] });
  });

  it("reads the oplog of an older data directory, which kept one entry per key", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-cs-old-"));
    try {
      const seconds = Math.floor(Date.now() / 1000) - 5;
      const env = open({ path: dir, noSubdir: false, maxDbs: 8 });
      const oplog = env.openDB<Buffer, number[]>("oplog", { encoding: "binary" });
      await env.transaction(() => {
        for (const id of [1, 2]) {
          const entry = BSON.serialize({
            op: "insert",
            db: "cs",
            coll: "old",
            key: { _id: id },
            doc: { _id: id },
            wall: new Date(seconds * 1000),
          });
          void oplog.put([seconds, 1, id - 1], Buffer.from(entry));
        }
      });
      await env.close();
      const running = await startEmbeddedMongo({ dir });
      const other = await MongoClient.connect(running.localUri);
      try {
        const stream = other.watch([], { startAtOperationTime: new Timestamp({ t: seconds, i: 1 }) });
        const events = await take(stream, 2);
        expect(events.map((e) => [e.operationType, e.fullDocument])).toEqual([
          ["insert", { _id: 1 }],
          ["insert", { _id: 2 }],
        ]);
        const resumed = other.watch([], { resumeAfter: events[0]._id });
        const [second] = await take(resumed, 1);
        expect(second.documentKey).toEqual({ _id: 2 });
        await stream.close();
        await resumed.close();
      } finally {
        await other.close();
        await running.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a resume point the trimmed oplog no longer holds is ChangeStreamHistoryLost (286)", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-cs-trim-"));
    const running = await startEmbeddedMongo({ dir, oplogMaxEntries: 5 });
    const other = await MongoClient.connect(running.localUri);
    try {
      const c = other.db("cs").collection("c");
      const stream = c.watch();
      await stream.tryNext();
      await c.insertOne({ _id: 0 as never });
      const [first] = await take(stream, 1);
      await stream.close();
      for (let i = 1; i <= 10; i++) await c.insertOne({ _id: i as never });
      const error = await caught(c.watch([], { resumeAfter: first._id }).next());
      expect(error.code).toBe(286);
    } finally {
      await other.close();
      await running.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Mongoose Model.watch()", () => {
  it("emits a change event for each write of the model", async () => {
    const conn = await mongoose.createConnection(temp.server.uri, { dbName: "cs_mongoose" }).asPromise();
    try {
      const Person = conn.model("Person", new Schema({ name: String }));
      await Person.createCollection();
      const stream = Person.watch();
      const changes: Document[] = [];
      const seen = new Promise<void>((resolve) => {
        stream.on("change", (change: Document) => {
          changes.push(change);
          if (changes.length === 2) resolve();
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const ada = await Person.create({ name: "Ada" });
      await Person.updateOne({ _id: ada._id }, { name: "Ada L." });
      await seen;
      await stream.close();
      expect(changes.map((c) => c.operationType)).toEqual(["insert", "update"]);
      expect(changes[0].fullDocument).toMatchObject({ name: "Ada" });
      expect(changes[1].updateDescription.updatedFields).toEqual({ name: "Ada L." });
    } finally {
      await conn.close();
    }
  });
});
