/**
 * Expressions answering, or refusing with MongoDB's own codes, as MongoDB 8 does where mingo's
 * differ (query/strict-operators.ts, collated-expressions.ts, ordered-stages.ts).
 */
import { MongoClient, MongoServerError, type CollationOptions, type Collection } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("expression-parity");
let client: MongoClient;
let c: Collection<{ _id: number; [key: string]: unknown }>;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
  c = client.db("parity").collection("docs");
  await c.insertOne({ _id: 1, v: 5, s: "x", arr: [3, 1, 2], n: null });
});
afterAll(async () => {
  await client?.close();
});

const CI = { locale: "en", strength: 2 };

/** The value of `expr` for the one document (`undefined`: missing), simple or under a collation. */
const value = async (expr: unknown, collation?: CollationOptions) => {
  const [row] = await c.aggregate([{ $project: { _id: 0, r: expr } }], collation ? { collation } : {}).toArray();
  return row.r as unknown;
};

/** MongoDB's code for `expr`, simple and under a collation alike. */
const code = async (expr: unknown) => {
  const codes: unknown[] = [];
  for (const collation of [undefined, CI])
    codes.push(
      await value(expr, collation).then(
        () => undefined,
        (e: unknown) => (e instanceof MongoServerError ? e.code : e),
      ),
    );
  expect(codes[1]).toBe(codes[0]);
  return codes[0];
};

describe("accumulators as expressions", () => {
  it("take one argument that is not an array as the value, an array's elements as the values", async () => {
    for (const collation of [undefined, CI]) {
      expect(await value({ $max: "$v" }, collation)).toBe(5);
      expect(await value({ $min: "$v" }, collation)).toBe(5);
      expect(await value({ $max: ["$arr"] }, collation)).toBe(3);
      expect(await value({ $min: [7, "$v", null, "$none"] }, collation)).toBe(5);
      expect(await value({ $max: "$none" }, collation)).toBeNull();
    }
    expect(await value({ $sum: "$v" })).toBe(5);
    expect(await value({ $sum: "$s" })).toBe(0);
    expect(await value({ $avg: "$v" })).toBe(5);
    expect(await value({ $avg: "$s" })).toBeNull();
    expect(await value({ $avg: "$arr" })).toBe(2);
  });

  it("still accumulate in $group", async () => {
    const rows = await c
      .aggregate([{ $group: { _id: null, m: { $max: "$v" }, s: { $sum: "$v" }, a: { $avg: "$v" } } }])
      .toArray();
    expect(rows).toEqual([{ _id: null, m: 5, s: 5, a: 5 }]);
  });
});

describe("set expressions", () => {
  it("answer null for a null or missing array where MongoDB does, sorted unions and intersections", async () => {
    for (const collation of [undefined, CI]) {
      expect(await value({ $setUnion: ["$arr", "$none"] }, collation)).toBeNull();
      expect(await value({ $setUnion: ["$arr", null] }, collation)).toBeNull();
      expect(await value({ $setIntersection: ["$none", "$arr"] }, collation)).toBeNull();
      expect(await value({ $setDifference: ["$arr", "$n"] }, collation)).toBeNull();
      expect(await value({ $setUnion: ["$arr", [0, 2]] }, collation)).toEqual([0, 1, 2, 3]);
      expect(await value({ $setIntersection: ["$arr", [2, 3, 9]] }, collation)).toEqual([2, 3]);
      expect(await value({ $setDifference: ["$arr", [1]] }, collation)).toEqual([3, 2]);
    }
  });

  it("refuse other arguments with MongoDB's codes", async () => {
    expect(await code({ $setUnion: ["$arr", 1] })).toBe(17043);
    expect(await code({ $setUnion: [1, null] })).toBe(17043);
    expect(await code({ $setIntersection: ["$arr", "$s"] })).toBe(17047);
    expect(await code({ $setDifference: ["$v", "$arr"] })).toBe(17048);
    expect(await code({ $setDifference: ["$arr", "$v"] })).toBe(17049);
    expect(await code({ $setDifference: ["$arr"] })).toBe(16020);
    expect(await code({ $setEquals: ["$arr", "$none"] })).toBe(17044);
    expect(await code({ $setIsSubset: ["$none", "$arr"] })).toBe(17046);
    expect(await code({ $setIsSubset: ["$arr", null] })).toBe(17042);
    expect(await code({ $anyElementTrue: ["$none"] })).toBe(17041);
    expect(await code({ $allElementsTrue: [1] })).toBe(17040);
  });
});

