/**
 * Long reads yield (README "Long reads yield"): a read works in slices of about 10 ms on a
 * snapshot of its own, so the other connections' commands are answered while it runs, and its
 * answer is the snapshot's, whatever they write meanwhile. Orders are asserted, never times.
 */
import { MongoClient, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDatabaseForThisFile } from "./testing/temp-server";

const embedded = tempDatabaseForThisFile("long-reads", "long_reads_test");
/** A second client: its commands travel on other connections than the long read's. */
let other: MongoClient;

// Enough documents that a count reading each of them takes hundreds of milliseconds.
const N = 30_000;
/** Read document by document: no index serves a regular expression that is not a prefix. */
const BROAD = { $or: [{ name: /a1/ }, { email: /b2/ }] };

const user = (i: number): Document => ({
  _id: i,
  name: `user a${i}`,
  email: `u${i}@b${i % 97}.example`,
  score: i % 1000,
  tags: [`t${i % 7}`, `t${i % 11}`],
});

async function fill(collection: Collection): Promise<void> {
  for (let i = 0; i < N; i += 5_000)
    await collection.insertMany(Array.from({ length: Math.min(5_000, N - i) }, (_, k) => user(i + k)));
}

/** Resolves once the server reports a read under way in slices, or throws when `done` came first. */
async function readerUnderWay(settled: () => boolean): Promise<void> {
  const admin = other.db("admin");
  while (!settled()) {
    const status = await admin.command({ serverStatus: 1 });
    if ((status.globalLock as Document).activeClients.readers >= 1) return;
  }
  throw new Error("the long read ended before another connection saw it under way");
}

/** Starts `long`, waits until it is under way, runs `others` on the other client; the order they ended in. */
async function race<T>(
  long: () => Promise<T>,
  others: Record<string, () => Promise<unknown>>,
): Promise<{ order: string[]; value: T; results: Record<string, unknown> }> {
  const order: string[] = [];
  let settled = false;
  const running = long().finally(() => {
    settled = true;
    order.push("long");
  });
  await readerUnderWay(() => settled);
  const results: Record<string, unknown> = {};
  await Promise.all(
    Object.entries(others).map(async ([name, run]) => {
      results[name] = await run();
      order.push(name);
    }),
  );
  return { order, value: await running, results };
}

beforeAll(async () => {
  other = await MongoClient.connect(embedded.server.uri);
  // Connections opened now, so that the commands raced against a long read find one ready: a new
  // connection's handshake and authentication would cost a race more than a read's slices.
  await Promise.all(Array.from({ length: 4 }, () => other.db("admin").command({ ping: 1 })));
  await fill(embedded.db.collection("users"));
  await embedded.db.collection("users").createIndex({ score: 1 });
}, 120_000);

afterAll(async () => {
  await other?.close();
});

describe("a long read yields to other connections", () => {
  it("answers a find by _id and an insert while a count runs, and the count is the snapshot's", async () => {
    const users = embedded.db.collection("users");
    const alone = await users.countDocuments(BROAD);
    expect(alone).toBeGreaterThan(1000);
    const mine = other.db("long_reads_test").collection("users");
    const { order, value, results } = await race(() => users.countDocuments(BROAD), {
      find: () => mine.findOne({ _id: 12_345 as never }),
      insert: () => mine.insertOne({ _id: (N + 1) as never, name: "a1 late", email: "late@b2.example" }),
    });
    expect(order).toEqual(expect.arrayContaining(["find", "insert", "long"]));
    expect(order.at(-1)).toBe("long");
    expect(results.find).toMatchObject({ _id: 12_345, name: "user a12345" });
    // The count read the snapshot it started on: the insert made meanwhile is not in it.
    expect(value).toBe(alone);
    expect(await users.countDocuments(BROAD)).toBe(alone + 1);
    await mine.deleteOne({ _id: (N + 1) as never });
  }, 120_000);

  it("answers while the legacy count, a find, a sorted find, a distinct and an aggregate run, each with its answer alone", async () => {
    const db = embedded.db;
    const users = db.collection("users");
    const mine = other.db("long_reads_test").collection("users");
    const reads: Record<string, () => Promise<unknown>> = {
      count: async () => (await db.command({ count: "users", query: BROAD })).n as number,
      find: async () => (await users.find(BROAD, { projection: { name: 1 } }).toArray()).length,
      // Sorted in memory (no index on tags), in runs merged between pauses: the order is the one alone.
      sort: async () =>
        (
          await users
            .find(BROAD, { projection: { _id: 1 } })
            .sort({ tags: -1, email: 1 })
            .toArray()
        ).map((d) => d._id),
      distinct: async () => (await users.distinct("score", BROAD)).length,
      aggregate: async () =>
        users
          .aggregate([
            { $match: BROAD },
            { $project: { score: 1, _id: 0 } },
            { $group: { _id: "$score", n: { $sum: 1 } } },
          ])
          .toArray()
          .then((groups) => groups.reduce((sum, g) => sum + (g.n as number), 0)),
    };
    for (const [name, read] of Object.entries(reads)) {
      const alone = await read();
      const { order, value } = await race(read, {
        find: () => mine.findOne({ _id: 7 as never }),
        update: () => mine.updateOne({ _id: 11_111 as never }, { $set: { name: "renamed" } }),
      });
      expect({ name, last: order.at(-1) }).toEqual({ name, last: "long" });
      expect({ name, value }).toEqual({ name, value: alone });
      await mine.updateOne({ _id: 11_111 as never }, { $set: { name: "user a11111" } });
    }
  }, 180_000);
});

