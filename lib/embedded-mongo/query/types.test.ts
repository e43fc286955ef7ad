/**
 * BSON types, projections and update paths answered as MongoDB 8 answers them, through the
 * mongodb driver and Mongoose against a real embedded server.
 */
import {
  Binary,
  BSON,
  Decimal128,
  Double,
  Int32,
  Long,
  MongoClient,
  type Document,
  type MongoServerError,
} from "mongodb";
import mongoose, { Schema } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bsonTypeNames } from "../testing/bson-types";
import { tempServerForThisFile } from "../testing/temp-server";

const server = tempServerForThisFile("types");
let client: MongoClient;
const db = () => client.db("types_test");
let n = 0;
/** Documents of any `_id` (the driver's own type assumes an ObjectId). */
type Doc = { _id?: number | Decimal128; [key: string]: unknown };
const fresh = () => db().collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});
afterAll(async () => {
  await client?.close();
});

async function refused(promise: Promise<unknown>): Promise<MongoServerError> {
  try {
    await promise;
  } catch (err) {
    return err as MongoServerError;
  }
  throw new Error("expected a refusal");
}

const ids = (docs: Document[]) => docs.map((d) => d._id);

describe("BSON types", () => {
  it("stores inserted documents as the bytes they were sent in, and puts a later _id first", async () => {
    const c = fresh();
    const docs: Doc[] = [
      {
        _id: 1,
        int: new Int32(7),
        double: new Double(1),
        long: Long.fromNumber(2 ** 40),
        dec: Decimal128.fromString("1.10"),
        bin: new Binary(Buffer.from([0, 1, 2]), 4),
        at: new Date(0),
        none: null,
        list: [new Double(2), "two", { deep: [Long.fromNumber(3)] }],
        text: "añ €",
      },
      { _id: 2, empty: {}, nested: { a: { b: { c: new Double(-0) } } } },
    ];
    await c.insertMany(docs);
    const stored = (await c.find({}, { raw: true }).sort({ _id: 1 }).toArray()) as unknown as Buffer[];
    expect(stored.map((bytes) => Buffer.from(bytes).toString("hex"))).toEqual(
      docs.map((doc) => Buffer.from(BSON.serialize(doc)).toString("hex")),
    );

    // `_id` after other fields, or none at all: MongoDB stores `_id` first.
    await c.insertMany([{ v: new Double(3), _id: 3 }]);
    await db().collection(c.collectionName).insertOne({ v: 4 }, { forceServerObjectId: true });
    const later = await c
      .find({ _id: { $nin: [1, 2] } })
      .sort({ v: 1 })
      .toArray();
    expect(later.map((doc) => Object.keys(doc))).toEqual([
      ["_id", "v"],
      ["_id", "v"],
    ]);
    expect(later[0]).toEqual({ _id: 3, v: 3 });
  });

  it("keeps int, long and double apart for $type, in storage and after updates", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, v: Long.fromNumber(42) },
      { _id: 2, v: new Int32(42) },
      { _id: 3, v: new Double(42) },
    ]);
    expect(ids(await c.find({ v: { $type: "long" } }).toArray())).toEqual([1]);
    expect(ids(await c.find({ v: { $type: "int" } }).toArray())).toEqual([2]);
    expect(ids(await c.find({ v: { $type: "double" } }).toArray())).toEqual([3]);
    expect(ids(await c.find({ v: { $type: "number" } }).toArray())).toEqual([1, 2, 3]);
    await c.updateOne(
      { _id: 2 },
      { $inc: { v: Long.fromNumber(1) } as Document, $set: { d: new Double(5), sub: { l: Long.fromNumber(2) } } },
    );
    const raw = await c.findOne({ _id: 2 }, { promoteValues: false });
    expect(raw?.v).toBeInstanceOf(Long);
    expect(raw?.d).toBeInstanceOf(Double);
    expect((raw?.sub as Document).l).toBeInstanceOf(Long);
  });

  it("keeps long and double through a find projection: inclusion, exclusion, $slice, $elemMatch, positional", async () => {
    const c = fresh();
    const l = Long.fromNumber(5);
    const d = new Double(2);
    await c.insertOne({ _id: 1, l, d, i: 3, sub: { l, d }, list: [l, d, new Int32(1)], docs: [{ l }, { d }] });
    const found = (projection: Document, filter: Document = { _id: 1 }) =>
      c.findOne(filter, { projection, promoteValues: false }).then((doc) => bsonTypeNames(doc));
    expect(await found({ l: 1, d: 1, "sub.l": 1 })).toEqual({
      _id: "Int32",
      l: "Long",
      d: "Double",
      sub: { l: "Long" },
    });
    expect(await found({ i: 0, docs: 0, "sub.d": 0 })).toEqual({
      _id: "Int32",
      l: "Long",
      d: "Double",
      sub: { l: "Long" },
      list: ["Long", "Double", "Int32"],
    });
    expect(await found({ _id: 0, list: { $slice: [1, 2] } })).toMatchObject({ list: ["Double", "Int32"] });
    expect(await found({ _id: 0, list: { $slice: 1 } }, {})).toMatchObject({ list: ["Long"] });
    expect(await found({ _id: 0, list: { $elemMatch: { $gt: 4 } } })).toEqual({ list: ["Long"] });
    expect(await found({ _id: 0, "list.$": 1 }, { list: 2 })).toEqual({ list: ["Double"] });
    expect(await found({ "docs.l": 1, _id: 0 })).toEqual({ docs: [{ l: "Long" }, {}] });
  });

  it("$set and $inc create fields in the order of their paths and keep the wider number type", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, a: { x: new Int32(1) }, n: new Int32(5) });
    await c.updateOne(
      { _id: 1 },
      {
        $set: { "a.z": new Int32(2), "a.y": "y", b: { c: [1] } },
        $inc: { n: Long.fromNumber(2), m: new Double(1.5), "a.x": new Int32(1) } as Document,
      },
    );
    const raw = await c.findOne({ _id: 1 }, { promoteValues: false });
    expect(Object.keys(raw ?? {})).toEqual(["_id", "a", "n", "b", "m"]);
    expect(Object.keys(raw?.a as Document)).toEqual(["x", "y", "z"]);
    expect(raw?.n).toEqual(Long.fromNumber(7));
    expect(raw?.m).toEqual(new Double(1.5));
    expect((raw?.a as Document).x).toEqual(new Int32(2));
    await c.updateOne(
      { k: 1 },
      { $setOnInsert: { t: 1, s: { deep: [1] } }, $inc: { count: 1 } as Document },
      { upsert: true },
    );
    const upserted = await c.findOne({ k: 1 });
    expect(Object.keys(upserted ?? {})).toEqual(["_id", "k", "count", "s", "t"]);
    expect(upserted).toMatchObject({ k: 1, count: 1, s: { deep: [1] }, t: 1 });
  });

  it("stores a Mongoose BigInt as a long and reads it back as a bigint", async () => {
    const conn = await mongoose.createConnection(server.uri, { dbName: "types_mongoose" }).asPromise();
    try {
      const Test = conn.model("BigIntTest", new Schema({ big: BigInt }));
      await Test.create({ big: 42n });
      const doc = await Test.findOne({ big: { $type: "long" } });
      expect(doc?.big).toBe(42n);
      const lean = await Test.findOne({ big: 42n }).setOptions({ useBigInt64: true }).lean<{ big: bigint }>();
      expect(typeof lean?.big).toBe("bigint");
    } finally {
      await conn.close();
    }
  });

  it("keeps binary subtypes, matches binData, and takes a Decimal128 _id", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, b: new Binary(Buffer.from("ab"), 128) });
    const doc = await c.findOne({ b: { $type: "binData" } });
    expect((doc?.b as Binary).sub_type).toBe(128);
    await c.insertOne({ _id: Decimal128.fromString("1.5") });
    expect(await c.countDocuments({ _id: Decimal128.fromString("1.5") })).toBe(1);
  });

  it("applies $bits* to BinData (a UUID) and writes a new binary subtype", async () => {
    const c = fresh();
    const uuid = new Binary(Buffer.from("a1b2c3d4000040008000000000000001", "hex"), 4);
    await c.insertOne({ _id: 1, u: uuid, b: new Binary(Buffer.from([1, 2]), 0) });
    expect(ids(await c.find({ u: { $bitsAllSet: [0, 5, 7] } }).toArray())).toEqual([1]);
    expect(ids(await c.find({ u: { $bitsAllSet: [1] } }).toArray())).toEqual([]);
    expect(ids(await c.find({ b: { $bitsAnySet: new Binary(Buffer.from([0, 2])) } }).toArray())).toEqual([1]);
    expect(ids(await c.find({ b: { $bitsAllClear: 2 } }).toArray())).toEqual([1]);
    await c.updateOne({ _id: 1 }, { $set: { b: new Binary(Buffer.from([1, 2]), 128) } });
    expect(((await c.findOne({ _id: 1 }))?.b as Binary).sub_type).toBe(128);
  });

  it("sorts binary data by length, subtype and bytes, and tells types apart in a later $match", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, b: new Binary(Buffer.from([0xff]), 0), n: Long.fromNumber(1) },
      { _id: 2, b: new Binary(Buffer.from([0x01, 0x00]), 0), n: new Int32(1) },
      { _id: 3, b: new Binary(Buffer.from([0x00]), 4), n: new Double(1) },
      { _id: 4, b: new Binary(Buffer.from([0x3e]), 0), n: new Int32(2) },
    ]);
    expect(ids(await c.find().sort({ b: 1 }).toArray())).toEqual([4, 1, 3, 2]);
    expect(ids(await c.aggregate([{ $sort: { _id: -1 } }, { $match: { n: { $type: "long" } } }]).toArray())).toEqual([
      1,
    ]);
  });

  it("refuses to insert a document over 16 MB as MongoDB's insert path does (2, not stored)", async () => {
    const c = fresh();
    const err = await refused(c.insertOne({ s: "x".repeat(16 * 1024 * 1024 + 1000) }));
    expect(err.code).toBe(2);
    expect(await c.countDocuments()).toBe(0);
  });

  it("matches DBRef fields in $elemMatch and by path", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, refs: [{ $ref: "users", $id: 5 }] });
    expect(ids(await c.find({ refs: { $elemMatch: { $ref: "users", $id: 5 } } }).toArray())).toEqual([1]);
    expect(ids(await c.find({ "refs.$id": 5 }).toArray())).toEqual([1]);
  });
});

