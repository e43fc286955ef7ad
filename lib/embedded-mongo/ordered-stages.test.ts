/**
 * The pipeline's groupings, sets, joins and sorts compare documents as MongoDB does, by BSON
 * equality and order, field by field in order: `{x: 1, y: 2}` and `{y: 2, x: 1}` are two values
 * ("Comparison/Sort Order": embedded documents compare their fields in order). Each case holds
 * the document in both orders.
 */
import { Decimal128, Double, Int32, Long, MongoClient, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bsonTypeNames } from "./testing/bson-types";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("ordered-stages");
let client: MongoClient;
let n = 0;
type Doc = { _id: number; [key: string]: unknown };
const fresh = () => client.db("ordered").collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});
afterAll(async () => {
  await client?.close();
});

const XY = { x: 1, y: 2 };
const YX = { y: 2, x: 1 };

async function seeded(docs: Doc[]): Promise<Collection<Doc>> {
  const c = fresh();
  await c.insertMany(docs);
  return c;
}

const byId = (rows: Document[]) => [...rows].sort((p, q) => JSON.stringify(p._id).localeCompare(JSON.stringify(q._id)));

describe("$group and accumulators", () => {
  it("groups {x, y} and {y, x} apart, each _id in its own order", async () => {
    const c = await seeded([
      { _id: 1, d: XY },
      { _id: 2, d: YX },
      { _id: 3, d: { x: 1, y: 2 } },
      { _id: 4, d: 5 },
      { _id: 5, d: 5 },
    ]);
    const rows = await c.aggregate([{ $group: { _id: "$d", ids: { $push: "$_id" } } }]).toArray();
    const keyed = new Map(rows.map((r) => [JSON.stringify(r._id), (r.ids as number[]).sort()]));
    expect(keyed).toEqual(
      new Map([
        ['{"x":1,"y":2}', [1, 3]],
        ['{"y":2,"x":1}', [2]],
        ["5", [4, 5]],
      ]),
    );
  });

  it("groups by a key built of fields, and by arrays holding documents, in order", async () => {
    const c = await seeded([
      { _id: 1, a: 1, b: 2, l: [XY] },
      { _id: 2, a: 1, b: 2, l: [YX] },
      { _id: 3, a: 1, b: 2, l: [XY] },
    ]);
    const built = await c.aggregate([{ $group: { _id: { a: "$a", b: "$b" }, n: { $sum: 1 } } }]).toArray();
    expect(built).toEqual([{ _id: { a: 1, b: 2 }, n: 3 }]);
    const swapped = await c.aggregate([{ $group: { _id: { b: "$b", a: "$a" }, n: { $sum: 1 } } }]).toArray();
    expect(JSON.stringify(swapped)).toBe('[{"_id":{"b":2,"a":1},"n":3}]');
    const lists = await c.aggregate([{ $group: { _id: "$l", n: { $sum: 1 } } }]).toArray();
    expect(byId(lists).map((r) => [JSON.stringify(r._id), r.n])).toEqual([
      ['[{"x":1,"y":2}]', 2],
      ['[{"y":2,"x":1}]', 1],
    ]);
  });

  it("groups numbers of different types as one key inside a document", async () => {
    const c = await seeded([
      { _id: 1, d: { x: 1 } },
      { _id: 2, d: { x: 1.0 } },
    ]);
    const rows = await c.aggregate([{ $group: { _id: "$d", n: { $sum: 1 } } }]).toArray();
    expect(rows).toEqual([{ _id: { x: 1 }, n: 2 }]);
  });

  it("$addToSet keeps {x, y} and {y, x} as two values, and one of two equal ones", async () => {
    const c = await seeded([
      { _id: 1, d: XY },
      { _id: 2, d: YX },
      { _id: 3, d: { x: 1, y: 2 } },
    ]);
    const [row] = await c.aggregate([{ $group: { _id: null, s: { $addToSet: "$d" } } }]).toArray();
    expect((row.s as Document[]).map((d) => JSON.stringify(d)).sort()).toEqual(['{"x":1,"y":2}', '{"y":2,"x":1}']);
  });

  it("$addToSet under a collation keeps the order of fields too", async () => {
    const c = await seeded([
      { _id: 1, d: { x: "a", y: 2 } },
      { _id: 2, d: { y: 2, x: "A" } },
      { _id: 3, d: { x: "A", y: 2 } },
    ]);
    const [row] = await c
      .aggregate([{ $group: { _id: null, s: { $addToSet: "$d" } } }], { collation: { locale: "en", strength: 2 } })
      .toArray();
    expect((row.s as Document[]).map((d) => Object.keys(d).join("")).sort()).toEqual(["xy", "yx"]);
  });

  it("groups in order under a collation, strings merged by it", async () => {
    const c = await seeded([
      { _id: 1, d: { x: "a", y: 2 } },
      { _id: 2, d: { y: 2, x: "a" } },
      { _id: 3, d: { x: "A", y: 2 } },
    ]);
    const rows = await c
      .aggregate([{ $group: { _id: "$d", n: { $sum: 1 } } }], { collation: { locale: "en", strength: 2 } })
      .toArray();
    expect(byId(rows).map((r) => [Object.keys(r._id as Document).join(""), r.n])).toEqual([
      ["xy", 2],
      ["yx", 1],
    ]);
  });
});

