/**
 * Answers an outside client (Mongoose's own test suite) found different from MongoDB 8, each
 * through the driver or Mongoose against a real embedded server, with what MongoDB answers.
 */
import { Binary, BSONRegExp, MongoBulkWriteError, MongoClient, ObjectId, type Document } from "mongodb";
import mongoose, { Schema, type Connection } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverFailure, tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("differences");
let client: MongoClient;
let conn: Connection;
let n = 0;
/** Documents of any `_id` and fields (the driver's own type assumes an ObjectId). */
type Doc = { _id?: number | ObjectId; [key: string]: unknown };
const fresh = () => client.db("differences").collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
  conn = await mongoose.createConnection(server.uri, { dbName: "differences_mongoose" }).asPromise();
});
afterAll(async () => {
  await conn?.close();
  await client?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("field names every JavaScript object inherits", () => {
  it("$rename into `constructor.x` and `__proto__.x` creates those fields, as any other name", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, hello: "world" },
      { _id: 2, hello: "world" },
      { _id: 3, a: 1 },
    ]);
    await c.updateOne({ _id: 1 }, { $rename: { hello: "constructor.polluted" } });
    await c.updateOne({ _id: 2 }, { $rename: { hello: "__proto__.polluted" } });
    await c.updateOne({ _id: 3 }, {
      $set: { "toString.x": 1, hasOwnProperty: 2 },
      $inc: { "valueOf.n": 3 },
    } as Document);
    const docs = await c.find({}, { sort: { _id: 1 } }).toArray();
    expect(JSON.stringify(docs)).toBe(
      '[{"_id":1,"constructor":{"polluted":"world"}},{"_id":2,"__proto__":{"polluted":"world"}},{"_id":3,"a":1,"hasOwnProperty":2,"toString":{"x":1},"valueOf":{"n":3}}]',
    );
    expect(await c.countDocuments({ "constructor.polluted": "world" })).toBe(1);
    expect(await c.countDocuments({ constructor: { $exists: true } })).toBe(1);
    expect(await c.countDocuments({ toString: { $type: "object" } })).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("a Mongoose model reads such documents back without touching Object.prototype", async () => {
    const Example = conn.model("Example", new Schema({ hello: String }));
    const first = await Example.create({ hello: "world!" });
    await Example.findByIdAndUpdate(first._id, { $rename: { hello: "constructor.polluted" } });
    const second = await Example.create({ hello: "world!" });
    await Example.findByIdAndUpdate(second._id, { $rename: { hello: "__proto__.polluted" } });
    expect(await Example.find()).toHaveLength(2);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });

  for (const indexed of [false, true]) {
    it(`compares a value with its own \`__proto__\` field as any document, also against arrays${indexed ? ", through an index" : ""}`, async () => {
      const c = fresh();
      if (indexed) await c.createIndex({ a: 1 });
      // JSON.parse gives an object its own `__proto__` field, which the driver sends as a field.
      const value = (text: string) => JSON.parse(text) as unknown;
      await c.insertMany([
        { _id: 1, a: [] },
        { _id: 2, a: [{}] },
        { _id: 3, a: {} },
        { _id: 4, a: [[]] },
        { _id: 5, a: [null] },
        { _id: 6, a: value('{"__proto__": 1}') },
        { _id: 7, a: value('[{"__proto__": 1}]') },
        { _id: 8, a: value('[{"x": 1, "__proto__": 2}]') },
        { _id: 9, a: value('[{"__proto__": []}]') },
        { _id: 10, a: value('{"__proto__": null}') },
      ]);
      const ids = async (filter: Document) => (await c.find(filter, { sort: { _id: 1 } }).toArray()).map((d) => d._id);
      const one = value('{"__proto__": 1}');
      expect(await ids({ a: one })).toEqual([6, 7]);
      expect(await ids({ a: { $eq: one } })).toEqual([6, 7]);
      expect(await ids({ a: { $in: [one] } })).toEqual([6, 7]);
      expect(await ids({ a: { $all: [one] } })).toEqual([6, 7]);
      expect(await ids({ a: { $elemMatch: { $eq: one } } })).toEqual([7]);
      expect(await ids({ a: { $ne: one } })).toEqual([1, 2, 3, 4, 5, 8, 9, 10]);
      expect(await ids({ a: value('{"__proto__": {}}') })).toEqual([]);
      expect(await ids({ a: value('{"__proto__": []}') })).toEqual([9]);
      expect(await ids({ a: { $in: [value('{"__proto__": null}')] } })).toEqual([10]);
      expect(await ids({ a: value('{"x": 1, "__proto__": 2}') })).toEqual([8]);
      expect(await c.countDocuments({ a: one })).toBe(2);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });
  }

  it("refuses `$type: 'constructor'` as an unknown type alias", async () => {
    const failure = await serverFailure(
      fresh()
        .find({ a: { $type: "constructor" } })
        .toArray(),
    );
    expect(failure.code).toBe(2);
    expect(failure.message).toBe("Unknown type name alias: constructor");
  });
});