describe("projection", () => {
  const doc = { _id: 1, name: "a", secret: "s", arr: [1, 2, 3, 4], subs: [{ n: 1 }, { n: 5 }, { n: 7 }] };

  it("takes $slice with exclusions and alone, keeping the document's field order", async () => {
    const c = fresh();
    await c.insertOne(doc);
    expect(await c.findOne({}, { projection: { secret: 0, arr: { $slice: 2 } } })).toEqual({
      _id: 1,
      name: "a",
      arr: [1, 2],
      subs: doc.subs,
    });
    const alone = await c.findOne({}, { projection: { arr: { $slice: -1 } } });
    expect(Object.keys(alone ?? {})).toEqual(["_id", "name", "secret", "arr", "subs"]);
    expect(alone?.arr).toEqual([4]);
    expect(Object.keys((await c.findOne({}, { projection: { name: 1 } })) ?? {})).toEqual(["_id", "name"]);
  });

  it("takes $elemMatch with operator-only criteria, and the positional $", async () => {
    const c = fresh();
    await c.insertOne(doc);
    expect(await c.findOne({}, { projection: { arr: { $elemMatch: { $in: [3, 4] } } } })).toEqual({ _id: 1, arr: [3] });
    expect(await c.findOne({ "subs.n": 5 }, { projection: { "subs.$": 1 } })).toEqual({ _id: 1, subs: [{ n: 5 }] });
    const err = await refused(c.findOne({}, { projection: { name: 1, secret: 0 } }));
    expect(err.code).toBe(31254);
  });
});