describe("an in-memory sort in runs merged between pauses", () => {
  it("orders as MongoDB does, past several runs and with ties", async () => {
    const ties = embedded.db.collection("ties");
    const docs = Array.from({ length: 5_000 }, (_, i) => ({
      _id: i,
      k: (i * 7919) % 50,
      arr: [i % 13, (i * 31) % 17],
    }));
    await ties.insertMany(docs as never[]);
    const ids = async (sort: Document) =>
      (
        await ties
          .find({}, { projection: { _id: 1 } })
          .sort(sort)
          .toArray()
      ).map((d) => d._id);
    const byK = (dir: number) => [...docs].sort((a, b) => (a.k - b.k) * dir || b._id - a._id).map((d) => d._id);
    expect(await ids({ k: 1, _id: -1 })).toEqual(byK(1));
    expect(await ids({ k: -1, _id: -1 })).toEqual(byK(-1));
    // An array sorts by its smallest element ascending.
    const smallest = [...docs].sort((a, b) => Math.min(...a.arr) - Math.min(...b.arr) || a.k - b.k || a._id - b._id);
    expect(await ids({ arr: 1, k: 1, _id: 1 })).toEqual(smallest.map((d) => d._id));
  }, 60_000);
});

describe("a cursor across concurrent writes", () => {
  it("hands out each document once, the ones of the moment it opened, while others update, delete and insert", async () => {
    const users = embedded.db.collection("users");
    const mine = other.db("long_reads_test").collection("users");
    const before = new Set(
      (await users.find({ score: { $lt: 50 } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id),
    );
    // Walks the score index in order, while each batch moves documents ahead of it and back.
    const cursor = users
      .find({ score: { $lt: 50 } })
      .sort({ score: 1 })
      .batchSize(200);
    const seen: unknown[] = [];
    let round = 0;
    for await (const doc of cursor) {
      seen.push(doc._id);
      if (seen.length % 200 !== 0) continue;
      round += 1;
      await mine.updateMany({ score: { $lt: 5 }, _id: { $mod: [round + 1, 0] } as never }, { $inc: { score: 45 } });
      await mine.deleteOne({ score: 49 });
      await mine.insertOne({ _id: (1_000_000 + round) as never, score: 0, name: "new" });
    }
    expect(round).toBeGreaterThan(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(before);
  }, 120_000);
});

describe("reads inside a transaction", () => {
  it("see the transaction's own writes and not others'", async () => {
    const users = embedded.db.collection("users");
    const total = await users.countDocuments({});
    const session = embedded.client.startSession();
    try {
      session.startTransaction();
      await users.insertOne({ _id: 2_000_000 as never, name: "in a transaction" }, { session });
      await other
        .db("long_reads_test")
        .collection("users")
        .insertOne({ _id: 2_000_001 as never });
      expect(await users.countDocuments({}, { session })).toBe(total + 1);
      expect(await users.countDocuments({ name: /transaction/ }, { session })).toBe(1);
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await users.countDocuments({})).toBe(total + 1);
    await users.deleteOne({ _id: 2_000_001 as never });
  }, 60_000);
});

describe("a collection or an index dropped during a read", () => {
  it("answers the read from its snapshot, as if it had run before the drop", async () => {
    const users = embedded.db.collection("users");
    const mine = other.db("long_reads_test");
    const byScore = { score: { $gte: 10 }, name: /a1/ };
    const found = async () => (await users.find(byScore).hint({ score: 1 }).toArray()).length;
    const alone = await found();
    const index = await race(found, { drop: () => mine.collection("users").dropIndex("score_1") });
    expect(index.order.at(-1)).toBe("long");
    expect(index.value).toBe(alone);

    const count = await users.countDocuments(BROAD);
    const dropped = await race(() => users.countDocuments(BROAD), { drop: () => mine.collection("users").drop() });
    expect(dropped.order.at(-1)).toBe("long");
    expect(dropped.value).toBe(count);
    expect(await users.countDocuments(BROAD)).toBe(0);
  }, 120_000);
});