describe("binary data in range conditions", () => {
  // MongoDB orders binary data by length, then subtype, then bytes.
  const values = {
    A: [195, 188, 98, 101, 114],
    B: [...Buffer.from("buffer shtuffs are neat")],
    C: [...Buffer.from("hello world")],
    D: [...Buffer.from("gh-6863")],
  };
  const bin = (bytes: number[]) => new Binary(Buffer.from(bytes));

  for (const indexed of [false, true]) {
    it(`$gt, $gte, $lt and $lte compare by length first${indexed ? ", also through an index" : ""}`, async () => {
      const c = fresh();
      if (indexed) await c.createIndex({ block: 1 });
      await c.insertMany(Object.entries(values).map(([name, bytes]) => ({ name, block: bin(bytes) })));
      await c.insertOne({ name: "S", block: "a string is another type" });
      const names = async (filter: Document) =>
        (await c.find({ block: filter }).toArray())
          .map((d) => d.name)
          .sort()
          .join("");
      expect(await names({ $gt: bin(values.A) })).toBe("BCD");
      expect(await names({ $gte: bin(values.A) })).toBe("ABCD");
      expect(await names({ $lt: bin(values.B) })).toBe("ACD");
      expect(await names({ $lte: bin(values.B) })).toBe("ABCD");
      expect(await names({ $gt: bin(values.D) })).toBe("BC");
      expect(await names({ $gt: bin(values.D), $lt: bin(values.B) })).toBe("C");
      expect(await names({ $not: { $gt: bin(values.D) } })).toBe("ADS");
      expect(await names({ $gt: new Binary(Buffer.from(values.A), 4) })).toBe("BCD");
      expect(await c.countDocuments({ $or: [{ block: { $lt: bin(values.D) } }, { name: "S" }] })).toBe(2);
    });
  }

  it("matches an element of an array of binary values", async () => {
    const c = fresh();
    await c.insertOne({ blocks: [bin([1]), bin([1, 2, 3])] });
    expect(await c.countDocuments({ blocks: { $gt: bin([9, 9]) } })).toBe(1);
    expect(await c.countDocuments({ blocks: { $gt: bin([9, 9, 9]) } })).toBe(0);
  });
});

