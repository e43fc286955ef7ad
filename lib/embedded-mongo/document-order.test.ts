/**
 * Documents compared as MongoDB compares them (BSON order: each field's type, name and value in
 * order, then the number of fields), with and without an index on the field: `{a: {y: 2, x: 1}}`
 * does not equal `{a: {x: 1, y: 2}}`, in every operator, aggregation, update, upsert, count and
 * distinct. The answers are MongoDB's documented ones ("Query on Embedded/Nested Documents":
 * equality on a whole embedded document needs the exact document, field order included).
 */
import fc from "fast-check";
import { Long, MongoClient, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("document-order");
let client: MongoClient;
let n = 0;
type Doc = { _id: number; [key: string]: unknown };
const fresh = () => client.db("order").collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});
afterAll(async () => {
  await client?.close();
});

const DOCS: Doc[] = [
  { _id: 1, a: { x: 1, y: 2 } },
  { _id: 2, a: { y: 2, x: 1 } },
  { _id: 3, a: [{ x: 1, y: 2 }, 5] },
  { _id: 4, a: [{ y: 2, x: 1 }] },
  { _id: 5, a: { x: 1 } },
  { _id: 6, a: { x: 1, y: 2, z: 3 } },
  { _id: 7, a: { x: 2 } },
  { _id: 8, a: [[{ x: 1, y: 2 }], [{ y: 2, x: 1 }]] },
  { _id: 9, a: "s" },
  { _id: 10 },
];

async function ids(c: Collection<Doc>, filter: Document): Promise<number[]> {
  const docs = await c.find(filter, { projection: { _id: 1 } }).toArray();
  return docs.map((d) => d._id).sort((p, q) => p - q);
}

/** Each filter with the `_id`s MongoDB answers for {@link DOCS}. */
const CASES: Array<[string, Document, number[]]> = [
  ["implicit equality", { a: { x: 1, y: 2 } }, [1, 3]],
  ["implicit equality, the other order", { a: { y: 2, x: 1 } }, [2, 4]],
  ["$eq", { a: { $eq: { x: 1, y: 2 } } }, [1, 3]],
  ["$ne", { a: { $ne: { x: 1, y: 2 } } }, [2, 4, 5, 6, 7, 8, 9, 10]],
  ["$in with a document and a string", { a: { $in: [{ y: 2, x: 1 }, "s"] } }, [2, 4, 9]],
  ["$nin", { a: { $nin: [{ x: 1, y: 2 }] } }, [2, 4, 5, 6, 7, 8, 9, 10]],
  ["$all", { a: { $all: [{ x: 1, y: 2 }] } }, [1, 3]],
  ["$elemMatch with $eq", { a: { $elemMatch: { $eq: { y: 2, x: 1 } } } }, [4]],
  ["a whole array holding a document", { a: [{ x: 1, y: 2 }] }, [8]],
  ["a whole array holding a document, the other order", { a: [{ y: 2, x: 1 }] }, [4, 8]],
  ["$not $eq", { a: { $not: { $eq: { y: 2, x: 1 } } } }, [1, 3, 5, 6, 7, 8, 9, 10]],
  ["in $or", { $or: [{ a: { x: 1, y: 2 } }, { a: "s" }] }, [1, 3, 9]],
  // BSON order: {x: 1} < {x: 1, y: 2} (shorter) < {x: 1, y: 3} < {x: 2} < {y: …} (the name y).
  ["$gt", { a: { $gt: { x: 1 } } }, [1, 2, 3, 4, 6, 7]],
  ["$lt", { a: { $lt: { x: 1, y: 3 } } }, [1, 3, 5, 6]],
  ["$lte", { a: { $lte: { x: 1 } } }, [5]],
  ["$gte", { a: { $gte: { y: 0 } } }, [2, 4]],
  ["$gt an array", { a: { $gt: [{ x: 1, y: 1 }] } }, [3, 4, 8]],
  ["$lt an array", { a: { $lt: [{ x: 1, y: 3 }] } }, [3, 8]],
];

