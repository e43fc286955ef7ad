/**
 * Aggregation operators that compare values follow the operation's collation (the aggregate's
 * `collation` option, else the collection's default), as MongoDB's expression context compares
 * them: sets, `$indexOfArray`, `$min`/`$max`/`$minN`/`$maxN`, `$sortArray`, `$top`/`$bottom`,
 * `$bucket` and `$bucketAuto`. Each case also runs under the simple collation, where strings stay
 * in binary order. Sets are compared sorted: MongoDB's order of a set's elements is unspecified.
 * `$bucket`'s refusals carry MongoDB's codes (document_source_bucket.cpp).
 */
import { Double, Long, MongoClient, type CollationOptions, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caught, tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("collated-expressions");
let client: MongoClient;
let n = 0;
type Doc = { _id: number; [key: string]: unknown };
const fresh = () => client.db("collated").collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});
afterAll(async () => {
  await client?.close();
});

const CI: CollationOptions = { locale: "en", strength: 2 };
const SIMPLE: CollationOptions = { locale: "simple" };

async function seeded(docs: Doc[]): Promise<Collection<Doc>> {
  const c = fresh();
  await c.insertMany(docs);
  return c;
}

const SETS: Doc[] = [
  { _id: 1, s: ["a", "B"], t: ["A", "b"], v: "b" },
  { _id: 2, s: ["c"], t: ["C", "d"], v: "C" },
  { _id: 3, s: ["Z"], t: [], v: "z" },
];

/** One computed field per document, in `_id` order. */
async function computed(c: Collection<Doc>, expr: unknown, collation: CollationOptions): Promise<unknown[]> {
  const rows = await c.aggregate([{ $project: { u: expr } }, { $sort: { _id: 1 } }], { collation }).toArray();
  return rows.map((r) => r.u);
}

const sorted = (values: unknown[]) => values.map((v) => [...(v as string[])].sort());

describe("set expressions", () => {
  it("make sets of strings equal under the collation, binary under the simple one", async () => {
    const c = await seeded(SETS);
    const union = { $setUnion: ["$s", "$t"] };
    expect(sorted(await computed(c, union, CI))).toEqual([["B", "a"], ["c", "d"], ["Z"]]);
    expect(sorted(await computed(c, union, SIMPLE))).toEqual([["A", "B", "a", "b"], ["C", "c", "d"], ["Z"]]);
    const intersection = { $setIntersection: ["$s", "$t"] };
    expect(sorted(await computed(c, intersection, CI))).toEqual([["B", "a"], ["c"], []]);
    expect(sorted(await computed(c, intersection, SIMPLE))).toEqual([[], [], []]);
    const difference = { $setDifference: ["$s", "$t"] };
    expect(sorted(await computed(c, difference, CI))).toEqual([[], [], ["Z"]]);
    expect(sorted(await computed(c, difference, SIMPLE))).toEqual([["B", "a"], ["c"], ["Z"]]);
    expect(await computed(c, { $setEquals: ["$s", ["A", "b"]] }, CI)).toEqual([true, false, false]);
    expect(await computed(c, { $setEquals: ["$s", ["A", "b"]] }, SIMPLE)).toEqual([false, false, false]);
    expect(await computed(c, { $setIsSubset: ["$s", "$t"] }, CI)).toEqual([true, true, false]);
    expect(await computed(c, { $setIsSubset: ["$s", "$t"] }, SIMPLE)).toEqual([false, false, false]);
  });

  it("compare strings inside documents by the collation, the documents' fields in order", async () => {
    const c = await seeded([
      {
        _id: 1,
        s: [
          { k: "a", n: 1 },
          { n: 1, k: "A" },
        ],
        t: [{ k: "A", n: 1 }],
      },
    ]);
    const [union] = await computed(c, { $setUnion: ["$s", "$t"] }, CI);
    // Sorted as MongoDB's ordered set answers it: {n: 1, ...} first, a number before a string.
    expect((union as Document[]).map((d) => Object.keys(d).join(""))).toEqual(["nk", "kn"]);
    expect(await computed(c, { $setIsSubset: ["$t", "$s"] }, CI)).toEqual([true]);
    expect(await computed(c, { $setIsSubset: ["$t", "$s"] }, SIMPLE)).toEqual([false]);
    // One array alone is a set too: its equal strings are one element.
    expect(sorted(await computed(c, { $setUnion: [["x", "X", "y"]] }, CI))).toEqual([["x", "y"]]);
  });
});

