/**
 * `$setWindowFields` through the driver, with MongoDB 8's answers (its reference pages and the
 * server's jstests under `jstests/aggregation/sources/setWindowFields/`): partitions, sorts in
 * BSON order, each accumulator and window operator, document and range windows (with a unit),
 * empty windows, and the refusals with MongoDB's codes.
 */
import fc from "fast-check";
import { Double, Int32, Long, MongoClient, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("window-fields");
let client: MongoClient;
let n = 0;
type Doc = { _id: number; [key: string]: unknown };
const fresh = () => client.db("window").collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});
afterAll(async () => {
  await client?.close();
});

async function seeded(docs: Doc[]): Promise<Collection<Doc>> {
  const c = fresh();
  if (docs.length) await c.insertMany(docs);
  return c;
}

const run = (c: Collection<Doc>, stage: Document, options?: Document) =>
  c.aggregate([{ $setWindowFields: stage }], options).toArray();

/** Each output document's fields picked, by `_id`. */
const pick = (rows: Document[], ...fields: string[]) =>
  Object.fromEntries(rows.map((r) => [r._id, fields.map((f) => r[f])]));

// Two partitions of sales, inserted out of order.
const SALES: Doc[] = [
  { _id: 5, s: "b", t: 2, v: 7 },
  { _id: 3, s: "a", t: 3, v: 30 },
  { _id: 1, s: "a", t: 1, v: 10 },
  { _id: 4, s: "b", t: 1, v: 5 },
  { _id: 2, s: "a", t: 2, v: 20 },
];

describe("accumulators over document windows", () => {
  it("answers each accumulator per partition, in the order of the partition and sortBy", async () => {
    const c = await seeded(SALES);
    const rows = await run(c, {
      partitionBy: "$s",
      sortBy: { t: 1 },
      output: {
        total: { $sum: "$v" },
        running: { $sum: "$v", window: { documents: ["unbounded", "current"] } },
        around: { $avg: "$v", window: { documents: [-1, 1] } },
        low: { $min: "$v", window: { documents: [-1, 0] } },
        high: { $max: "$v", window: { documents: [0, 1] } },
        near: { $count: {}, window: { documents: [-1, 1] } },
        before: { $push: "$v", window: { documents: ["unbounded", -1] } },
        first: { $first: "$v" },
        next: { $last: "$v", window: { documents: ["current", 1] } },
      },
    });
    expect(rows.map((r) => r._id)).toEqual([1, 2, 3, 4, 5]);
    const fields = ["total", "running", "around", "low", "high", "near", "before", "first", "next"];
    expect(pick(rows, ...fields)).toEqual({
      1: [60, 10, 15, 10, 20, 2, [], 10, 20],
      2: [60, 30, 20, 10, 30, 3, [10], 10, 30],
      3: [60, 60, 25, 20, 30, 2, [10, 20], 10, 30],
      4: [12, 5, 6, 5, 7, 2, [], 5, 7],
      5: [12, 12, 6, 5, 7, 2, [5], 5, 7],
    });
  });

  it("$addToSet keeps one of each value (missing values left out)", async () => {
    const c = await seeded([
      { _id: 1, t: 1, k: "x" },
      { _id: 2, t: 2, k: "y" },
      { _id: 3, t: 3, k: "x" },
      { _id: 4, t: 4 },
    ]);
    const rows = await run(c, {
      sortBy: { t: 1 },
      output: { seen: { $addToSet: "$k", window: { documents: ["unbounded", "current"] } } },
    });
    expect(rows.map((r) => [r._id, [...(r.seen as string[])].sort()])).toEqual([
      [1, ["x"]],
      [2, ["x", "y"]],
      [3, ["x", "y"]],
      [4, ["x", "y"]],
    ]);
  });

  it("$stdDevPop, $stdDevSamp, $covariancePop and $covarianceSamp over the whole partition", async () => {
    const c = await seeded([2, 4, 4, 4, 5, 5, 7, 9].map((v, i) => ({ _id: i, v, w: 2 * v })));
    const rows = await run(c, {
      output: {
        pop: { $stdDevPop: "$v" },
        samp: { $stdDevSamp: "$v" },
        cpop: { $covariancePop: ["$v", "$w"] },
        csamp: { $covarianceSamp: ["$v", "$w"] },
      },
    });
    expect(rows).toHaveLength(8);
    for (const r of rows) {
      expect(r.pop).toBe(2);
      expect(r.samp).toBeCloseTo(Math.sqrt(32 / 7), 12);
      expect(r.cpop).toBeCloseTo(8, 12);
      expect(r.csamp).toBeCloseTo(64 / 7, 12);
    }
  });

  it("answers MongoDB's defaults over an empty window and over a missing field", async () => {
    const c = await seeded([{ _id: 1, t: 1, v: 5 }]);
    const empty = { documents: ["unbounded", -1] };
    const [row] = await run(c, {
      sortBy: { t: 1 },
      output: {
        sum: { $sum: "$v", window: empty },
        avg: { $avg: "$v", window: empty },
        min: { $min: "$v", window: empty },
        max: { $max: "$v", window: empty },
        std: { $stdDevPop: "$v", window: empty },
        cov: { $covariancePop: ["$v", "$v"], window: empty },
        count: { $count: {}, window: empty },
        push: { $push: "$v", window: empty },
        set: { $addToSet: "$v", window: empty },
        first: { $first: "$v", window: empty },
        last: { $last: "$v", window: empty },
        noSum: { $sum: "$none" },
        noAvg: { $avg: "$none" },
        noFirst: { $first: "$none" },
        oneSamp: { $stdDevSamp: "$v" },
        oneCovPop: { $covariancePop: ["$v", "$v"] },
      },
    });
    expect(row).toEqual({
      _id: 1,
      t: 1,
      v: 5,
      sum: 0,
      avg: null,
      min: null,
      max: null,
      std: null,
      cov: null,
      count: 0,
      push: [],
      set: [],
      first: null,
      last: null,
      noSum: 0,
      noAvg: null,
      oneSamp: null,
      oneCovPop: 0,
    });
    expect("noFirst" in row).toBe(false);
  });

  it("sets dotted output paths inside the document and replaces an existing field", async () => {
    const c = await seeded([{ _id: 1, t: 1, v: 3, stats: { keep: true }, total: "old" }]);
    const [row] = await run(c, { sortBy: { t: 1 }, output: { "stats.sum": { $sum: "$v" }, total: { $sum: "$v" } } });
    expect(row).toEqual({ _id: 1, t: 1, v: 3, stats: { keep: true, sum: 3 }, total: 3 });
  });
});