describe("a document compared field by field in order", () => {
  for (const indexed of [false, true]) {
    const how = indexed ? "with an index on the field" : "without an index";
    describe(how, () => {
      let c: Collection<Doc>;
      beforeAll(async () => {
        c = fresh();
        if (indexed) await c.createIndex({ a: 1 });
        await c.insertMany(DOCS);
      });

      for (const [name, filter, expected] of CASES) {
        it(`${name}: find, count and an aggregation's $match`, async () => {
          expect(await ids(c, filter)).toEqual(expected);
          expect(await c.countDocuments(filter)).toBe(expected.length);
          const count = await c.db.command({ count: c.collectionName, query: filter });
          expect(count.n).toBe(expected.length);
          // A leading $match (the planner's), one after another stage, and one inside $facet.
          const leading = await c.aggregate<Doc>([{ $match: filter }, { $sort: { _id: 1 } }]).toArray();
          expect(leading.map((d) => d._id)).toEqual(expected);
          const later = await c
            .aggregate<Doc>([{ $addFields: { seen: true } }, { $match: filter }, { $sort: { _id: 1 } }])
            .toArray();
          expect(later.map((d) => d._id)).toEqual(expected);
          const [facet] = await c
            .aggregate<{ hits: Doc[] }>([{ $facet: { hits: [{ $match: filter }, { $sort: { _id: 1 } }] } }])
            .toArray();
          expect(facet.hits.map((d) => d._id)).toEqual(expected);
        });
      }

      it("distinct with such a filter", async () => {
        const values = await c.distinct("_id", { a: { x: 1, y: 2 } });
        expect(values.sort()).toEqual([1, 3]);
      });

      it("sorts documents in BSON order", async () => {
        const s = fresh();
        if (indexed) await s.createIndex({ v: 1 });
        await s.insertMany([
          { _id: 1, v: { n: 10 } },
          { _id: 2, v: { n: 9 } },
          { _id: 3, v: { m: 100 } },
          { _id: 4, v: { n: 9, o: 1 } },
        ]);
        const sorted = await s.find({}, { sort: { v: 1 } }).toArray();
        expect(sorted.map((d) => d._id)).toEqual([3, 2, 4, 1]);
      });
    });
  }
});