describe("$indexOfArray", () => {
  it("finds the first element equal under the collation", async () => {
    const c = await seeded(SETS);
    expect(await computed(c, { $indexOfArray: ["$t", "B"] }, CI)).toEqual([1, -1, -1]);
    expect(await computed(c, { $indexOfArray: ["$t", "B"] }, SIMPLE)).toEqual([-1, -1, -1]);
    expect(await computed(c, { $indexOfArray: ["$t", "c", 0, 1] }, CI)).toEqual([-1, 0, -1]);
    expect(await computed(c, { $indexOfArray: ["$t", "c", 1] }, CI)).toEqual([-1, -1, -1]);
    expect(await computed(c, { $indexOfArray: ["$t", "$missing"] }, CI)).toEqual([-1, -1, -1]);
  });
});

describe("$min and $max", () => {
  const VALUES: Doc[] = [{ _id: 1, v: "b" }, { _id: 2, v: "C" }, { _id: 3, v: "a" }, { _id: 4, v: null }, { _id: 5 }];

  it("as accumulators order strings by the collation, ignoring null and missing", async () => {
    const c = await seeded(VALUES);
    const pipeline = [{ $group: { _id: null, mn: { $min: "$v" }, mx: { $max: "$v" } } }];
    expect(await c.aggregate(pipeline, { collation: CI }).toArray()).toEqual([{ _id: null, mn: "a", mx: "C" }]);
    expect(await c.aggregate(pipeline, { collation: SIMPLE }).toArray()).toEqual([{ _id: null, mn: "C", mx: "b" }]);
    const none = [{ $match: { v: null } }, { $group: { _id: null, mn: { $min: "$v" }, mx: { $max: "$v" } } }];
    expect(await c.aggregate(none, { collation: CI }).toArray()).toEqual([{ _id: null, mn: null, mx: null }]);
  });

  it("as expressions: several arguments, or one array's elements; the first of equal values", async () => {
    const c = await seeded([{ _id: 1, l: ["b", "C", "a"] }]);
    expect(await computed(c, { $max: "$l" }, CI)).toEqual(["C"]);
    expect(await computed(c, { $max: "$l" }, SIMPLE)).toEqual(["b"]);
    expect(await computed(c, { $min: ["b", "C", "$missing", null] }, CI)).toEqual(["b"]);
    expect(await computed(c, { $min: ["b", "C", "$missing", null] }, SIMPLE)).toEqual(["C"]);
    // "B" and "b" are equal under the collation: the first met is kept.
    expect(await computed(c, { $max: ["B", "b"] }, CI)).toEqual(["B"]);
    expect(await computed(c, { $max: ["B", "b"] }, SIMPLE)).toEqual(["b"]);
    expect(await computed(c, { $min: ["b", "B"] }, CI)).toEqual(["b"]);
    expect(await computed(c, { $min: ["b", "B"] }, SIMPLE)).toEqual(["B"]);
  });
});