describe("result types, as MongoDB's", () => {
  const INT_MAX = 2 ** 31 - 1;
  /** MongoDB's `$type` names of the BSON types the driver reads. */
  const TYPE_NAMES: Record<string, string> = { Int32: "int", Long: "long", Double: "double", Array: "array" };
  const typeOf = (v: unknown) =>
    Array.isArray(v) ? "array" : (TYPE_NAMES[(v as { _bsontype?: string })?._bsontype ?? ""] ?? typeof v);
  /** Each output's BSON type, as `$type` names it, by `_id` (read with the driver's BSON number classes). */
  const types = async (c: Collection<Doc>, output: Document, sortBy: Document = { _id: 1 }) => {
    const names = Object.keys(output);
    const rows = await c.aggregate([{ $setWindowFields: { sortBy, output } }], { promoteValues: false }).toArray();
    return Object.fromEntries(rows.map((r) => [typeOf(r._id) && Number(r._id), names.map((f) => typeOf(r[f]))]));
  };

  it("$sum keeps ints and longs, widens an int past its range to a long and a long past its range to a double", async () => {
    const c = await seeded([
      {
        _id: 1,
        i: new Int32(1),
        l: Long.fromNumber(5),
        d: new Double(2),
        big: new Int32(INT_MAX),
        top: Long.MAX_VALUE,
      },
      {
        _id: 2,
        i: new Int32(2),
        l: Long.fromNumber(6),
        d: new Double(3),
        big: new Int32(INT_MAX),
        top: Long.ONE,
        m: Long.fromNumber(6),
      },
    ]);
    const all = { documents: ["unbounded", "unbounded"] };
    const running = { documents: ["unbounded", "current"] };
    const sliding = { documents: [0, 1] };
    const output = {
      i: { $sum: "$i", window: all },
      l: { $sum: "$l", window: all },
      d: { $sum: "$d", window: all },
      big: { $sum: "$big", window: all },
      top: { $sum: "$top", window: all },
      mixed: { $sum: "$m", window: all },
      runningI: { $sum: "$i", window: running },
      runningL: { $sum: "$l", window: running },
      runningBig: { $sum: "$big", window: running },
      slidingL: { $sum: "$l", window: sliding },
      count: { $count: {}, window: all },
      none: { $sum: "$missing", window: all },
    };
    expect(await types(c, output)).toEqual({
      1: ["int", "long", "double", "long", "double", "long", "int", "long", "int", "long", "int", "int"],
      2: ["int", "long", "double", "long", "double", "long", "int", "long", "long", "long", "int", "int"],
    });
    const [first] = await c.aggregate([{ $setWindowFields: { sortBy: { _id: 1 }, output } }]).toArray();
    expect(first).toMatchObject({ i: 3, l: 11, d: 5, big: 2 * INT_MAX, top: 2 ** 63, count: 2, none: 0 });
  });

  it("$avg, $stdDevPop and the other computed results are doubles; $min, $max, $first, $last, $shift, $push keep their input's type", async () => {
    const c = await seeded([
      { _id: 1, i: new Int32(2), l: Long.fromNumber(5), d: new Double(2) },
      { _id: 2, i: new Int32(2), l: Long.fromNumber(6), d: new Double(4) },
    ]);
    const all = { documents: ["unbounded", "unbounded"] };
    expect(
      await types(c, {
        avg: { $avg: "$i", window: all },
        dev: { $stdDevPop: "$i", window: all },
        ema: { $expMovingAvg: { input: "$i", N: 2 } },
        minL: { $min: "$l", window: all },
        maxD: { $max: "$d", window: all },
        firstD: { $first: "$d", window: all },
        lastL: { $last: "$l", window: all },
        shiftL: { $shift: { output: "$l", by: 1, default: "none" } },
        pushed: { $push: "$l", window: all },
      }),
    ).toEqual({
      1: ["double", "double", "double", "long", "double", "double", "long", "long", "array"],
      2: ["double", "double", "double", "long", "double", "double", "long", "string", "array"],
    });
    const [row] = await c
      .aggregate([{ $setWindowFields: { sortBy: { _id: 1 }, output: { pushed: { $push: "$l", window: all } } } }], {
        promoteValues: false,
      })
      .toArray();
    expect((row.pushed as unknown[]).map(typeOf)).toEqual(["long", "long"]);
    // The other fields of each document keep their types too, also for a $type query after the stage.
    expect([row.i, row.l, row.d].map(typeOf)).toEqual(["int", "long", "double"]);
    const matched = await c
      .aggregate([
        { $setWindowFields: { sortBy: { _id: 1 }, output: { s: { $sum: "$l", window: all } } } },
        { $match: { s: { $type: "long" }, l: { $type: "long" }, d: { $type: "double" } } },
      ])
      .toArray();
    expect(matched.map((d) => d._id)).toEqual([1, 2]);
  });
});