describe("updates and upserts", () => {
  for (const indexed of [false, true]) {
    const how = indexed ? ", with an index on the field" : "";
    it(`an update's filter matches only the same order of fields${how}`, async () => {
      const c = fresh();
      if (indexed) await c.createIndex({ a: 1 });
      await c.insertMany(DOCS);
      const many = await c.updateMany({ a: { x: 1, y: 2 } }, { $set: { hit: true } });
      expect(many.matchedCount).toBe(2);
      expect(await ids(c, { hit: true })).toEqual([1, 3]);
      const deleted = await c.deleteMany({ a: { $in: [{ y: 2, x: 1 }] } });
      expect(deleted.deletedCount).toBe(2);
      expect(await ids(c, {})).toEqual([1, 3, 5, 6, 7, 8, 9, 10]);
    });

    it(`an upsert whose document differs only in the order of fields inserts it${how}`, async () => {
      const c = fresh();
      if (indexed) await c.createIndex({ a: 1 });
      await c.insertOne({ _id: 1, a: { x: 1, y: 2 } });
      const viaSet = await c.updateOne({ a: { y: 2, x: 1 } }, { $set: { b: 1 } }, { upsert: true });
      expect(viaSet.upsertedCount).toBe(1);
      const viaEq = await c.updateOne({ a: { $eq: { y: 1, x: 1 } } }, { $inc: { n: 1 } } as Document, {
        upsert: true,
      });
      expect(viaEq.upsertedCount).toBe(1);
      const replaced = await c.replaceOne({ _id: 9, a: { y: 3, x: 1 } }, { c: 1 }, { upsert: true });
      expect(replaced.upsertedCount).toBe(1);
      const found = await c.findOneAndUpdate(
        { a: { y: 2, x: 1 } },
        { $set: { d: 1 } },
        { upsert: true, returnDocument: "after" },
      );
      expect(found?.b).toBe(1);
      const docs = await c.find({}, { projection: { _id: 0 }, sort: { _id: 1 } }).toArray();
      // The seeded documents keep the filter's order of fields.
      expect(JSON.stringify(docs.filter((d) => d.a !== undefined).map((d) => d.a))).toBe(
        '[{"x":1,"y":2},{"y":2,"x":1},{"y":1,"x":1}]',
      );
      expect(await c.countDocuments({ a: { x: 1, y: 2 } })).toBe(1);
      expect(await c.countDocuments({ a: { y: 2, x: 1 }, b: 1, d: 1 })).toBe(1);
    });
  }

  it("$addToSet adds a document whose fields come in another order, $pullAll removes only the same order", async () => {
    const c = fresh();
    await c.insertOne({
      _id: 1,
      a: [{ x: 1, y: 2 }],
      b: [
        { x: 1, y: 2 },
        { y: 2, x: 1 },
      ],
      dup: [1, 1],
    });
    await c.updateOne({ _id: 1 }, { $addToSet: { a: { y: 2, x: 1 } } } as Document);
    await c.updateOne({ _id: 1 }, { $addToSet: { a: { $each: [{ x: 1, y: 2 }, { z: 1 }, { z: 1 }] } } } as Document);
    await c.updateOne({ _id: 1 }, { $pullAll: { b: [{ x: 1, y: 2 }] } } as Document);
    // An array already holding duplicates keeps them and still takes a new value.
    await c.updateOne({ _id: 1 }, { $addToSet: { dup: 2, fresh: { $each: [3, 3] } } } as Document);
    const doc = await c.findOne({ _id: 1 });
    expect(JSON.stringify(doc)).toBe(
      '{"_id":1,"a":[{"x":1,"y":2},{"y":2,"x":1},{"z":1}],"b":[{"y":2,"x":1}],"dup":[1,1,2],"fresh":[3]}',
    );
  });

  it("$addToSet and $pullAll keep the BSON type of the numbers", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, a: [Long.fromNumber(1), 2, Long.fromNumber(3)] });
    await c.updateOne({ _id: 1 }, { $pullAll: { a: [2] }, $addToSet: { b: Long.fromNumber(4) } } as Document);
    expect(
      await c.countDocuments({ "a.0": { $type: "long" }, "a.1": { $type: "long" }, "b.0": { $type: "long" } }),
    ).toBe(1);
  });

  it("the positional $ names the element equal in order", async () => {
    const c = fresh();
    await c.insertOne({
      _id: 1,
      a: [
        { y: 2, x: 1 },
        { x: 1, y: 2 },
      ],
    });
    await c.updateOne({ a: { x: 1, y: 2 } }, { $set: { "a.$": "hit" } });
    expect((await c.findOne({ _id: 1 }))?.a).toEqual([{ y: 2, x: 1 }, "hit"]);
  });

  it("arrayFilters compare documents in order", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, a: [{ p: { y: 2, x: 1 } }, { p: { x: 1, y: 2 } }] });
    await c.updateOne({ _id: 1 }, { $set: { "a.$[e].hit": true } }, { arrayFilters: [{ "e.p": { x: 1, y: 2 } }] });
    expect((await c.findOne({ _id: 1 }))?.a).toEqual([{ p: { y: 2, x: 1 } }, { p: { x: 1, y: 2 }, hit: true }]);
  });
});

