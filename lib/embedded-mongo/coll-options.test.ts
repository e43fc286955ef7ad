/**
 * Collection and index options that the embedded database either honours as MongoDB does
 * (capped collections, hidden indexes; time-series collections in timeseries.test.ts) or refuses
 * with MongoDB's code and a message naming the feature (tailable cursors), never accepting them
 * only to behave like an ordinary collection.
 */
import { type Document } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { describe, expect, it } from "vitest";
import { serverFailure, tempDatabaseForThisFile } from "./testing/temp-server";

const embedded = tempDatabaseForThisFile("coll-options", "coll_options_test");

describe("capped collections", () => {
  it("refuses capped without a size exactly as MongoDB does", async () => {
    const err = await serverFailure(embedded.db.createCollection("no_size", { capped: true }));
    expect(err.code).toBe(72);
    expect(err.codeName).toBe("InvalidOptions");
    expect(err.message).toBe("the 'size' field is required when 'capped' is true");
    const max = await serverFailure(embedded.db.createCollection("max_only", { max: 10 } as never));
    expect(max.message).toBe("the 'capped' field needs to be true when either the 'size' or 'max' fields are present");
  });

  it("keeps insertion order and drops the oldest documents beyond max or size", async () => {
    await embedded.db.createCollection("log", { capped: true, size: 4096, max: 3 });
    const log = embedded.db.collection("log");
    for (const id of [5, 1, 4, 2, 3]) await log.insertOne({ _id: id as never, n: id });
    expect((await log.find().toArray()).map((d) => d._id)).toEqual([4, 2, 3]);
    expect((await log.find().sort({ $natural: -1 }).toArray()).map((d) => d._id)).toEqual([3, 2, 4]);
    expect(await log.isCapped()).toBe(true);
    const [info] = await embedded.db.listCollections({ name: "log" }).toArray();
    expect((info as Document).options).toMatchObject({ capped: true, size: 4096, max: 3 });
    await log.deleteOne({ _id: 2 as never });
    await log.insertMany([{ _id: 6 as never }, { _id: 0 as never }]);
    expect((await log.find().toArray()).map((d) => d._id)).toEqual([3, 6, 0]);

    await embedded.db.createCollection("bytes", { capped: true, size: 5000 });
    const bytes = embedded.db.collection("bytes");
    const filler = "x".repeat(1000);
    for (let i = 0; i < 10; i++) await bytes.insertOne({ _id: i as never, filler });
    const kept = (await bytes.find().toArray()).map((d) => d._id);
    // 5000 bytes round up to 5120: four documents of 1027 bytes fit, not five.
    expect(kept).toEqual([6, 7, 8, 9]);
  });

  it("refuses a tailable cursor, which this database cannot keep open", async () => {
    const capped = await serverFailure(embedded.db.collection("log").find({}, { tailable: true }).toArray());
    expect(capped.message).toMatch(/Tailable cursors.*MONGODB_URI/);
    await embedded.db.collection("plain").insertOne({ a: 1 });
    const plain = await serverFailure(embedded.db.collection("plain").find({}, { tailable: true }).toArray());
    expect(plain.message).toMatch(/tailable cursor requested on non capped collection/);
  });
});

describe("hidden indexes", () => {
  it("are listed hidden, never chosen by the planner or a hint, and still enforce uniqueness", async () => {
    const coll = embedded.db.collection("people");
    await coll.insertMany([
      { _id: 1 as never, email: "a@x" },
      { _id: 2 as never, email: "b@x" },
    ]);
    await coll.createIndex({ email: 1 }, { unique: true, hidden: true, name: "email_1" });
    const indexes = await coll.listIndexes().toArray();
    expect(indexes.find((i) => i.name === "email_1")).toMatchObject({ key: { email: 1 }, unique: true, hidden: true });

    const plan = (await coll.find({ email: "a@x" }).explain()) as Document;
    expect(plan.queryPlanner.winningPlan.stage).toBe("COLLSCAN");
    const hinted = await serverFailure(coll.find({ email: "a@x" }).hint("email_1").toArray());
    expect(hinted.code).toBe(2);
    expect(hinted.message).toMatch(/hint provided does not correspond to an existing index/);

    const dup = await serverFailure(coll.insertOne({ _id: 3 as never, email: "a@x" }));
    expect(dup.code).toBe(11000);
    await coll.insertOne({ _id: 4 as never, email: "c@x" });

    // Unhidden, the index is used, and it holds the entries written while it was hidden.
    const reply = await embedded.db.command({ collMod: "people", index: { name: "email_1", hidden: false } });
    expect(reply).toMatchObject({ hidden_old: true, hidden_new: false, ok: 1 });
    const used = (await coll.find({ email: "c@x" }).explain()) as Document;
    expect(used.queryPlanner.winningPlan.stage).toBe("IXSCAN");
    expect(await coll.find({ email: "c@x" }).hint("email_1").toArray()).toEqual([{ _id: 4, email: "c@x" }]);
    expect((await coll.listIndexes().toArray()).find((i) => i.name === "email_1")?.hidden).toBeUndefined();

    await embedded.db.command({ collMod: "people", index: { keyPattern: { email: 1 }, hidden: true } });
    expect(((await coll.find({ email: "c@x" }).explain()) as Document).queryPlanner.winningPlan.stage).toBe("COLLSCAN");
  });

  it("refuses to hide the _id index and answers an unknown index as MongoDB does", async () => {
    const id = await serverFailure(embedded.db.command({ collMod: "people", index: { name: "_id_", hidden: true } }));
    expect(id.code).toBe(2);
    expect(id.message).toBe("can't hide _id index");
    const missing = await serverFailure(
      embedded.db.command({ collMod: "people", index: { name: "nope", hidden: true } }),
    );
    expect(missing.code).toBe(27);
  });

  it("lets Mongoose's syncIndexes({ hideIndexes: true }) hide an index instead of dropping it", async () => {
    const conn = await mongoose.createConnection(embedded.server.uri, { dbName: "coll_options_mongoose" }).asPromise();
    try {
      await conn.db!.collection("widgets").createIndex({ colour: 1 });
      const Widget = conn.model(
        "Widget",
        new Schema({ name: { type: String, index: true }, colour: String }),
        "widgets",
      );
      await Widget.syncIndexes({ hideIndexes: true });
      const indexes = await Widget.listIndexes();
      expect(indexes.map((i) => [i.name, Boolean(i.hidden)])).toEqual([
        ["_id_", false],
        ["colour_1", true],
        ["name_1", false],
      ]);
    } finally {
      await conn.close();
    }
  });
});