describe("updates", () => {
  it("updates sibling paths under one positional array and refuses only prefixes", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, children: [{ a: 1 }, { a: 2 }] });
    await c.updateOne({ _id: 1, "children.a": 1 }, { $set: { "children.$.name": "x", "children.$.at": 5 } });
    await c.updateOne({ _id: 1 }, { $set: { "children.0.b": 1, "children.1.b": 2 } });
    expect((await c.findOne())?.children).toEqual([
      { a: 1, name: "x", at: 5, b: 1 },
      { a: 2, b: 2 },
    ]);
    expect((await refused(c.updateOne({ _id: 1 }, { $set: { "children.0": 1, "children.0.b": 2 } }))).code).toBe(40);
  });

  it("places a positional $ from several conditions on the array, also inside $and", async () => {
    const c = fresh();
    await c.insertOne({
      _id: 1,
      comments: [
        { id: 1, body: "x" },
        { id: 2, body: "y" },
      ],
    });
    await c.updateOne({ _id: 1, "comments.id": 2, "comments.body": "y" }, { $set: { "comments.$.title": "t" } });
    await c.updateOne({ $and: [{ _id: 1 }, { "comments.id": 1 }] }, { $set: { "comments.$.title": "u" } });
    expect((await c.findOne())?.comments).toEqual([
      { id: 1, body: "x", title: "u" },
      { id: 2, body: "y", title: "t" },
    ]);
  });

  it("writes $-prefixed field names, as MongoDB does since 5.0", async () => {
    const c = fresh();
    await c.updateOne({ _id: 1 }, { $set: { $myKey: "v" } }, { upsert: true });
    await c.updateOne({ _id: 1 }, { $set: { "nested.$each": 1 } });
    expect(await c.findOne()).toEqual({ _id: 1, $myKey: "v", nested: { $each: 1 } });
  });

  it("pulls with a $or document query and refuses a field inside an array", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, arr: [{ a: 1 }, { a: 2 }, { a: 3 }] });
    await c.updateOne({ _id: 1 }, { $pull: { arr: { $or: [{ a: 1 }, { a: 3 }] } } as Document });
    expect((await c.findOne())?.arr).toEqual([{ a: 2 }]);
    expect((await refused(c.updateOne({ _id: 1 }, { $set: { "arr.body": 1 } }))).code).toBe(28);
  });
});