describe("array operators on a field that is not an array", () => {
  it("refuse with MongoDB's codes and messages, and change nothing", async () => {
    const c = fresh();
    const _id = new ObjectId();
    await c.insertOne({ _id, num: 42, name: "x", nested: { list: 5 } });
    const cases: Array<[Document, number, string]> = [
      [
        { $push: { num: 1 } },
        2,
        `The field 'num' must be an array but is of type int in document {_id: ObjectId('${_id.toHexString()}')}`,
      ],
      [
        { $addToSet: { name: 1 } },
        2,
        "Cannot apply $addToSet to non-array field. Field named 'name' has non-array type string",
      ],
      [{ $pop: { "nested.list": 1 } }, 14, "Path 'nested.list' contains an element of non-array type 'int'"],
      [{ $pull: { num: 1 } }, 2, "Cannot apply $pull to a non-array value"],
      [{ $pullAll: { nested: [1] } }, 2, "Cannot apply $pullAll to a non-array value"],
    ];
    for (const [update, code, message] of cases) {
      const failure = await serverFailure(c.updateOne({ _id }, update));
      expect([failure.code, failure.message]).toEqual([code, message]);
    }
    expect(await c.findOne({ _id })).toEqual({ _id, num: 42, name: "x", nested: { list: 5 } });
  });

  it("an unordered bulk write reports the refused statement and applies the others", async () => {
    const c = fresh();
    const { insertedId } = await c.insertOne({ num: 42 });
    const err = await serverFailure(
      c.bulkWrite(
        [
          { updateOne: { filter: {}, update: { $push: { num: 42 } } as Document } },
          { updateOne: { filter: {}, update: { $inc: { num: 57 } } } },
        ],
        { ordered: false },
      ),
    );
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    const bulk = err as unknown as MongoBulkWriteError;
    expect(bulk.writeErrors).toHaveLength(1);
    expect([bulk.writeErrors].flat()[0].index).toBe(0);
    expect(bulk.result.modifiedCount).toBe(1);
    expect(await c.findOne({ _id: insertedId })).toEqual({ _id: insertedId, num: 99 });
  });

  it("Mongoose's bulkWrite rejects with the server's error beside its own validation errors", async () => {
    const Counter = conn.model("Counter", new Schema({ num: Number }));
    const { _id } = await Counter.create({ num: 42 });
    const err = await Counter.bulkWrite(
      [
        { updateOne: { filter: { _id }, update: { $set: { num: "not a number" } } } },
        { updateOne: { filter: { _id }, update: { $push: { num: 42 } } } },
        { updateOne: { filter: { _id }, update: { $inc: { num: 57 } } } },
      ] as never,
      { ordered: false },
    ).then(
      () => null,
      (e: { mongoose?: { validationErrors: unknown[] } }) => e,
    );
    expect(err?.mongoose?.validationErrors).toHaveLength(1);
    expect((await Counter.findById(_id).lean())?.num).toBe(99);
  });
});

describe("the positional $ with several fields of one element", () => {
  it("sets every field of the element the query matched before the update", async () => {
    const c = fresh();
    await c.insertOne({
      _id: 1,
      children: [
        { name: "foo", u: 1 },
        { name: "bar", u: 1 },
        { name: "baz", u: 1 },
      ],
    });
    await c.updateOne({ "children.name": "bar" }, {
      $set: { "children.$.name": "Luke", "children.$.u": 2 },
      $inc: { "children.$.n": 1 },
    } as Document);
    expect(await c.findOne({ _id: 1 })).toEqual({
      _id: 1,
      children: [
        { name: "foo", u: 1 },
        { name: "Luke", u: 2, n: 1 },
        { name: "baz", u: 1 },
      ],
    });
    await c.updateOne(
      { children: { $elemMatch: { name: "baz", u: 1 } } },
      { $set: { "children.$.u": 3, "children.$.name": "Leia" } },
    );
    expect(((await c.findOne({ _id: 1 }))?.children as Document[])[2]).toEqual({ name: "Leia", u: 3 });
  });

  it("Mongoose advances the timestamps of the matched subdocument, also in a reused child schema", async () => {
    const child = new Schema({ name: String }, { timestamps: true });
    const Single = conn.model("Single", new Schema({ child }));
    const Parent = conn.model("Parent", new Schema({ children: [child] }));

    await Single.create({ child: { name: "foo" } });
    await sleep(15);
    let start = Date.now();
    const single = await Single.findOneAndUpdate({}, { $set: { "child.name": "bar" } }, { new: true });
    expect(single!.child!.name).toBe("bar");
    expect((single!.child as unknown as { updatedAt: Date }).updatedAt.getTime()).toBeGreaterThanOrEqual(start);

    await Parent.create({ children: [{ name: "foo" }, { name: "bar" }, { name: "baz" }] });
    await sleep(15);
    start = Date.now();
    const parent = await Parent.findOneAndUpdate(
      { "children.name": "bar" },
      { $set: { "children.$.name": "Luke" } },
      { new: true },
    );
    const kids = parent!.children as unknown as Array<{ name: string; updatedAt: Date }>;
    expect(kids.map((k) => k.name)).toEqual(["foo", "Luke", "baz"]);
    expect(kids[1].updatedAt.getTime()).toBeGreaterThanOrEqual(start);
    expect(kids[0].updatedAt.getTime()).toBeLessThan(start);
  });
});