describe("aggregation expressions", () => {
  it("$expr, $eq, $ne, $cmp, $gt and $in compare documents field by field in order", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, a: { x: 1, y: 2 } },
      { _id: 2, a: { y: 2, x: 1 } },
    ]);
    const same = { $literal: { x: 1, y: 2 } };
    expect(await ids(c, { $expr: { $eq: ["$a", same] } })).toEqual([1]);
    const rows = await c
      .aggregate([
        {
          $project: {
            eq: { $eq: ["$a", same] },
            ne: { $ne: ["$a", same] },
            cmp: { $cmp: ["$a", same] },
            gt: { $gt: ["$a", same] },
            in: { $in: ["$a", [same]] },
          },
        },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(rows).toEqual([
      { _id: 1, eq: true, ne: false, cmp: 0, gt: false, in: true },
      { _id: 2, eq: false, ne: true, cmp: 1, gt: true, in: false },
    ]);
    // An update pipeline evaluates its expressions the same way.
    await c.updateMany({}, [{ $set: { hit: { $eq: ["$a", same] } } }]);
    expect(await ids(c, { hit: true })).toEqual([1]);
  });
});

describe("collection validators", () => {
  it("a query validator's document accepts only the same order of fields", async () => {
    const db = client.db("order");
    const name = `v${n++}`;
    await db.createCollection(name, { validator: { a: { x: 1, y: 2 } } });
    const c = db.collection<Doc>(name);
    await c.insertOne({ _id: 1, a: { x: 1, y: 2 } });
    await expect(c.insertOne({ _id: 2, a: { y: 2, x: 1 } })).rejects.toMatchObject({ code: 121 });
    expect(await ids(c, {})).toEqual([1]);
  });
});

describe("under a collation", () => {
  it("strings inside documents follow the collator, fields keep their order", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, a: { x: "A", y: 2 } },
      { _id: 2, a: { y: 2, x: "a" } },
    ]);
    const collation = { locale: "en", strength: 2 };
    const found = await c.find({ a: { x: "a", y: 2 } }, { collation }).toArray();
    expect(found.map((d) => d._id)).toEqual([1]);
    const listed = await c.find({ a: { $in: [{ y: 2, x: "A" }] } }, { collation }).toArray();
    expect(listed.map((d) => d._id)).toEqual([2]);
  });
});

/** Small documents: a few names, small values, one level of nesting, short arrays. */
const scalar = fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom("a", "b"), fc.constant(null));
const subdocument = fc
  .uniqueArray(fc.tuple(fc.constantFrom("x", "y", "z"), scalar), { maxLength: 3, selector: ([k]) => k })
  .map((entries) => Object.fromEntries(entries) as Document);
const value = fc.oneof(scalar, subdocument, fc.array(fc.oneof(scalar, subdocument), { maxLength: 3 }));
const OPERATORS = ["implicit", "$eq", "$ne", "$in", "$nin", "$all", "$gt", "$gte", "$lt", "$lte", "$elemMatch"];
const filterOf = (op: string, v: Document): Document => {
  if (op === "implicit") return { a: v };
  if (op === "$in" || op === "$nin" || op === "$all") return { a: { [op]: [v] } };
  if (op === "$elemMatch") return { a: { $elemMatch: { $eq: v } } };
  return { a: { [op]: v } };
};

describe("through an index and without one", () => {
  it("random small documents: every operator finds the same set", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(value, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...OPERATORS),
        subdocument,
        async (values, op, probe) => {
          const docs = values.map((a, i) => ({ _id: i, a }));
          const plain = client.db("order").collection<Doc>(`plain${run}`);
          const indexed = client.db("order").collection<Doc>(`indexed${run++}`);
          await indexed.createIndex({ a: 1 });
          await plain.insertMany(docs);
          await indexed.insertMany(docs);
          // A probe taken from the data finds something; the random one mostly not.
          for (const v of [probe, ...values.filter((a) => a !== null && typeof a === "object")].slice(0, 3)) {
            const filter = filterOf(op, v as Document);
            const without = await ids(plain, filter);
            expect(await ids(indexed, filter)).toEqual(without);
            const hinted = await indexed.find(filter, { hint: { a: 1 }, projection: { _id: 1 } }).toArray();
            expect(hinted.map((d) => d._id).sort((p, q) => p - q)).toEqual(without);
          }
          await plain.drop();
          await indexed.drop();
        },
      ),
      { seed: 20261129, numRuns: 60 },
    );
  });
});