describe("$minN and $maxN", () => {
  it("keep the n smallest or largest by the collation, as accumulators and expressions", async () => {
    const c = await seeded([
      { _id: 1, v: "b" },
      { _id: 2, v: "C" },
      { _id: 3, v: "z" },
      { _id: 4, v: "B" },
      { _id: 5, v: null },
    ]);
    const pipeline = [
      { $group: { _id: null, mn: { $minN: { n: 2, input: "$v" } }, mx: { $maxN: { n: 2, input: "$v" } } } },
    ];
    expect(await c.aggregate(pipeline, { collation: CI }).toArray()).toEqual([
      { _id: null, mn: ["b", "B"], mx: ["z", "C"] },
    ]);
    expect(await c.aggregate(pipeline, { collation: SIMPLE }).toArray()).toEqual([
      { _id: null, mn: ["B", "C"], mx: ["z", "b"] },
    ]);
    const input = ["b", "C", "a", "B"];
    const one = await seeded([{ _id: 1 }]);
    expect(await computed(one, { $minN: { n: 2, input } }, CI)).toEqual([["a", "b"]]);
    expect(await computed(one, { $minN: { n: 2, input } }, SIMPLE)).toEqual([["B", "C"]]);
    expect(await computed(one, { $maxN: { n: 2, input } }, CI)).toEqual([["C", "b"]]);
    expect(await computed(one, { $maxN: { n: 2, input } }, SIMPLE)).toEqual([["b", "a"]]);
  });
});

describe("$sortArray", () => {
  it("sorts whole values by the collation, equal ones kept in their order", async () => {
    const c = await seeded([{ _id: 1 }]);
    const up = { $sortArray: { input: ["b", "A", "c", "B"], sortBy: 1 } };
    expect(await computed(c, up, CI)).toEqual([["A", "b", "B", "c"]]);
    expect(await computed(c, up, SIMPLE)).toEqual([["A", "B", "b", "c"]]);
    const down = { $sortArray: { input: ["B", "a", "b"], sortBy: -1 } };
    expect(await computed(c, down, CI)).toEqual([["B", "b", "a"]]);
    expect(await computed(c, down, SIMPLE)).toEqual([["b", "a", "B"]]);
    const byField = {
      $sortArray: { input: [{ v: "b" }, { v: "A" }, { v: { w: "a" } }, { v: "B" }], sortBy: { v: 1 } },
    };
    expect(await computed(c, byField, CI)).toEqual([[{ v: "A" }, { v: "b" }, { v: "B" }, { v: { w: "a" } }]]);
    expect(await computed(c, byField, SIMPLE)).toEqual([[{ v: "A" }, { v: "B" }, { v: "b" }, { v: { w: "a" } }]]);
  });
});

describe("$top and $bottom", () => {
  it("answer the one output value, sorted by the collation", async () => {
    const c = await seeded([
      { _id: 1, v: "b" },
      { _id: 2, v: "C" },
      { _id: 3, v: "z" },
      { _id: 4, v: "a" },
    ]);
    const pipeline = [
      {
        $group: {
          _id: null,
          top: { $top: { sortBy: { v: 1 }, output: "$v" } },
          bottom: { $bottom: { sortBy: { v: 1 }, output: ["$v", "$_id"] } },
        },
      },
    ];
    expect(await c.aggregate(pipeline, { collation: CI }).toArray()).toEqual([
      { _id: null, top: "a", bottom: ["z", 3] },
    ]);
    expect(await c.aggregate(pipeline, { collation: SIMPLE }).toArray()).toEqual([
      { _id: null, top: "C", bottom: ["z", 3] },
    ]);
  });
});