describe("$group result types, as MongoDB's", () => {
  it("$sum keeps ints and longs and widens past their range; $avg is a double; $first and $last keep the stored type", async () => {
    const INT_MAX = 2 ** 31 - 1;
    const c = await seeded([
      {
        _id: 1,
        k: 1,
        i: new Int32(1),
        l: Long.fromNumber(5),
        d: new Double(2),
        big: new Int32(INT_MAX),
        m: new Int32(1),
      },
      {
        _id: 2,
        k: 1,
        i: new Int32(2),
        l: Long.fromNumber(6),
        d: new Double(3),
        big: new Int32(INT_MAX),
        m: Long.fromNumber(2),
      },
    ]);
    const [row] = await c
      .aggregate(
        [
          { $sort: { _id: 1 } },
          {
            $group: {
              _id: "$k",
              i: { $sum: "$i" },
              l: { $sum: "$l" },
              d: { $sum: "$d" },
              big: { $sum: "$big" },
              mixed: { $sum: "$m" },
              count: { $sum: 1 },
              none: { $sum: "$missing" },
              avg: { $avg: "$i" },
              firstL: { $first: "$l" },
              lastD: { $last: "$d" },
              firstI: { $first: "$i" },
            },
          },
        ],
        { promoteValues: false },
      )
      .toArray();
    const types = Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, (v as { _bsontype?: string })._bsontype ?? typeof v]),
    );
    expect(types).toEqual({
      _id: "Int32",
      i: "Int32",
      l: "Long",
      d: "Double",
      big: "Long",
      mixed: "Long",
      count: "Int32",
      none: "Int32",
      avg: "Double",
      firstL: "Long",
      lastD: "Double",
      firstI: "Int32",
    });
    const [values] = await c.aggregate([{ $group: { _id: null, l: { $sum: "$l" }, big: { $sum: "$big" } } }]).toArray();
    expect(values).toMatchObject({ l: 11, big: 2 * INT_MAX });
    // A later stage compares the typed results as numbers; a Decimal128 sum, which mingo answered 0, is refused.
    const later = await c
      .aggregate([{ $group: { _id: "$k", l: { $sum: "$l" } } }, { $match: { l: { $gt: 10, $type: "long" } } }])
      .toArray();
    expect(later).toHaveLength(1);
    await c.insertOne({ _id: 3, k: 2, x: Decimal128.fromString("1.5") });
    await c.insertOne({ _id: 4, k: 2, x: Decimal128.fromString("2.5") });
    for (const op of ["$sum", "$avg"])
      await expect(
        c.aggregate([{ $match: { k: 2 } }, { $group: { _id: "$k", x: { [op]: "$x" } } }]).toArray(),
      ).rejects.toMatchObject({ code: 115, message: expect.stringContaining("MONGODB_URI") });
  });
});