describe("queries", () => {
  it("reads $all as equalities, so a string field matches", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, tags: "abc" },
      { _id: 2, tags: ["abc", "d"] },
      { _id: 3, tags: [{ a: 1 }, { a: 2 }] },
    ]);
    expect(ids(await c.find({ tags: { $all: ["abc"] } }).toArray())).toEqual([1, 2]);
    expect(
      ids(await c.find({ tags: { $all: [{ $elemMatch: { a: 1 } }, { $elemMatch: { a: 2 } }] } }).toArray()),
    ).toEqual([3]);
    expect(await c.countDocuments({ tags: { $all: [] } })).toBe(0);
  });

  it("stores, updates and finds a field named __proto__ like any other", async () => {
    const c = fresh();
    await c.insertOne(JSON.parse('{"_id": 1, "__proto__": {"polluted": 1}}') as Doc);
    const stored = await c.findOne({ _id: 1 });
    expect(Object.hasOwn(stored ?? {}, "__proto__")).toBe(true);
    await c.updateOne({ _id: 1 }, { $set: { "__proto__.polluted": 2 } });
    expect(ids(await c.find({ "__proto__.polluted": 2 }).toArray())).toEqual([1]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});

describe("refusals and orders", () => {
  it("refuses an unknown stage and an unknown operator even on a missing collection", async () => {
    const err = await refused(
      db()
        .collection("missing")
        .aggregate([{ $foo: 1 }])
        .toArray(),
    );
    expect([err.code, err.message]).toEqual([40324, "Unrecognized pipeline stage name: '$foo'"]);
    const op = await refused(
      db()
        .collection("missing")
        .find({ a: { $foo: 1 } })
        .toArray(),
    );
    expect([op.code, op.message]).toEqual([2, "unknown operator: $foo"]);
  });

  it("expires documents of a TTL index, on the period setParameter gives the monitor", async () => {
    const c = fresh();
    await c.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    await c.insertMany([
      { _id: 1, at: new Date(Date.now() - 1000) },
      { _id: 2, at: new Date(Date.now() + 3_600_000) },
      { _id: 3, at: "not a date" },
    ]);
    const admin = client.db("admin");
    expect(await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 })).toMatchObject({ was: 60, ok: 1 });
    expect((await refused(admin.command({ setParameter: 1, noSuchParameter: 1 }))).code).toBe(72);
    for (let tries = 0; tries < 50 && (await c.countDocuments({ _id: 1 })) > 0; tries++)
      await new Promise((r) => setTimeout(r, 200));
    expect(ids(await c.find().toArray())).toEqual([2, 3]);
  });

  it("gives a hinted descending index's order", async () => {
    const c = fresh();
    await c.createIndex({ q: -1 });
    await c.insertMany([
      { _id: 1, q: 1 },
      { _id: 2, q: 3 },
      { _id: 3, q: 2 },
    ]);
    expect(ids(await c.aggregate([{ $match: {} }], { hint: { q: -1 } }).toArray())).toEqual([2, 3, 1]);
  });
});