describe("window operators", () => {
  it("$rank, $denseRank and $documentNumber: ties share a rank, null and missing tie", async () => {
    const c = await seeded([
      { _id: 1, score: 10 },
      { _id: 2, score: 20 },
      { _id: 3, score: 20 },
      { _id: 4, score: 30 },
      { _id: 5, score: null },
      { _id: 6 },
    ]);
    const rows = await run(c, {
      sortBy: { score: -1 },
      output: { rank: { $rank: {} }, dense: { $denseRank: {} }, number: { $documentNumber: {} } },
    });
    expect(pick(rows, "rank", "dense")).toEqual({
      4: [1, 1],
      2: [2, 2],
      3: [2, 2],
      1: [4, 3],
      5: [5, 4],
      6: [5, 4],
    });
    expect(rows.map((r) => r.number)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows[0]._id).toBe(4);
    expect(rows[3]._id).toBe(1);
  });

  it("$shift reads a neighbour in the partition, else its default (null without one)", async () => {
    const c = await seeded(SALES);
    const rows = await run(c, {
      partitionBy: "$s",
      sortBy: { t: 1 },
      output: {
        previous: { $shift: { output: "$v", by: -1, default: 0 } },
        following: { $shift: { output: "$v", by: 1 } },
      },
    });
    expect(pick(rows, "previous", "following")).toEqual({
      1: [0, 20],
      2: [10, 30],
      3: [20, null],
      4: [0, 7],
      5: [5, null],
    });
  });

  it("$derivative and $integral with a time unit, and $derivative over numbers", async () => {
    const start = Date.UTC(2026, 0, 1);
    const c = await seeded([0, 60, 150].map((km, h) => ({ _id: h, at: new Date(start + h * 3600_000), km, x: 2 * h })));
    const rows = await run(c, {
      sortBy: { at: 1 },
      output: {
        speed: { $derivative: { input: "$km", unit: "hour" }, window: { documents: [-1, 0] } },
        area: { $integral: { input: "$km", unit: "hour" }, window: { documents: ["unbounded", "current"] } },
      },
    });
    expect(pick(rows, "area")).toEqual({ 0: [0], 1: [30], 2: [135] });
    expect(rows[0].speed).toBeNull();
    expect(rows[1].speed).toBeCloseTo(60, 9);
    expect(rows[2].speed).toBeCloseTo(90, 9);
    const byX = await run(c, {
      sortBy: { x: 1 },
      output: { slope: { $derivative: { input: "$km" }, window: { documents: [-1, 0] } } },
    });
    expect(pick(byX, "slope")).toEqual({ 0: [null], 1: [30], 2: [45] });
  });

  it("$expMovingAvg with N and with alpha; non-numbers keep the last average", async () => {
    const c = await seeded([
      { _id: 1, t: 1, v: 1 },
      { _id: 2, t: 2, v: 2 },
      { _id: 3, t: 3, v: "x" },
      { _id: 4, t: 4, v: 3 },
    ]);
    const rows = await run(c, {
      sortBy: { t: 1 },
      output: {
        n: { $expMovingAvg: { input: "$v", N: 2 } },
        alpha: { $expMovingAvg: { input: "$v", alpha: 0.5 } },
      },
    });
    const n2 = [1, 5 / 3, 5 / 3, 2 + 5 / 9];
    const half = [1, 1.5, 1.5, 2.25];
    rows.forEach((r, i) => {
      expect(r.n).toBeCloseTo(n2[i], 12);
      expect(r.alpha).toBeCloseTo(half[i], 12);
    });
  });

  it("$locf carries the last non-null value; $linearFill interpolates between known points", async () => {
    const c = await seeded([
      { _id: 1, t: 1, v: null, w: 10 },
      { _id: 2, t: 2, v: 1, w: null },
      { _id: 3, t: 3, w: null },
      { _id: 4, t: 4, v: 4, w: 40 },
      { _id: 5, t: 5, v: null, w: null },
    ]);
    const rows = await run(c, {
      sortBy: { t: 1 },
      output: { carried: { $locf: "$v" }, filled: { $linearFill: "$w" } },
    });
    expect(pick(rows, "carried", "filled")).toEqual({
      1: [null, 10],
      2: [1, 20],
      3: [1, 30],
      4: [4, 40],
      5: [4, null],
    });
  });
});