describe("$project, $addFields and $set keep the types of what they pass through", () => {
  it("a field kept, included, excluded around or named by a path stays a long or a double; a computed one is sent by its value", async () => {
    const l = Long.fromNumber(5);
    const d = new Double(2);
    const c = await seeded([{ _id: 1, l, d, sub: { l, d, list: [l, d] }, docs: [{ l }, { d }] }]);
    const run = async (stage: Document) =>
      bsonTypeNames((await c.aggregate([stage], { promoteValues: false }).toArray())[0]);
    const SUB = { l: "Long", d: "Double", list: ["Long", "Double"] };
    expect(await run({ $project: { l: 1, d: 1, sub: 1 } })).toEqual({ _id: "Int32", l: "Long", d: "Double", sub: SUB });
    expect(await run({ $project: { "sub.l": 1, "docs.l": 1, _id: 0 } })).toEqual({
      sub: { l: "Long" },
      docs: [{ l: "Long" }, {}],
    });
    expect(await run({ $project: { sub: 0, docs: 0 } })).toEqual({ _id: "Int32", l: "Long", d: "Double" });
    expect(await run({ $project: { x: "$l", y: "$sub.d", s: "$sub", _id: 0 } })).toEqual({
      x: "Long",
      y: "Double",
      s: SUB,
    });
    // Computed: an int32 by its value (MongoDB: $toInt an int, so these agree), not the input's type.
    expect(await run({ $project: { l: { $toInt: "$l" }, _id: 0 } })).toEqual({ l: "Int32" });
    expect(await run({ $addFields: { n: 1, x: "$d" } })).toEqual({
      _id: "Int32",
      l: "Long",
      d: "Double",
      sub: SUB,
      docs: [{ l: "Long" }, { d: "Double" }],
      n: "Int32",
      x: "Double",
    });
    expect(await run({ $set: { l: { $toInt: "$l" } } })).toMatchObject({ l: "Int32", d: "Double" });
  });
});

describe("set expressions", () => {
  it("compare their documents in order", async () => {
    const c = await seeded([{ _id: 1, p: [XY, 1], q: [YX, 1] }]);
    const [row] = await c
      .aggregate([
        {
          $project: {
            _id: 0,
            union: { $setUnion: ["$p", "$q"] },
            inter: { $setIntersection: ["$p", "$q"] },
            diff: { $setDifference: ["$p", "$q"] },
            equals: { $setEquals: ["$p", "$q"] },
            subset: { $setIsSubset: ["$p", "$q"] },
            same: { $setEquals: ["$p", [1, { x: 1, y: 2 }]] },
            within: { $setIsSubset: [[{ $literal: { y: 2, x: 1 } }], "$q"] },
          },
        },
      ])
      .toArray();
    expect(JSON.stringify((row.union as unknown[]).map((v) => JSON.stringify(v)).sort())).toBe(
      JSON.stringify(["1", '{"x":1,"y":2}', '{"y":2,"x":1}'].sort()),
    );
    expect(row.inter).toEqual([1]);
    expect(JSON.stringify(row.diff)).toBe('[{"x":1,"y":2}]');
    expect(row).toMatchObject({ equals: false, subset: false, same: true, within: true });
  });
});

describe("distinct", () => {
  it("answers {x, y} and {y, x} as two values", async () => {
    const c = await seeded([
      { _id: 1, d: XY },
      { _id: 2, d: YX },
      { _id: 3, d: { x: 1, y: 2 } },
    ]);
    const values = await c.distinct("d");
    expect(values.map((v) => JSON.stringify(v)).sort()).toEqual(['{"x":1,"y":2}', '{"y":2,"x":1}']);
  });
});

describe("$sort stages", () => {
  // BSON order: {x: 1, y: 2} < {y: 2, x: 1} (the first field's name); arrays by their smallest
  // element ascending, their largest descending.
  const DOCS: Doc[] = [
    { _id: 1, d: YX },
    { _id: 2, d: XY },
    { _id: 3, d: { x: 1 } },
    { _id: 4, d: "s" },
    { _id: 5, d: [{ y: 3, x: 1 }, { x: 0 }] },
  ];

  it("orders documents field by field in order, after another stage", async () => {
    const c = await seeded(DOCS);
    const up = await c.aggregate([{ $addFields: { k: 1 } }, { $sort: { d: 1 } }]).toArray();
    expect(up.map((d) => d._id)).toEqual([4, 5, 3, 2, 1]);
    const down = await c.aggregate([{ $addFields: { k: 1 } }, { $sort: { d: -1 } }]).toArray();
    expect(down.map((d) => d._id)).toEqual([5, 1, 2, 3, 4]);
  });

  it("agrees with find's sort", async () => {
    const c = await seeded(DOCS);
    for (const dir of [1, -1] as const) {
      const found = await c.find({}).sort({ d: dir }).toArray();
      const staged = await c.aggregate([{ $project: { d: 1 } }, { $sort: { d: dir } }]).toArray();
      expect(staged.map((d) => d._id)).toEqual(found.map((d) => d._id));
    }
  });

  it("keeps ordering scalars and ties on the next key", async () => {
    const c = await seeded([
      { _id: 1, d: YX, n: 2 },
      { _id: 2, d: XY, n: 1 },
      { _id: 3, d: XY, n: 0 },
    ]);
    const rows = await c.aggregate([{ $skip: 0 }, { $sort: { d: 1, n: 1 } }]).toArray();
    expect(rows.map((d) => d._id)).toEqual([3, 2, 1]);
    const scalars = await c.aggregate([{ $skip: 0 }, { $sort: { n: -1 } }]).toArray();
    expect(scalars.map((d) => d._id)).toEqual([1, 2, 3]);
  });
});