describe("$indexOfArray, $sortArray, $minN and $maxN", () => {
  it("refuse malformed arguments with MongoDB's codes", async () => {
    expect(await value({ $indexOfArray: [null, 1] })).toBeNull();
    expect(await code({ $indexOfArray: ["$v", 1] })).toBe(40090);
    expect(await code({ $indexOfArray: ["$arr", 1, "a"] })).toBe(40096);
    expect(await code({ $indexOfArray: ["$arr", 1, 0, 1.5] })).toBe(40096);
    expect(await code({ $indexOfArray: ["$arr", 1, -1] })).toBe(40097);
    expect(await value({ $sortArray: { input: null, sortBy: 1 } })).toBeNull();
    expect(await code({ $sortArray: { input: "$v", sortBy: 1 } })).toBe(2942504);
    expect(await code({ $maxN: { input: "$arr", n: "a" } })).toBe(5787902);
    expect(await code({ $maxN: { input: "$arr", n: 1.5 } })).toBe(5787903);
    expect(await code({ $minN: { input: "$arr", n: 0 } })).toBe(5787908);
    expect(await code({ $minN: { input: "$v", n: 2 } })).toBe(5788200);
    // A null input is refused too: MongoDB's $minN and $maxN want an array.
    expect(await code({ $maxN: { input: null, n: 2 } })).toBe(5788200);
    expect(await value({ $maxN: { input: "$arr", n: 2 } })).toEqual([3, 2]);
  });
});

describe("array expressions", () => {
  it("answer null for a null or missing array, refuse other values with MongoDB's codes", async () => {
    expect(await value({ $arrayElemAt: ["$none", 0] })).toBeNull();
    expect(await value({ $arrayElemAt: ["$arr", 9] })).toBeUndefined();
    expect(await value({ $arrayElemAt: ["$arr", -1] })).toBe(2);
    expect(await code({ $arrayElemAt: ["$v", 0] })).toBe(28689);
    expect(await code({ $arrayElemAt: ["$arr", "a"] })).toBe(28690);
    expect(await code({ $arrayElemAt: ["$arr", 1.5] })).toBe(28691);
    expect(await value({ $first: "$none" })).toBeNull();
    expect(await value({ $last: "$arr" })).toBe(2);
    expect(await code({ $first: "$v" })).toBe(28689);
    expect(await value({ $concatArrays: ["$arr", null] })).toBeNull();
    expect(await code({ $concatArrays: [1, null] })).toBe(28664);
    expect(await value({ $reverseArray: "$none" })).toBeNull();
    expect(await code({ $reverseArray: "$v" })).toBe(34435);
    expect(await code({ $in: [1, "$none"] })).toBe(40081);
    expect(await code({ $in: [1, "$v"] })).toBe(40081);
  });

  it("$slice answers null for a null argument and refuses others with 28724 to 28729", async () => {
    expect(await value({ $slice: [null, 1] })).toBeNull();
    expect(await value({ $slice: ["$arr", null] })).toBeNull();
    expect(await value({ $slice: ["$arr", 0, null] })).toBeNull();
    expect(await value({ $slice: ["$arr", -2] })).toEqual([1, 2]);
    expect(await value({ $slice: ["$arr", 1, 5] })).toEqual([1, 2]);
    expect(await code({ $slice: ["$v", 1] })).toBe(28724);
    expect(await code({ $slice: ["$arr", "a"] })).toBe(28725);
    expect(await code({ $slice: ["$arr", 1.5] })).toBe(28726);
    expect(await code({ $slice: ["$arr", 0, "a"] })).toBe(28727);
    expect(await code({ $slice: ["$arr", 0, 1.5] })).toBe(28728);
    expect(await code({ $slice: ["$arr", 0, 0] })).toBe(28729);
  });

  it("$filter, $map and $reduce answer null for a null input, refuse a scalar", async () => {
    expect(await value({ $filter: { input: "$none", cond: true } })).toBeNull();
    expect(await value({ $map: { input: null, in: 1 } })).toBeNull();
    expect(await code({ $filter: { input: "$v", cond: true } })).toBe(28651);
    expect(await code({ $map: { input: "$v", in: 1 } })).toBe(16883);
    expect(await code({ $reduce: { input: "$s", initialValue: 0, in: 1 } })).toBe(40080);
    expect(await value({ $map: { input: "$arr", in: { $add: ["$$this", 1] } } })).toEqual([4, 2, 3]);
  });
});