describe("range windows", () => {
  const POINTS: Doc[] = [
    { _id: 1, x: 1 },
    { _id: 2, x: 2 },
    { _id: 3, x: 2 },
    { _id: 4, x: 4 },
    { _id: 5, x: 7 },
  ];

  it("chooses documents by the sortBy value; 'current' is the document itself, 0 its equals too", async () => {
    const c = await seeded(POINTS);
    const rows = await run(c, {
      sortBy: { x: 1 },
      output: {
        near: { $count: {}, window: { range: [-1, 1] } },
        sinceStart: { $count: {}, window: { range: ["unbounded", "current"] } },
        fromCurrent: { $count: {}, window: { range: ["current", 1] } },
        fromZero: { $count: {}, window: { range: [0, 1] } },
        ahead: { $push: "$_id", window: { range: [2, "unbounded"] } },
      },
    });
    expect(rows.map((r) => r.near)).toEqual([3, 3, 3, 1, 1]);
    expect(rows.map((r) => r.sinceStart)).toEqual([1, 2, 3, 4, 5]);
    expect(rows.map((r) => r.fromCurrent)).toEqual([3, 2, 1, 1, 1]);
    expect(rows.map((r) => r.fromZero)).toEqual([3, 2, 2, 1, 1]);
    expect(rows.map((r) => r.ahead)).toEqual([[4, 5], [4, 5], [4, 5], [5], []]);
  });

  it("a numeric range holds exactly the documents whose value is within it (property)", async () => {
    const bound = fc.oneof(fc.integer({ min: -4, max: 4 }), fc.constant("unbounded"));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 10 }),
        bound,
        bound,
        async (xs, a, b) => {
          const value = (x: number | string, end: boolean): number =>
            x === "unbounded" ? (end ? Infinity : -Infinity) : Number(x);
          const [lower, upper] = value(a, false) <= value(b, true) ? [a, b] : [b, a];
          const c = await seeded(xs.map((x, i) => ({ _id: i, x, v: i + 1 })));
          const rows = await run(c, {
            sortBy: { x: 1 },
            output: {
              sum: { $sum: "$v", window: { range: [lower, upper] } },
              count: { $count: {}, window: { range: [lower, upper] } },
              max: { $max: "$v", window: { range: [lower, upper] } },
            },
          });
          for (const row of rows) {
            const x = row.x as number;
            const inside = xs
              .map((y, i) => ({ y, v: i + 1 }))
              .filter(({ y }) => y >= x + value(lower, false) && y <= x + value(upper, true));
            expect(row.count).toBe(inside.length);
            expect(row.sum).toBe(inside.reduce((s, d) => s + d.v, 0));
            expect(row.max).toBe(inside.length ? Math.max(...inside.map((d) => d.v)) : null);
          }
          await c.drop();
        },
      ),
      { seed: 34, numRuns: 40 },
    );
  });

  it("with a unit, adds days and calendar months to the date (Jan 31 + 1 month is Feb 28)", async () => {
    const day = (m: number, d: number) => new Date(Date.UTC(2026, m, d));
    const c = await seeded([
      { _id: 1, at: day(0, 1) },
      { _id: 2, at: day(0, 2) },
      { _id: 3, at: day(0, 5) },
      { _id: 4, at: day(0, 31) },
      { _id: 5, at: day(1, 28) },
      { _id: 6, at: day(2, 1) },
    ]);
    const rows = await run(c, {
      sortBy: { at: 1 },
      output: {
        days: { $push: "$_id", window: { range: [-2, 0], unit: "day" } },
        month: { $push: "$_id", window: { range: [0, 1], unit: "month" } },
      },
    });
    expect(pick(rows, "days")).toEqual({ 1: [[1]], 2: [[1, 2]], 3: [[3]], 4: [[4]], 5: [[5]], 6: [[5, 6]] });
    expect(rows.find((r) => r._id === 4)?.month).toEqual([4, 5]);
    expect(rows.find((r) => r._id === 5)?.month).toEqual([5, 6]);
  });

  it("refuses a sortBy value of the wrong type with MongoDB's codes", async () => {
    const c = await seeded([{ _id: 1, x: "a", at: new Date(0) }]);
    const range = (field: string, window: Document) =>
      run(c, { sortBy: { [field]: 1 }, output: { n: { $count: {}, window } } });
    await expect(range("x", { range: [-1, 1] })).rejects.toMatchObject({ code: 5429414 });
    await expect(range("at", { range: [-1, 1] })).rejects.toMatchObject({ code: 5429413 });
    await expect(range("x", { range: [-1, 1], unit: "day" })).rejects.toMatchObject({ code: 5429513 });
  });
});