describe("partial indexes", () => {
  // A unique partial index holds only the documents its filter matches: the filter's document
  // must be equal field by field in order.
  for (const [filter, inside, outside] of [
    [XY, XY, YX],
    [YX, YX, XY],
  ] as const) {
    it(`indexes {d: ${JSON.stringify(filter)}} and not the other order`, async () => {
      const c = fresh();
      await c.createIndex({ k: 1 }, { unique: true, partialFilterExpression: { d: filter } });
      await c.insertMany([
        { _id: 1, k: 1, d: outside },
        { _id: 2, k: 1, d: outside },
        { _id: 3, k: 1, d: inside },
      ]);
      await expect(c.insertOne({ _id: 4, k: 1, d: { ...inside } })).rejects.toMatchObject({ code: 11000 });
      await expect(c.updateOne({ _id: 1 }, { $set: { d: inside } })).rejects.toMatchObject({ code: 11000 });
      expect(await c.countDocuments()).toBe(3);
    });
  }
});

describe("$project of fields", () => {
  it("keeps them in the document's order, _id first, as MongoDB's projection walks the document", async () => {
    const c = await seeded([{ _id: 1, f: 7, n: 2, m: "a" }]);
    const shape = async (project: Document) =>
      JSON.stringify(await c.aggregate([{ $match: {} }, { $project: project }]).toArray());
    expect(await shape({ m: 1 })).toBe('[{"_id":1,"m":"a"}]');
    expect(await shape({ m: 1, n: true })).toBe('[{"_id":1,"n":2,"m":"a"}]');
    expect(await shape({ m: 1, _id: 0, f: 1 })).toBe('[{"f":7,"m":"a"}]');
  });

  it("puts the fields it keeps in the document's order, then those it computes in the projection's", async () => {
    const c = await seeded([{ _id: 1, f: 7, d: { y: 1, x: 2 }, n: 2, m: "a", s: 3 }]);
    const shape = async (project: Document) =>
      JSON.stringify(await c.aggregate([{ $match: {} }, { $project: project }]).toArray());
    expect(await shape({ u: { $add: ["$n", 1] } })).toBe('[{"_id":1,"u":3}]');
    expect(await shape({ z: "$m", m: 1, n: { $literal: 9 }, f: true })).toBe('[{"_id":1,"f":7,"m":"a","z":"a","n":9}]');
    expect(await shape({ z: "$m", _id: 0, "d.x": 1, s: 1 })).toBe('[{"d":{"x":2},"s":3,"z":"a"}]');
    expect(await shape({ d: { x: 1 }, t: { $literal: 1 }, f: 1 })).toBe('[{"_id":1,"f":7,"d":{"x":2},"t":1}]');
    // A computed field no input field holds goes after those kept; an exclusion keeps the input's order.
    expect(await shape({ "q.r": { $literal: 1 }, f: 1 })).toBe('[{"_id":1,"f":7,"q":{"r":1}}]');
    expect(await shape({ n: 0, d: 0 })).toBe('[{"_id":1,"f":7,"m":"a","s":3}]');
  });
});