describe("$bucket", () => {
  const LETTERS: Doc[] = [
    { _id: 1, v: "b" },
    { _id: 2, v: "C" },
    { _id: 3, v: "z" },
    { _id: 4, v: "B" },
    { _id: 5, v: "A" },
  ];
  const bucket = (spec: Document) => [{ $bucket: { groupBy: "$v", output: { ids: { $push: "$_id" } }, ...spec } }];

  it("puts strings in buckets by the collation, the buckets in _id order", async () => {
    const c = await seeded(LETTERS);
    const letters = bucket({ boundaries: ["a", "c", "zz"], default: "#other" });
    expect(await c.aggregate(letters, { collation: CI }).toArray()).toEqual([
      { _id: "a", ids: [1, 4, 5] },
      { _id: "c", ids: [2, 3] },
    ]);
    // Binary: the capitals sort below "a", into the default, which sorts first.
    expect(await c.aggregate(letters, { collation: SIMPLE }).toArray()).toEqual([
      { _id: "#other", ids: [2, 4, 5] },
      { _id: "a", ids: [1] },
      { _id: "c", ids: [3] },
    ]);
  });

  it("checks the boundaries' order and the default's place by the collation", async () => {
    const c = await seeded(LETTERS);
    const mixedCase = bucket({ boundaries: ["a", "B", "c"], default: "zz" });
    expect(await c.aggregate(mixedCase, { collation: CI }).toArray()).toEqual([
      { _id: "a", ids: [5] },
      { _id: "B", ids: [1, 4] },
      { _id: "zz", ids: [2, 3] },
    ]);
    expect((await caught(c.aggregate(mixedCase, { collation: SIMPLE }).toArray())).code).toBe(40194);
    const equal = bucket({ boundaries: ["b", "B"] });
    expect((await caught(c.aggregate(equal, { collation: CI }).toArray())).code).toBe(40194);
    const inside = bucket({ boundaries: ["a", "c"], default: "A" });
    expect((await caught(c.aggregate(inside, { collation: CI }).toArray())).code).toBe(40199);
    const rows = await c.aggregate(inside, { collation: SIMPLE }).toArray();
    expect(rows.map((r) => r._id)).toEqual(["A", "a"]);
  });

  it("answers numbers' buckets as MongoDB does: only those holding documents, _id first, the default in order", async () => {
    const c = await seeded([{ _id: 1, n: 1 }, { _id: 2, n: 5 }, { _id: 3, n: 25 }, { _id: 4, n: null }, { _id: 5 }]);
    const rows = await c.aggregate([{ $bucket: { groupBy: "$n", boundaries: [0, 2, 4, 10], default: -1 } }]).toArray();
    expect(rows.map((r) => JSON.stringify(r))).toEqual([
      '{"_id":-1,"count":3}',
      '{"_id":0,"count":1}',
      '{"_id":4,"count":1}',
    ]);
    const nulls = await c.aggregate([{ $bucket: { groupBy: "$n", boundaries: [0, 10], default: null } }]).toArray();
    expect(nulls).toEqual([
      { _id: null, count: 3 },
      { _id: 0, count: 2 },
    ]);
    const computedBound = await c
      .aggregate([{ $bucket: { groupBy: "$n", boundaries: [0, { $add: [2, 3] }, 100], default: "x", output: {} } }])
      .toArray();
    expect(computedBound).toEqual([{ _id: 0 }, { _id: 5 }, { _id: "x" }]);
    // The boundaries come back with the BSON types they were given.
    const typed = await c
      .aggregate(
        [
          { $match: { n: { $type: "number" } } },
          { $bucket: { groupBy: "$n", boundaries: [new Double(0), 2.5, Long.fromNumber(10), 100] } },
        ],
        { promoteValues: false },
      )
      .toArray();
    expect(typed.map((r) => (r._id as { _bsontype: string })._bsontype)).toEqual(["Double", "Double", "Long"]);
  });

  it("refuses with MongoDB's codes, also before any document is read", async () => {
    const c = await seeded([{ _id: 1, n: 1 }]);
    const missing = fresh();
    const code = async (coll: Collection<Doc>, spec: unknown) =>
      (await caught(coll.aggregate([{ $bucket: spec } as Document]).toArray())).code;
    const cases: Array<[unknown, number]> = [
      [1, 40201],
      [{ groupBy: "n", boundaries: [0, 1] }, 40202],
      [{ groupBy: "$n", boundaries: 1 }, 40200],
      [{ groupBy: "$n", boundaries: [0, "$n"] }, 40191],
      [{ groupBy: "$n", boundaries: [0] }, 40192],
      [{ groupBy: "$n", boundaries: [0, "a"] }, 40193],
      [{ groupBy: "$n", boundaries: [0, 4, 2] }, 40194],
      [{ groupBy: "$n", boundaries: [0, 4], default: "$n" }, 40195],
      [{ groupBy: "$n", boundaries: [0, 4], output: 1 }, 40196],
      [{ groupBy: "$n", boundaries: [0, 4], other: 1 }, 40197],
      [{ groupBy: "$n" }, 40198],
      [{ groupBy: "$n", boundaries: [0, 4], default: 2 }, 40199],
      // Each field is checked as it comes: the boundaries before the unknown field after them.
      [{ boundaries: [4, 0], other: 1 }, 40194],
      [{ groupBy: "$n", boundaries: ["b", "a"] }, 40194],
    ];
    for (const [spec, expected] of cases) {
      expect(await code(c, spec)).toBe(expected);
      expect(await code(missing, spec)).toBe(expected);
    }
    const faceted = await caught(
      missing
        .aggregate([{ $facet: { f: [{ $bucket: { groupBy: "$n", boundaries: [0, 4], default: 2 } }] } }])
        .toArray(),
    );
    expect(faceted.code).toBe(40199);
    // A value outside the boundaries without a default: MongoDB's $switch finds no branch.
    expect(await code(c, { groupBy: "$n", boundaries: [2, 4] })).toBe(40066);
    expect(await missing.aggregate([{ $bucket: { groupBy: "$n", boundaries: [2, 4] } }]).toArray()).toEqual([]);
  });
});

