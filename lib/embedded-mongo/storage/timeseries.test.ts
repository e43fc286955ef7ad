/**
 * Time-series collections as a driver and Mongoose see them (timeseries.ts): created and listed
 * with MongoDB 8's options, measurements inserted, read and aggregated as documents, expired by
 * the TTL monitor, and updates held to MongoDB 8's limits with its codes.
 */
import { type Document } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { describe, expect, it } from "vitest";
import { serverFailure, tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("timeseries", "timeseries_test");
const hour = 3_600_000;

describe("creating a time-series collection", () => {
  it("lists it as MongoDB 8 does, bucketing filled in from the granularity, with the metaField index and no _id index", async () => {
    await embedded.db.createCollection("weather", {
      timeseries: { timeField: "at", metaField: "sensor", granularity: "hours" },
      expireAfterSeconds: 86400,
    });
    const [info] = await embedded.db.listCollections({ name: "weather" }).toArray();
    expect(info).toEqual({
      name: "weather",
      type: "timeseries",
      options: {
        timeseries: { timeField: "at", metaField: "sensor", granularity: "hours", bucketMaxSpanSeconds: 2592000 },
        expireAfterSeconds: 86400,
      },
      info: { readOnly: false },
    });
    expect(await embedded.db.collection("weather").listIndexes().toArray()).toEqual([
      { v: 2, key: { sensor: 1, at: 1 }, name: "sensor_1_at_1" },
    ]);
    const unique = await serverFailure(embedded.db.collection("weather").createIndex({ sensor: 1 }, { unique: true }));
    expect([unique.code, unique.message]).toEqual([72, "Unique indexes are not supported on time-series collections"]);
    expect((await serverFailure(embedded.db.collection("weather").createIndex({ note: "text" }))).code).toBe(72);
    await embedded.db.collection("weather").createIndex({ "sensor.id": 1 });

    await embedded.db.createCollection("plain_ts", { timeseries: { timeField: "t" } });
    const [plain] = await embedded.db.listCollections({ name: "plain_ts" }).toArray();
    expect((plain as Document).options).toEqual({
      timeseries: { timeField: "t", granularity: "seconds", bucketMaxSpanSeconds: 3600 },
    });
    await embedded.db.createCollection("custom_ts", {
      timeseries: { timeField: "t", bucketMaxSpanSeconds: 600, bucketRoundingSeconds: 600 },
    });
    const [custom] = await embedded.db.listCollections({ name: "custom_ts" }).toArray();
    expect((custom as Document).options).toEqual({
      timeseries: { timeField: "t", bucketRoundingSeconds: 600, bucketMaxSpanSeconds: 600 },
    });
  });

  it("refuses the options MongoDB refuses, with its codes and messages", async () => {
    const refused = async (name: string, options: Document) =>
      serverFailure(embedded.db.createCollection(name, options));
    expect((await refused("a", { timeseries: { metaField: "m" } })).code).toBe(40414);
    expect((await refused("b", { timeseries: { timeField: "t", extra: 1 } })).code).toBe(40415);
    const granularity = await refused("c", { timeseries: { timeField: "t", granularity: "days" } });
    expect([granularity.code, granularity.message]).toEqual([
      2,
      "Enumeration value 'days' for field 'timeseries.granularity' is not a valid value.",
    ]);
    const same = await refused("d", { timeseries: { timeField: "t", metaField: "t" } });
    expect([same.code, same.message]).toEqual([72, "'metaField' cannot be the same as 'timeField'"]);
    expect((await refused("e", { timeseries: { timeField: "t", metaField: "_id" } })).message).toBe(
      "'metaField' cannot be \"_id\"",
    );
    expect((await refused("f", { timeseries: { timeField: "a.b" } })).message).toBe(
      "timeseries_test.f: 'timeField' must be a top-level field and not contain a '.'",
    );
    const alone = await refused("g", { timeseries: { timeField: "t", bucketMaxSpanSeconds: 100 } });
    expect([alone.code, alone.message]).toEqual([
      72,
      "Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other",
    ]);
    expect(
      (await refused("h", { timeseries: { timeField: "t", bucketMaxSpanSeconds: 100, bucketRoundingSeconds: 50 } }))
        .message,
    ).toBe("Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'");
    expect(
      (await refused("i", { timeseries: { timeField: "t", granularity: "hours", bucketMaxSpanSeconds: 100 } })).message,
    ).toBe(
      "Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default of 2592000 for the provided granularity",
    );
    expect((await refused("j", { timeseries: { timeField: "t" }, capped: true, size: 1000 })).message).toBe(
      "timeseries_test.j: 'timeseries' is not allowed with 'capped'",
    );
    expect((await refused("k", { timeseries: { timeField: "t" }, validator: { a: 1 } })).code).toBe(72);
    expect((await refused("l", { timeseries: { timeField: "t" }, expireAfterSeconds: -1 })).code).toBe(51024);
    const ttlAlone = await refused("m", { expireAfterSeconds: 10 });
    expect(ttlAlone.message).toBe(
      "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified",
    );
    const names = (await embedded.db.listCollections().toArray()).map((c) => c.name);
    for (const name of ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"])
      expect(names).not.toContain(name);
  });
});

describe("measurements", () => {
  it("are inserted with a date in the time field, then queried and aggregated as documents", async () => {
    await embedded.db.createCollection("readings", { timeseries: { timeField: "at", metaField: "sensor" } });
    const readings = embedded.db.collection("readings");
    const base = Date.UTC(2026, 0, 1);
    await readings.insertMany([
      { at: new Date(base), sensor: { id: 1 }, temp: 10 },
      { at: new Date(base + hour), sensor: { id: 1 }, temp: 14 },
      { at: new Date(base + 2 * hour), sensor: { id: 2 }, temp: 20 },
    ]);
    const missing = await serverFailure(readings.insertOne({ sensor: { id: 3 }, temp: 1 }));
    expect([missing.code, missing.message]).toEqual([
      2,
      "'at' must be present and contain a valid BSON UTC datetime value",
    ]);
    const notDate = await serverFailure(readings.insertOne({ at: "2026-01-01", temp: 1 }));
    expect(notDate.code).toBe(2);
    expect(await readings.countDocuments()).toBe(3);

    const warm = await readings
      .find({ temp: { $gte: 14 } }, { sort: { at: 1 }, projection: { _id: 0, temp: 1 } })
      .toArray();
    expect(warm).toEqual([{ temp: 14 }, { temp: 20 }]);
    const averages = await readings
      .aggregate([{ $group: { _id: "$sensor.id", avg: { $avg: "$temp" } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(averages).toEqual([
      { _id: 1, avg: 12 },
      { _id: 2, avg: 20 },
    ]);
  });

  it("are removed by the TTL monitor once their time is older than expireAfterSeconds", async () => {
    await embedded.db.createCollection("expiring", {
      timeseries: { timeField: "at", metaField: "m" },
      expireAfterSeconds: 60,
    });
    const expiring = embedded.db.collection("expiring");
    await expiring.insertMany([
      { at: new Date(Date.now() - 2 * hour), m: "old" },
      { at: new Date(Date.now()), m: "new" },
    ]);
    await embedded.client.db("admin").command({ setParameter: 1, ttlMonitorSleepSecs: 1 });
    for (let tries = 0; tries < 50 && (await expiring.countDocuments({ m: "old" })) > 0; tries++)
      await new Promise((r) => setTimeout(r, 200));
    expect((await expiring.find().toArray()).map((d) => d.m)).toEqual(["new"]);
  });
});

describe("updates and deletes", () => {
  it("update only the metaField of every matching measurement, as MongoDB 8 allows", async () => {
    await embedded.db.createCollection("metered", { timeseries: { timeField: "at", metaField: "meta" } });
    const metered = embedded.db.collection("metered");
    await metered.insertMany([
      { at: new Date(), meta: { node: "a" }, v: 1 },
      { at: new Date(), meta: { node: "a" }, v: 2 },
      { at: new Date(), meta: { node: "b" }, v: 3 },
    ]);
    const renamed = await metered.updateMany({ "meta.node": "a" }, { $set: { "meta.node": "c" } });
    expect([renamed.matchedCount, renamed.modifiedCount]).toEqual([2, 2]);
    expect(await metered.countDocuments({ "meta.node": "c" })).toBe(2);

    const refused = async (run: Promise<unknown>, message: string) => {
      const err = await serverFailure(run);
      expect([err.code, err.message]).toEqual([72, message]);
    };
    await refused(
      metered.updateOne({ "meta.node": "b" }, { $set: { "meta.node": "d" } }),
      "Cannot perform a non-multi update on a time-series collection",
    );
    await refused(
      metered.updateMany({ "meta.node": "z" }, { $set: { "meta.node": "d" } }, { upsert: true }),
      "Cannot perform an upsert on a time-series collection",
    );
    await refused(
      metered.updateMany({ v: 3 }, { $set: { "meta.node": "d" } }),
      "Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField 'meta'",
    );
    await refused(
      metered.updateMany({ "meta.node": "b" }, { $set: { v: 30 } }),
      "Cannot perform an update on a time-series collection which updates a field that is not the metaField 'meta'",
    );
    await refused(
      metered.updateMany({ "meta.node": "b" }, [{ $set: { meta: "x" } }]),
      "Cannot perform an update on a time-series collection using a pipeline update",
    );
    await refused(
      metered.findOneAndUpdate({ "meta.node": "b" }, { $set: { "meta.node": "d" } }),
      "Cannot perform a non-multi update on a time-series collection",
    );
    expect(await metered.findOne({ v: 3 }, { projection: { _id: 0, at: 0 } })).toEqual({ meta: { node: "b" }, v: 3 });

    await embedded.db.createCollection("no_meta", { timeseries: { timeField: "at" } });
    await embedded.db.collection("no_meta").insertOne({ at: new Date(), v: 1 });
    await refused(
      embedded.db.collection("no_meta").updateMany({}, { $set: { v: 2 } }),
      "Cannot perform an update on a time-series collection that does not have a metaField",
    );

    // Deletes carry no time-series limit since MongoDB 7.0: any filter, one or many.
    expect((await metered.deleteOne({ v: { $gte: 2 } })).deletedCount).toBe(1);
    expect((await metered.deleteMany({ v: { $lt: 100 } })).deletedCount).toBe(2);
    expect((await metered.findOneAndDelete({})) === null).toBe(true);
  });

  it("are refused in a transaction, where reads still work", async () => {
    await embedded.db.createCollection("in_txn", { timeseries: { timeField: "at", metaField: "m" } });
    const coll = embedded.db.collection("in_txn");
    await coll.insertOne({ at: new Date(), m: 1 });
    const session = embedded.client.startSession();
    try {
      session.startTransaction();
      expect(await coll.countDocuments({}, { session })).toBe(1);
      const err = await serverFailure(coll.insertOne({ at: new Date(), m: 2 }, { session }));
      expect(err.code).toBe(263);
      await session.abortTransaction().catch(() => undefined);
    } finally {
      await session.endSession();
    }
    expect(await coll.countDocuments()).toBe(1);
  });
});

describe("Mongoose's timeseries schema option", () => {
  it("creates the collection, and the model inserts, reads and aggregates through it", async () => {
    const conn = await mongoose.createConnection(embedded.server.uri, { dbName: "timeseries_mongoose" }).asPromise();
    try {
      const schema = new Schema(
        { at: Date, sensor: { id: Number }, temp: Number },
        {
          timeseries: { timeField: "at", metaField: "sensor", granularity: "minutes" },
          expireAfterSeconds: 86400,
          autoCreate: false,
        },
      );
      const Reading = conn.model("Reading", schema, "readings");
      await Reading.createCollection();
      const [info] = await conn.db!.listCollections({ name: "readings" }).toArray();
      expect(info).toMatchObject({
        type: "timeseries",
        options: {
          timeseries: { timeField: "at", metaField: "sensor", granularity: "minutes", bucketMaxSpanSeconds: 86400 },
          expireAfterSeconds: 86400,
        },
      });
      await Reading.create([
        { at: new Date(), sensor: { id: 1 }, temp: 5 },
        { at: new Date(), sensor: { id: 1 }, temp: 7 },
      ]);
      expect(await Reading.countDocuments({ "sensor.id": 1 })).toBe(2);
      const [avg] = await Reading.aggregate<{ avg: number }>([{ $group: { _id: null, avg: { $avg: "$temp" } } }]);
      expect(avg.avg).toBe(6);
      const refused = await serverFailure(Reading.create({ sensor: { id: 2 }, temp: 1 }));
      expect(refused.code).toBe(2);
      const { toDrop } = await Reading.diffIndexes();
      expect(toDrop).toEqual([]);
    } finally {
      await conn.close();
    }
  });
});