// Read whole, or probed through an index of the foreign field as MongoDB does: the same joins.
for (const indexed of [false, true]) {
  const foreignWith = async (docs: Doc[]) => {
    const c = await seeded(docs);
    if (indexed) await c.createIndex({ f: 1 });
    return c;
  };
  /** `local` joined from its `l` to the `f` of `foreign` under `j`, by `_id`. */
  const join = (local: Collection<Doc>, foreign: Collection<Doc>, lookup: Document = {}, promoteValues = true) =>
    local
      .aggregate(
        [
          { $lookup: { from: foreign.collectionName, localField: "l", foreignField: "f", as: "j", ...lookup } },
          { $sort: { _id: 1 } },
        ],
        { promoteValues },
      )
      .toArray();
  const ids = (rows: Document[]) => rows.map((r) => [r._id, (r.j as Document[]).map((d) => d._id)]);
  const by = indexed ? "through an index of the foreign field" : "reading the foreign collection";

  describe(`$lookup on localField and foreignField, ${by}`, () => {
    async function joined(pipeline: Document[] = []) {
      const foreign = await foreignWith([
        { _id: 1, f: XY },
        { _id: 2, f: YX },
        { _id: 3, f: [XY, 7] },
        { _id: 4, f: 7 },
      ]);
      const local = await seeded([
        { _id: 10, l: XY },
        { _id: 11, l: YX },
        { _id: 12, l: [YX, 7] },
        { _id: 13, l: { x: 1 } },
      ]);
      return ids(await join(local, foreign, pipeline.length ? { pipeline } : {}));
    }

    it("joins a document to the foreign values equal to it in order", async () => {
      expect(await joined()).toEqual([
        [10, [1, 3]],
        [11, [2]],
        [12, [2, 3, 4]],
        [13, []],
      ]);
    });

    it("runs a sub-pipeline on each document's matches", async () => {
      expect(await joined([{ $match: { _id: { $gt: 1 } } }])).toEqual([
        [10, [3]],
        [11, [2]],
        [12, [2, 3, 4]],
        [13, []],
      ]);
    });
  });

  describe(`$lookup with localField, foreignField and a pipeline, on scalars, ${by}`, () => {
    it("runs the pipeline on each document's matches only", async () => {
      const foreign = await foreignWith([
        { _id: 1, f: 7 },
        { _id: 2, f: [7, 8] },
        { _id: 3, f: 8 },
      ]);
      const local = await seeded([
        { _id: 10, l: 7 },
        { _id: 11, l: 9 },
      ]);
      const rows = await join(local, foreign, { pipeline: [{ $project: { _id: 1 } }] });
      expect(rows.map((r) => [r._id, r.j])).toEqual([
        [10, [{ _id: 1 }, { _id: 2 }]],
        [11, []],
      ]);
    });

    it("runs the sub-pipeline's first `$match`, `$sort` and `$project` as they would run after the join", async () => {
      const foreign = await foreignWith([
        { _id: 1, f: 7, n: 2, m: "a" },
        { _id: 2, f: 7, n: 5, m: "b" },
        { _id: 3, f: 7, n: new Double(2), m: "c" },
        { _id: 4, f: 7, n: 0 },
        { _id: 5, f: 8, n: 9 },
      ]);
      const local = await seeded([{ _id: 10, l: 7 }]);
      const run = async (pipeline: Document[]) => JSON.stringify((await join(local, foreign, { pipeline }))[0].j);
      const match = { $match: { n: { $gte: 1 } } };
      expect(await run([match, { $sort: { n: 1 } }, { $project: { m: 1 } }])).toBe(
        '[{"_id":1,"m":"a"},{"_id":3,"m":"c"},{"_id":2,"m":"b"}]',
      );
      expect(await run([match, { $sort: { n: -1 } }, { $project: { _id: 0, n: 1, m: 1 } }])).toBe(
        '[{"n":5,"m":"b"},{"n":2,"m":"a"},{"n":2,"m":"c"}]',
      );
      expect(await run([{ $project: { _id: 0 } }, { $limit: 1 }])).toBe('[{"f":7,"n":2,"m":"a"}]');
      expect(await run([{ $sort: { m: -1 } }, { $project: { m: 1 } }, { $limit: 2 }])).toBe(
        '[{"_id":3,"m":"c"},{"_id":2,"m":"b"}]',
      );
      const [typed] = await join(local, foreign, { pipeline: [{ $match: { _id: 3 } }, { $project: { n: 1 } }] }, false);
      expect((typed.j as Document[])[0].n).toBeInstanceOf(Double);
    });

    it("reads a variable of `let` in the sub-pipeline's first `$match`", async () => {
      const foreign = await foreignWith([
        { _id: 1, f: 7, n: 1 },
        { _id: 2, f: 7, n: 5 },
        { _id: 3, f: 8, n: 9 },
      ]);
      const local = await seeded([
        { _id: 10, l: 7, min: 2 },
        { _id: 11, l: 8, min: 10 },
      ]);
      const rows = await join(local, foreign, {
        let: { min: "$min" },
        pipeline: [{ $match: { $expr: { $gte: ["$n", "$$min"] } } }, { $project: { _id: 1 } }],
      });
      expect(rows.map((r) => [r._id, r.j])).toEqual([
        [10, [{ _id: 2 }]],
        [11, []],
      ]);
    });

    it("joins a missing value to null and missing ones, a number to every type of it, a pattern only to itself", async () => {
      const foreign = await foreignWith([
        { _id: 1, f: null },
        { _id: 2 },
        { _id: 3, f: 2 },
        { _id: 4, f: new Double(2) },
        { _id: 5, f: "ab" },
        { _id: 6, f: /a/ },
        { _id: 7, f: [] },
      ]);
      const local = await seeded([{ _id: 10 }, { _id: 11, l: 2 }, { _id: 12, l: /a/ }, { _id: 13, l: [] }]);
      expect(ids(await join(local, foreign))).toEqual([
        [10, [1, 2]],
        [11, [3, 4]],
        [12, [6]],
        [13, []],
      ]);
    });
  });

  describe(`$lookup under a collation, ${by}`, () => {
    const CASELESS = { locale: "en", strength: 2 };
    const seededPair = async () => ({
      foreign: await foreignWith([
        { _id: 1, f: "a" },
        { _id: 2, f: "B" },
        { _id: 3, f: "á" },
        { _id: 4, f: ["x", "A"] },
      ]),
      local: await seeded([
        { _id: 10, l: "A" },
        { _id: 11, l: "b" },
        { _id: 12, l: ["X", "c"] },
      ]),
    });
    const lookup = (foreign: Collection<Doc>, extra: Document = {}) => ({
      $lookup: { from: foreign.collectionName, localField: "l", foreignField: "f", as: "j", ...extra },
    });

    it("compares strings by the aggregate's collation, with or without a sub-pipeline", async () => {
      const { foreign, local } = await seededPair();
      for (const extra of [{}, { pipeline: [{ $project: { _id: 1 } }] }]) {
        const rows = await local
          .aggregate([lookup(foreign, extra), { $sort: { _id: 1 } }], { collation: CASELESS })
          .toArray();
        expect(ids(rows)).toEqual([
          [10, [1, 4]],
          [11, [2]],
          [12, [4]],
        ]);
      }
      // The simple collation compares in binary.
      expect(ids(await local.aggregate([lookup(foreign), { $sort: { _id: 1 } }]).toArray())).toEqual([
        [10, [4]],
        [11, []],
        [12, []],
      ]);
    });

    it("follows the local collection's default collation, not the foreign one's", async () => {
      const { foreign } = await seededPair();
      const local = client.db("ordered").collection<Doc>(`c${n++}`);
      await client.db("ordered").createCollection(local.collectionName, { collation: CASELESS });
      await local.insertMany([{ _id: 10, l: "A" }]);
      expect(ids(await local.aggregate([lookup(foreign)]).toArray())).toEqual([[10, [1, 4]]]);
      expect(
        ids(
          await foreign
            .aggregate([
              { $match: { _id: 1 } },
              { $lookup: { from: local.collectionName, localField: "f", foreignField: "l", as: "j" } },
            ])
            .toArray(),
        ),
      ).toEqual([[1, []]]);
    });
  });
}