describe("$switch, $substrCP and $split", () => {
  it("$switch without a default refuses an input no branch matches with 40066", async () => {
    expect(await code({ $switch: { branches: [{ case: false, then: 1 }] } })).toBe(40066);
    expect(await value({ $switch: { branches: [{ case: "$v", then: 1 }] } })).toBe(1);
  });

  it("$substrCP reads a number as its string and refuses bad indexes with 34450 to 34455", async () => {
    expect(await value({ $substrCP: [12345, 1, 2] })).toBe("23");
    expect(await value({ $substrCP: ["$none", 0, 1] })).toBe("");
    expect(await value({ $substrCP: ["héllo", 1, 2] })).toBe("él");
    expect(await code({ $substrCP: ["$s", "a", 1] })).toBe(34450);
    expect(await code({ $substrCP: ["$s", 1.5, 1] })).toBe(34451);
    expect(await code({ $substrCP: ["$s", 0, "a"] })).toBe(34452);
    expect(await code({ $substrCP: ["$s", 0, 1.5] })).toBe(34453);
    expect(await code({ $substrCP: ["$s", 0, -1] })).toBe(34454);
    expect(await code({ $substrCP: ["$s", -1, 1] })).toBe(34455);
  });

  it("$split answers null for a null argument and refuses others with 40085, 40086, 40087", async () => {
    expect(await value({ $split: ["$none", ","] })).toBeNull();
    expect(await value({ $split: ["$s", null] })).toBeNull();
    expect(await code({ $split: ["$v", ","] })).toBe(40085);
    expect(await code({ $split: ["$s", 1] })).toBe(40086);
    expect(await code({ $split: ["$s", ""] })).toBe(40087);
  });
});

describe("conversions", () => {
  it("refuse a value they cannot convert with 241 ConversionFailure, unless onError is given", async () => {
    expect(await code({ $toInt: "$s" })).toBe(241);
    expect(await code({ $toString: "$arr" })).toBe(241);
    expect(await code({ $convert: { input: "$s", to: "int" } })).toBe(241);
    expect(await value({ $convert: { input: "$s", to: "int", onError: -1 } })).toBe(-1);
    expect(await value({ $convert: { input: "$none", to: "int", onNull: 9 } })).toBe(9);
    expect(await value({ $toString: null })).toBeNull();
  });
});

describe("$bucketAuto", () => {
  it("answers _id first", async () => {
    const rows = await c.aggregate([{ $bucketAuto: { groupBy: "$v", buckets: 1 } }]).toArray();
    expect(rows).toEqual([{ _id: { min: 5, max: 5 }, count: 1 }]);
    expect(Object.keys(rows[0])).toEqual(["_id", "count"]);
  });
});