describe("partitions and sorts in BSON order", () => {
  const XY = { x: 1, y: 2 };
  const YX = { y: 2, x: 1 };

  it("partitions {x, y} and {y, x} apart, null and missing together", async () => {
    const c = await seeded([
      { _id: 1, d: XY },
      { _id: 2, d: YX },
      { _id: 3, d: { x: 1, y: 2 } },
      { _id: 4, d: null },
      { _id: 5 },
    ]);
    const rows = await run(c, { partitionBy: "$d", output: { n: { $count: {} } } });
    expect(pick(rows, "n")).toEqual({ 1: [2], 2: [1], 3: [2], 4: [2], 5: [2] });
  });

  it("sorts documents field by field in order: names before values", async () => {
    const c = await seeded([
      { _id: 1, d: { b: 0 } },
      { _id: 2, d: { a: 1, b: 9 } },
      { _id: 3, d: { a: 2 } },
      { _id: 4, d: YX },
      { _id: 5, d: XY },
    ]);
    const rows = await run(c, { sortBy: { d: 1 }, output: { rank: { $rank: {} } } });
    expect(rows.map((r) => [r._id, r.rank])).toEqual([
      [2, 1],
      [3, 2],
      [1, 3],
      [5, 4],
      [4, 5],
    ]);
  });

  it("compares partition keys under the operation's collation", async () => {
    const c = await seeded([
      { _id: 1, s: "a" },
      { _id: 2, s: "A" },
      { _id: 3, s: "b" },
    ]);
    const rows = await run(
      c,
      { partitionBy: "$s", output: { n: { $count: {} } } },
      {
        collation: { locale: "en", strength: 2 },
      },
    );
    expect(pick(rows, "n")).toEqual({ 1: [2], 2: [2], 3: [1] });
  });

  it("refuses a partition key that is an array (14)", async () => {
    const c = await seeded([{ _id: 1, p: [1, 2] }]);
    await expect(run(c, { partitionBy: "$p", output: { n: { $count: {} } } })).rejects.toMatchObject({ code: 14 });
  });

  it("sums any document window as a plain loop does (property)", async () => {
    const value = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constant(null), fc.constant(undefined));
    const bound = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom("unbounded", "current"));
    const offset = (b: number | string, end: boolean, i: number, len: number) =>
      b === "unbounded" ? (end ? len - 1 : 0) : b === "current" ? i : i + (b as number);
    await fc.assert(
      fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 8 }), bound, bound, async (values, a, b) => {
        const num = (x: number | string) => (x === "current" ? 0 : x);
        const [lower, upper] =
          typeof num(a) === "number" && typeof num(b) === "number" && (num(a) as number) > (num(b) as number)
            ? [b, a]
            : [a, b];
        const c = await seeded(values.map((v, i) => (v === undefined ? { _id: i } : { _id: i, v })));
        const rows = await run(c, {
          sortBy: { _id: 1 },
          output: {
            sum: { $sum: "$v", window: { documents: [lower, upper] } },
            count: { $count: {}, window: { documents: [lower, upper] } },
            min: { $min: "$v", window: { documents: [lower, upper] } },
            pushed: { $push: "$v", window: { documents: [lower, upper] } },
          },
        });
        rows.forEach((row, i) => {
          const lo = Math.max(0, offset(lower, false, i, values.length));
          const hi = Math.min(values.length - 1, offset(upper, true, i, values.length));
          const inWindow = lo <= hi ? values.slice(lo, hi + 1) : [];
          const present = inWindow.filter((v) => v !== undefined);
          const nums = present.filter((v): v is number => typeof v === "number");
          expect(row.sum).toBe(nums.reduce((s, v) => s + v, 0));
          expect(row.count).toBe(inWindow.length);
          expect(row.min).toBe(nums.length ? Math.min(...nums) : null);
          expect(row.pushed).toEqual(present);
        });
        await c.drop();
      }),
      { seed: 20261129, numRuns: 40 },
    );
  });
});