describe("input the server's query engine would trip over", () => {
  it("stores a regular expression JavaScript cannot compile, and refuses it as a query pattern (51091)", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, re: new BSONRegExp("(", "") });
    const [stored] = await c.find({ _id: 1 }, { bsonRegExp: true }).toArray();
    expect(stored.re).toEqual(new BSONRegExp("(", ""));
    const failure = await serverFailure(c.find({ name: new BSONRegExp("[", "") }).toArray());
    expect(failure.code).toBe(51091);
    expect(failure.message).toMatch(/^Regular expression is invalid/);
    expect(await c.countDocuments({ _id: 1 })).toBe(1);
  });

  it("refuses $in, $nin and $all without an array", async () => {
    for (const op of ["$in", "$nin", "$all"]) {
      const failure = await serverFailure(
        fresh()
          .find({ a: { [op]: { a: 0 } } })
          .toArray(),
      );
      expect([failure.code, failure.message]).toEqual([2, `${op} needs an array`]);
    }
    const failure = await serverFailure(
      fresh()
        .aggregate([{ $match: { "a.__proto__.b": { $nin: 1 } } }])
        .toArray(),
    );
    expect(failure.message).toBe("$nin needs an array");
  });

  it("refuses malformed stages with MongoDB's codes", async () => {
    const cases: Array<[Document, number]> = [
      [{ $sample: { a: 1 } }, 28748],
      [{ $sample: {} }, 28749],
      [{ $sample: { size: -1 } }, 28747],
      [{ $limit: 0 }, 15958],
      [{ $skip: "x" }, 15972],
      [{ $group: { n: { $sum: 1 } } }, 15955],
      [{ $sort: { a: 2 } }, 15975],
      [{ $unwind: "a" }, 28818],
      [{ $count: "$n" }, 40158],
      [{ $facet: { x: [{ $sample: { size: "1" } }] } }, 28746],
    ];
    for (const [stage, code] of cases)
      expect((await serverFailure(fresh().aggregate([stage]).toArray())).code).toBe(code);
  });

  it("$sample returns distinct documents, never more than the collection holds", async () => {
    const c = fresh();
    await c.insertMany(Array.from({ length: 5 }, (_, i) => ({ _id: i })));
    const sampled = await c.aggregate([{ $sample: { size: 1e12 } }]).toArray();
    expect(sampled.map((d) => d._id).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await c.aggregate([{ $sample: { size: 3 } }]).toArray()).toHaveLength(3);
    expect(
      await fresh()
        .aggregate([{ $sample: { size: 3 } }])
        .toArray(),
    ).toEqual([]);
    const [facet] = await c.aggregate([{ $facet: { two: [{ $sample: { size: 2 } }] } }]).toArray();
    expect(new Set(facet.two.map((d: Document) => d._id)).size).toBe(2);
  });

  it("indexes and finds fields named like an object's own properties", async () => {
    const c = fresh();
    await c.createIndex({ toString: 1 });
    await c.createIndex({ "constructor.name": 1 });
    await c.insertMany([{ _id: 1, toString: 5, constructor: { name: "x" } }, { _id: 2 }]);
    expect((await c.find({ toString: 5 }).toArray()).map((d) => d._id)).toEqual([1]);
    expect((await c.find({ "constructor.name": "x" }).toArray()).map((d) => d._id)).toEqual([1]);
    expect(await c.countDocuments({ toString: null })).toBe(1);
  });
});
