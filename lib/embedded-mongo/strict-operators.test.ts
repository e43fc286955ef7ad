/** Where mingo would answer what MongoDB refuses or types otherwise (query/strict-operators.ts). */
import { Long, MongoClient, MongoServerError, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("strict-operators");
let client: MongoClient;
let c: Collection<{ _id: number; [key: string]: unknown }>;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
  c = client.db("strict").collection("docs");
  await c.insertMany([
    { _id: 1, a: [1, 2], s: "x", r: { k: 1 } },
    { _id: 2, a: [], s: "y" },
  ]);
});
afterAll(async () => {
  await client?.close();
});

const failure = async (pipeline: Document[]) => {
  const error = await c
    .aggregate(pipeline)
    .toArray()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(MongoServerError);
  return { code: (error as MongoServerError).code, message: (error as MongoServerError).message };
};

describe("$size", () => {
  it("counts an array, given alone or as the one argument", async () => {
    const rows = await c.aggregate([{ $project: { n: { $size: "$a" }, m: { $size: ["$a"] } } }]).toArray();
    expect(rows).toEqual([
      { _id: 1, n: 2, m: 2 },
      { _id: 2, n: 0, m: 0 },
    ]);
  });

  it("refuses a missing, null or other value with 17124, and two arguments with 16020", async () => {
    expect(await failure([{ $project: { n: { $size: "$none" } } }])).toEqual({
      code: 17124,
      message: "The argument to $size must be an array. Type of the argument was: missing",
    });
    expect((await failure([{ $project: { n: { $size: null } } }])).message).toMatch(/was: null$/);
    expect((await failure([{ $project: { n: { $size: "$s" } } }])).message).toMatch(/was: string$/);
    expect((await failure([{ $project: { n: { $size: [[1], [2]] } } }])).code).toBe(16020);
  });
});

describe("$replaceRoot and $replaceWith", () => {
  it("replace the document by a document", async () => {
    expect(await c.aggregate([{ $match: { _id: 1 } }, { $replaceRoot: { newRoot: "$r" } }]).toArray()).toEqual([
      { k: 1 },
    ]);
    expect(await c.aggregate([{ $match: { _id: 1 } }, { $replaceWith: "$r" }]).toArray()).toEqual([{ k: 1 }]);
  });

  it("refuse a new root that is not a document with 40228", async () => {
    for (const stage of [{ $replaceRoot: { newRoot: "$s" } }, { $replaceWith: "$r" }]) {
      const { code, message } = await failure([stage]);
      expect(code).toBe(40228);
      expect(message).toMatch(/^'newRoot' expression must evaluate to an object/);
    }
  });
});

describe("$unwind", () => {
  it("numbers each element in includeArrayIndex as a long", async () => {
    const rows = await c
      .aggregate([{ $unwind: { path: "$a", includeArrayIndex: "i" } }, { $project: { i: 1 } }], { promoteLongs: false })
      .toArray();
    expect(rows.map((row) => row.i)).toEqual([Long.fromNumber(0), Long.fromNumber(1)]);
  });
});

describe("$match after the first stage", () => {
  it("ignores a $comment, as the first $match and find do", async () => {
    const rows = await c.aggregate([{ $project: { s: 1 } }, { $match: { $comment: "why", s: "y" } }]).toArray();
    expect(rows).toEqual([{ _id: 2, s: "y" }]);
  });
});