describe("$sortArray", () => {
  it("orders documents field by field in order, whole or by a field", async () => {
    const c = await seeded([{ _id: 1, l: [YX, { x: 1 }, XY, "s"], w: [{ k: YX }, { k: XY }, { k: 0 }] }]);
    const [row] = await c
      .aggregate([
        {
          $project: {
            up: { $sortArray: { input: "$l", sortBy: 1 } },
            down: { $sortArray: { input: "$l", sortBy: -1 } },
            byField: { $sortArray: { input: "$w", sortBy: { k: 1 } } },
          },
        },
      ])
      .toArray();
    expect(JSON.stringify(row.up)).toBe('["s",{"x":1},{"x":1,"y":2},{"y":2,"x":1}]');
    expect(JSON.stringify(row.down)).toBe('[{"y":2,"x":1},{"x":1,"y":2},{"x":1},"s"]');
    expect(JSON.stringify(row.byField)).toBe('[{"k":0},{"k":{"x":1,"y":2}},{"k":{"y":2,"x":1}}]');
  });
});

describe("$bucket with documents as boundaries", () => {
  // BSON order: {x: 1} < {x: 1, y: 2} < {x: 1, z: 0} < {y: 0} < {y: 2, x: 1}; a string is below every document.
  const DOCS: Doc[] = [
    { _id: 1, d: XY },
    { _id: 2, d: YX },
    { _id: 3, d: { x: 1 } },
    { _id: 4, d: { x: 1, z: 0 } },
    { _id: 5, d: "s" },
  ];

  it("puts each value in the bucket of the greatest boundary not above it, the buckets in _id order", async () => {
    const c = await seeded(DOCS);
    const rows = await c
      .aggregate([
        {
          $bucket: {
            groupBy: "$d",
            boundaries: [{ x: 1 }, XY, { y: 0 }],
            default: "other",
            output: { ids: { $push: "$_id" } },
          },
        },
      ])
      .toArray();
    // MongoDB's $bucket is a $group then a $sort on _id: the default, a string, sorts before the documents.
    expect(JSON.stringify(rows)).toBe(
      JSON.stringify([
        { _id: "other", ids: [2, 5] },
        { _id: { x: 1 }, ids: [3] },
        { _id: XY, ids: [1, 4] },
      ]),
    );
    const objects = await c
      .aggregate([
        { $match: { d: { $type: "object" } } },
        { $bucket: { groupBy: "$d", boundaries: [{ x: 1 }, { y: 0 }, { y: 3 }] } },
      ])
      .toArray();
    expect(JSON.stringify(objects)).toBe(
      JSON.stringify([
        { _id: { x: 1 }, count: 3 },
        { _id: { y: 0 }, count: 1 },
      ]),
    );
  });

  it("refuses boundaries out of order, and a value outside them without a default", async () => {
    const c = await seeded(DOCS);
    await expect(c.aggregate([{ $bucket: { groupBy: "$d", boundaries: [YX, XY] } }]).toArray()).rejects.toMatchObject({
      code: 40194,
    });
    await expect(c.aggregate([{ $bucket: { groupBy: "$d", boundaries: [XY, YX] } }]).toArray()).rejects.toMatchObject({
      code: 40066,
    });
  });
});