describe("refusals with MongoDB's codes, before any document is read", () => {
  const refused = async (stage: unknown, code: number) => {
    const c = fresh();
    await expect(c.aggregate([{ $setWindowFields: stage } as Document]).toArray()).rejects.toMatchObject({ code });
  };
  const sum = (window: Document, sortBy: Document | null = { t: 1 }) => ({
    ...(sortBy ? { sortBy } : {}),
    output: { v: { $sum: "$a", window } },
  });

  it("a malformed stage: 9, 14, 40414, 40415, 6307900", async () => {
    await refused("invalid", 9);
    await refused({ sortBy: "invalid", output: {} }, 14);
    await refused({ output: "invalid" }, 14);
    await refused({ what_is_this: 1, output: {} }, 40415);
    await refused({ partitionBy: "$a" }, 40414);
    await refused({ output: { a: { $sum: 1 }, "a.b": { $sum: 1 } } }, 6307900);
    await refused({ output: { v: { b: { $sum: "$a" } } } }, 9);
    await refused({ output: { v: { $summ: "$a" } } }, 9);
    await refused({ output: { v: { $sum: "$a", abcde: 1 } } }, 9);
    await refused({ sortBy: { t: 2 }, output: {} }, 15975);
  });

  it("a path that is no field path: MongoDB's FieldPath codes, a NUL byte too", async () => {
    await refused({ output: { "a..b": { $sum: 1 } } }, 15998);
    await refused({ output: { $a: { $sum: 1 } } }, 16410);
    // The driver sends no key with a NUL byte; $fill's partitionByFields are values.
    const fill = { partitionByFields: ["a\0b"], output: { v: { method: "locf" } } };
    await expect(
      fresh()
        .aggregate([{ $fill: fill }])
        .toArray(),
    ).rejects.toMatchObject({ code: 16411 });
  });

  it("bad window bounds: backwards (5339900), not integers or keywords (9)", async () => {
    await refused(sum({ documents: [1, -1] }), 5339900);
    await refused(sum({ documents: ["current", -1] }), 5339900);
    await refused(sum({ range: [1, "current"] }), 5339900);
    await refused(sum({ documents: [0.5, 1] }), 9);
    await refused(sum({ documents: ["soon", 1] }), 9);
    await refused(sum({ documents: [0, 1], range: [0, 1] }), 9);
    await refused(sum({ documents: [0, 1], unit: "day" }), 9);
    await refused(sum({ range: [0, 1], unit: "fortnight" }), 9);
    await refused(sum({ documents: ["$t", 1] }), 9);
  });

  it("a sortBy missing where required, or of more than one field for a range", async () => {
    await refused(sum({ documents: ["unbounded", "current"] }, null), 5339901);
    await refused(sum({ range: ["unbounded", "current"] }, null), 5339902);
    await refused(sum({ range: [-1, 1] }, { a: 1, b: 1 }), 5339902);
    await refused(sum({ range: [-1, 1] }, { t: -1 }), 8947401);
    await refused({ output: { r: { $rank: {} } } }, 5371602);
    await refused({ sortBy: { a: 1, b: 1 }, output: { r: { $documentNumber: {} } } }, 5371602);
    await refused({ sortBy: { a: 1 }, output: { r: { $rank: {}, window: { documents: [0, 1] } } } }, 5371601);
    await refused({ sortBy: { a: 1 }, output: { r: { $denseRank: 1 } } }, 5371603);
    await refused({ output: { r: { $shift: { output: "$a", by: 1 } } } }, 9);
    await refused({ output: { r: { $expMovingAvg: { input: "$a", N: 2 } } } }, 9);
    await refused({ output: { r: { $derivative: { input: "$a" }, window: { documents: [-1, 0] } } } }, 9);
    await refused({ sortBy: { a: 1, b: 1 }, output: { r: { $linearFill: "$a" } } }, 605001);
  });

  it("bad arguments of the window operators", async () => {
    const sorted = (output: Document) => ({ sortBy: { t: 1 }, output: { r: output } });
    await refused(sorted({ $derivative: { input: "$a" } }), 9);
    await refused(sorted({ $derivative: { input: "$a", unit: "month" }, window: { documents: [-1, 0] } }), 5490710);
    await refused(sorted({ $shift: { output: "$a", by: 1.5 } }), 9);
    await refused(sorted({ $shift: { output: "$a", by: 1, default: "$a" } }), 9);
    await refused(sorted({ $shift: { output: "$a", by: 1 }, window: { documents: [0, 1] } }), 9);
    await refused(sorted({ $expMovingAvg: { input: "$a", alpha: 1 } }), 9);
    await refused(sorted({ $locf: "$a", window: { documents: [0, 1] } }), 9);
    await refused(sorted({ $count: 1 }), 9);
  });

  it("refuses the window functions it does not compute, naming MONGODB_URI", async () => {
    const c = fresh();
    await expect(
      c
        .aggregate([{ $setWindowFields: { output: { top: { $topN: { n: 2, sortBy: { a: 1 }, output: "$a" } } } } }])
        .toArray(),
    ).rejects.toMatchObject({ code: 115, message: expect.stringContaining("MONGODB_URI") });
  });
});