describe("$bucketAuto", () => {
  it("sorts and cuts strings by the collation", async () => {
    const c = await seeded([
      { _id: 1, v: "b" },
      { _id: 2, v: "C" },
      { _id: 3, v: "z" },
      { _id: 4, v: "a" },
    ]);
    const pipeline = [{ $bucketAuto: { groupBy: "$v", buckets: 2 } }];
    expect(await c.aggregate(pipeline, { collation: CI }).toArray()).toEqual([
      { _id: { min: "a", max: "C" }, count: 2 },
      { _id: { min: "C", max: "z" }, count: 2 },
    ]);
    expect(await c.aggregate(pipeline, { collation: SIMPLE }).toArray()).toEqual([
      { _id: { min: "C", max: "b" }, count: 2 },
      { _id: { min: "b", max: "z" }, count: 2 },
    ]);
  });
});

describe("a collection's default collation", () => {
  it("is the one the operators compare by, unless the aggregate names another", async () => {
    const name = `default${n++}`;
    const c = await client.db("collated").createCollection<Doc>(name, { collation: CI });
    await c.insertMany(SETS);
    const pipeline = [
      {
        $project: {
          u: { $setUnion: ["$s", "$t"] },
          i: { $indexOfArray: ["$t", "B"] },
          m: { $max: ["$v", "B"] },
          s: { $sortArray: { input: ["b", "A", "B"], sortBy: 1 } },
        },
      },
      { $sort: { _id: 1 } },
    ];
    const byDefault = await c.aggregate(pipeline).toArray();
    expect(byDefault.map((r) => [[...(r.u as string[])].sort(), r.i, r.m, r.s])).toEqual([
      [["B", "a"], 1, "b", ["A", "b", "B"]],
      [["c", "d"], -1, "C", ["A", "b", "B"]],
      [["Z"], -1, "z", ["A", "b", "B"]],
    ]);
    const simple = await c.aggregate(pipeline, { collation: SIMPLE }).toArray();
    expect(simple.map((r) => [[...(r.u as string[])].sort(), r.i, r.m, r.s])).toEqual([
      [["A", "B", "a", "b"], -1, "b", ["A", "B", "b"]],
      [["C", "c", "d"], -1, "C", ["A", "B", "b"]],
      [["Z"], -1, "z", ["A", "B", "b"]],
    ]);
    const grouped = [{ $group: { _id: null, mn: { $min: "$v" } } }];
    expect(await c.aggregate(grouped).toArray()).toEqual([{ _id: null, mn: "b" }]);
    expect(await c.aggregate(grouped, { collation: SIMPLE }).toArray()).toEqual([{ _id: null, mn: "C" }]);
    const buckets = [{ $bucket: { groupBy: "$v", boundaries: ["a", "c", "zz"] } }];
    expect(await c.aggregate(buckets).toArray()).toEqual([
      { _id: "a", count: 1 },
      { _id: "c", count: 2 },
    ]);
  });
});