describe("$sortByCount and $facet", () => {
  it("count {x, y} and {y, x} apart", async () => {
    const c = await seeded([
      { _id: 1, d: XY },
      { _id: 2, d: YX },
      { _id: 3, d: { x: 1, y: 2 } },
    ]);
    const counted = await c.aggregate([{ $sortByCount: "$d" }]).toArray();
    expect(JSON.stringify(counted)).toBe('[{"_id":{"x":1,"y":2},"count":2},{"_id":{"y":2,"x":1},"count":1}]');
    const [faceted] = await c.aggregate([{ $facet: { g: [{ $group: { _id: "$d", n: { $sum: 1 } } }] } }]).toArray();
    expect(byId(faceted.g as Document[]).map((r) => [JSON.stringify(r._id), r.n])).toEqual([
      ['{"x":1,"y":2}', 2],
      ['{"y":2,"x":1}', 1],
    ]);
  });

  it("$sortByCount under a collation merges equal strings and keeps the order of fields", async () => {
    const c = await seeded([
      { _id: 1, d: { x: "a", y: 2 } },
      { _id: 2, d: { y: 2, x: "a" } },
      { _id: 3, d: { x: "A", y: 2 } },
    ]);
    const counted = await c.aggregate([{ $sortByCount: "$d" }], { collation: { locale: "en", strength: 2 } }).toArray();
    expect(counted.map((r) => [Object.keys(r._id as Document).join(""), r.count])).toEqual([
      ["xy", 2],
      ["yx", 1],
    ]);
  });
});

describe("$bucketAuto on documents", () => {
  it("cuts the values in BSON order, {x, y} and {y, x} apart", async () => {
    const c = await seeded([
      { _id: 1, d: YX },
      { _id: 2, d: XY },
      { _id: 3, d: { x: 1 } },
      { _id: 4, d: { x: 1, y: 2 } },
    ]);
    const rows = await c
      .aggregate([{ $bucketAuto: { groupBy: "$d", buckets: 2, output: { ids: { $push: "$_id" } } } }])
      .toArray();
    expect(JSON.stringify(rows)).toBe(
      JSON.stringify([
        { _id: { min: { x: 1 }, max: YX }, ids: [3, 2, 4] },
        { _id: { min: YX, max: YX }, ids: [1] },
      ]),
    );
  });
});