describe("$fill, MongoDB's $setWindowFields of $locf and $linearFill", () => {
  it("fills by method per partition, and by value", async () => {
    const c = await seeded([
      { _id: 1, p: "a", t: 1, v: 10, w: "x", z: null },
      { _id: 2, p: "a", t: 2, v: null, w: null },
      { _id: 3, p: "a", t: 3, v: 30, w: null, z: 5 },
      { _id: 4, p: "b", t: 1, v: null, w: null },
      { _id: 5, p: "b", t: 2, v: 8, w: "y" },
    ]);
    const rows = await c
      .aggregate([
        {
          $fill: {
            sortBy: { t: 1 },
            partitionByFields: ["p"],
            output: { v: { method: "linear" }, w: { method: "locf" }, z: { value: 0 } },
          },
        },
      ])
      .toArray();
    expect(pick(rows, "v", "w", "z")).toEqual({
      1: [10, "x", 0],
      2: [20, "x", 0],
      3: [30, "x", 5],
      4: [null, null, 0],
      5: [8, "y", 0],
    });
  });

  it("refuses a malformed $fill with MongoDB's codes", async () => {
    const refused = async (stage: unknown, code: number) => {
      await expect(
        fresh()
          .aggregate([{ $fill: stage } as Document])
          .toArray(),
      ).rejects.toMatchObject({ code });
    };
    await refused({ output: {} }, 6050203);
    await refused({ output: { v: 1 } }, 6050200);
    await refused({ sortBy: { t: 1 }, output: { v: { method: "locf", value: 1 } } }, 6050201);
    await refused({ sortBy: { t: 1 }, output: { v: { method: "spline" } } }, 6050202);
    await refused({ partitionBy: "$p", partitionByFields: ["p"], output: { v: { value: 1 } } }, 6050204);
    await refused({ sortBy: { t: 1 } }, 40414);
    await refused({ output: { v: { value: 1 } }, other: 1 }, 40415);
    await refused({ output: { v: { method: "linear" } } }, 605001);
  });
});

describe("hostile stages and documents", () => {
  it("never answer an internal error (property)", async () => {
    const c = await seeded([
      { _id: 1, a: 1, t: 1, d: { x: 1 } },
      { _id: 2, a: "s", t: new Date(0), d: [1, 2] },
      { _id: 3, a: null, t: 2.5, d: { __proto__: 1 } as Document },
      { _id: 4, t: -1, d: { toString: 1 } },
      { _id: 5, a: [1, { b: 2 }], t: "x", d: null },
    ]);
    const junk = fc.constantFrom<unknown>(
      1,
      -1,
      0.5,
      "x",
      "$a",
      "$t",
      "current",
      "unbounded",
      null,
      [],
      {},
      [1],
      { $add: [1, 1] },
      { toString: 1 },
      { $literal: [1] },
    );
    const bounds = fc.oneof(
      junk,
      fc.tuple(junk, junk),
      fc.tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })),
    );
    const window = fc.oneof(
      junk,
      bounds.map((documents) => ({ documents })),
      bounds.map((range) => ({ range })),
      fc
        .tuple(bounds, fc.constantFrom<unknown>("day", "month", "fortnight", 1))
        .map(([range, unit]) => ({ range, unit })),
    );
    const fn = fc.constantFrom(
      "$sum",
      "$avg",
      "$min",
      "$max",
      "$push",
      "$addToSet",
      "$count",
      "$first",
      "$last",
      "$stdDevPop",
      "$stdDevSamp",
      "$covariancePop",
      "$covarianceSamp",
      "$rank",
      "$denseRank",
      "$documentNumber",
      "$shift",
      "$derivative",
      "$integral",
      "$expMovingAvg",
      "$locf",
      "$linearFill",
      "$topN",
      "$summ",
      "window",
    );
    const argument = fc.oneof(
      junk,
      fc.record({ input: junk, unit: junk }, { requiredKeys: ["input"] }),
      fc.record({ output: junk, by: junk, default: junk }, { requiredKeys: [] }),
      fc.record({ input: junk, N: junk, alpha: junk }, { requiredKeys: [] }),
      fc.constant(["$t", "$a"]),
    );
    const output = fc.tuple(fn, argument, fc.option(window)).map(([name, arg, w]) => ({
      [name]: arg,
      ...(w === null ? {} : { window: w }),
    }));
    const stage = fc.record(
      {
        partitionBy: fc.constantFrom<unknown>("$a", "$d", "$t", null, { $literal: [1] }, "$__proto__", {
          $concat: ["$a"],
        }),
        sortBy: fc.constantFrom<unknown>(
          { t: 1 },
          { t: -1 },
          { a: 1, t: 1 },
          { d: 1 },
          {},
          "x",
          { t: 2 },
          { t: { $meta: "x" } },
        ),
        output: fc.dictionary(fc.constantFrom("o", "p.q", "__proto__", "$x", ""), output, { maxKeys: 2 }),
      },
      { requiredKeys: ["output"] },
    );
    await fc.assert(
      fc.asyncProperty(stage, async (spec) => {
        try {
          await c.aggregate([{ $setWindowFields: spec }]).toArray();
        } catch (err) {
          const e = err as { code?: number; message: string };
          expect(e.code, e.message).not.toBe(1);
          expect(e.message).not.toMatch(/internal error/);
        }
      }),
      { seed: 34, numRuns: 300 },
    );
  });
});
