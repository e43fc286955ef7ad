/** MongoDB 8.0 expressions mingo lacks (query/added-expressions.ts), with and without a collation. */
import {
  Binary,
  Double,
  Int32,
  Long,
  MongoClient,
  MongoServerError,
  ObjectId,
  Timestamp,
  type CollationOptions,
  type Collection,
  type Document,
} from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("added-expressions");
let client: MongoClient;
let c: Collection<{ _id: number; [key: string]: unknown }>;

const HEX = "5f1d7f8e9b1e8a3c4d5e6f70";

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
  c = client.db("added").collection("docs");
  await c.insertOne({
    _id: 1,
    s: "a😀b😀c",
    hex: HEX,
    oid: new ObjectId(HEX),
    ts: new Timestamp({ t: 100, i: 7 }),
    bin: new Binary(Buffer.from("abcd")),
    n: 5,
    sub: { i: new Int32(1), l: Long.fromNumber(2), d: new Double(3) },
  });
});
afterAll(async () => {
  await client?.close();
});

const COLLATIONS: Array<[string, CollationOptions | undefined]> = [
  ["simple", undefined],
  ["collated", { locale: "en", strength: 2 }],
];

/** The value of `expr` for the one document. */
const value = async (expr: unknown, collation?: CollationOptions, options: Document = {}) => {
  const rows = await c.aggregate([{ $project: { _id: 0, o: expr } }], { ...options, collation }).toArray();
  return rows[0].o;
};

const failure = async (expr: unknown, collation?: CollationOptions) => {
  const error = await value(expr, collation).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MongoServerError);
  return { code: (error as MongoServerError).code, message: (error as MongoServerError).message };
};

describe.each(COLLATIONS)("under the %s collation", (_, collation) => {
  describe("$toObjectId and $convert to objectId", () => {
    it("convert a 24-hex string, keep an ObjectId, answer null for null or missing", async () => {
      expect(await value({ $toObjectId: "$hex" }, collation)).toEqual(new ObjectId(HEX));
      expect(await value({ $toObjectId: "$oid" }, collation)).toEqual(new ObjectId(HEX));
      expect(await value({ $toObjectId: "$none" }, collation)).toBeNull();
      expect(await value({ $convert: { input: "$hex", to: "objectId" } }, collation)).toEqual(new ObjectId(HEX));
      expect(await value({ $convert: { input: "$hex", to: 7 } }, collation)).toEqual(new ObjectId(HEX));
      expect(await value({ $convert: { input: "$none", to: "objectId", onNull: "n" } }, collation)).toBe("n");
      expect(await value({ $convert: { input: null, to: "objectId" } }, collation)).toBeNull();
    });

    it("refuse a bad string or another type with 241, unless onError", async () => {
      expect(await failure({ $toObjectId: "abc" }, collation)).toEqual({
        code: 241,
        message:
          "Failed to parse objectId 'abc' in $convert with no onError value: Invalid string length for parsing to OID, expected 24 but found 3",
      });
      expect((await failure({ $toObjectId: "z".repeat(24) }, collation)).message).toMatch(
        /Invalid character found in hex string: z$/,
      );
      expect(await failure({ $toObjectId: "$n" }, collation)).toEqual({
        code: 241,
        message: "Unsupported conversion from int to objectId in $convert with no onError value",
      });
      expect(await value({ $convert: { input: "abc", to: "objectId", onError: "bad" } }, collation)).toBe("bad");
      expect(await value({ $convert: { input: "$n", to: "objectId", onError: null } }, collation)).toBeNull();
      expect((await failure({ $toObjectId: [1, 2] }, collation)).code).toBe(50723);
    });

    it("leave the other conversions as they were", async () => {
      expect(await value({ $convert: { input: "x", to: "int", onError: -1 } }, collation)).toBe(-1);
      expect(await value({ $convert: { input: "$n", to: "string" } }, collation)).toBe("5");
    });
  });

  describe("$toString and $convert to string", () => {
    it("write an ObjectId as its hex digits, a long, decimal, int or double as its number", async () => {
      expect(await value({ $toString: "$oid" }, collation)).toBe(HEX);
      expect(await value({ $toString: ["$oid"] }, collation)).toBe(HEX);
      expect(await value({ $convert: { input: "$oid", to: "string" } }, collation)).toBe(HEX);
      expect(await value({ $convert: { input: "$oid", to: 2 } }, collation)).toBe(HEX);
      expect(await value({ $toString: "$sub.l" }, collation)).toBe("2");
      expect(await value({ $toString: "$sub.d" }, collation)).toBe("3");
      expect(await value({ $toString: { $literal: Long.fromString("9007199254740993") } }, collation)).toBe(
        "9007199254740993",
      );
      expect(await value({ $toString: "$none" }, collation)).toBeNull();
    });

    it("refuse an array with 241, unless onError, and two arguments with 50723", async () => {
      expect((await failure({ $toString: { $literal: [1] } }, collation)).code).toBe(241);
      expect(await value({ $convert: { input: { $literal: [1] }, to: "string", onError: "x" } }, collation)).toBe("x");
      expect((await failure({ $toString: ["$oid", "$n"] }, collation)).code).toBe(50723);
    });
  });

  describe("$indexOfCP", () => {
    it("counts code points, an emoji as one, between the start and end indexes", async () => {
      expect(await value({ $indexOfCP: ["$s", "b"] }, collation)).toBe(2);
      expect(await value({ $indexOfCP: ["$s", "c"] }, collation)).toBe(4);
      expect(await value({ $indexOfCP: ["$s", "😀", 2] }, collation)).toBe(3);
      expect(await value({ $indexOfCP: ["$s", "c", 0, 4] }, collation)).toBe(-1);
      expect(await value({ $indexOfCP: ["$s", "b😀", 0, 3] }, collation)).toBe(2);
      expect(await value({ $indexOfCP: ["$s", "x"] }, collation)).toBe(-1);
      expect(await value({ $indexOfCP: ["$s", "a", 9] }, collation)).toBe(-1);
      expect(await value({ $indexOfCP: ["", ""] }, collation)).toBe(0);
      expect(await value({ $indexOfCP: ["$none", "a"] }, collation)).toBeNull();
      expect(await value({ $indexOfCP: [null, "a"] }, collation)).toBeNull();
    });

    it("refuses other arguments with MongoDB's codes", async () => {
      expect(await failure({ $indexOfCP: ["$n", "a"] }, collation)).toEqual({
        code: 40093,
        message: "$indexOfCP requires a string as the first argument, found: int",
      });
      expect((await failure({ $indexOfCP: ["$s", null] }, collation)).code).toBe(40094);
      expect((await failure({ $indexOfCP: ["$s", "a", 1.5] }, collation)).code).toBe(40096);
      expect((await failure({ $indexOfCP: ["$s", "a", "x"] }, collation)).code).toBe(40096);
      expect((await failure({ $indexOfCP: ["$s", "a", -1] }, collation)).code).toBe(40097);
      expect((await failure({ $indexOfCP: ["$s", "a", 0, -2] }, collation)).code).toBe(40097);
      expect((await failure({ $indexOfCP: ["$s"] }, collation)).code).toBe(28667);
    });
  });

  describe("$binarySize", () => {
    it("counts a string's UTF-8 bytes and a BinData's bytes; null for null or missing", async () => {
      expect(await value({ $binarySize: "$s" }, collation)).toBe(11);
      expect(await value({ $binarySize: "$bin" }, collation)).toBe(4);
      expect(await value({ $binarySize: "$none" }, collation)).toBeNull();
    });

    it("refuses another type with 51276", async () => {
      expect(await failure({ $binarySize: "$n" }, collation)).toEqual({
        code: 51276,
        message: "$binarySize requires a string or BinData argument, found: int",
      });
    });
  });

  describe("$bsonSize", () => {
    it("counts a document's bytes, each number as its BSON type; null for null or missing", async () => {
      // 4 + int32 "i" (1+2+4) + long "l" (1+2+8) + double "d" (1+2+8) + 1.
      expect(await value({ $bsonSize: "$sub" }, collation)).toBe(34);
      expect(await value({ $bsonSize: { a: "$none" } }, collation)).toBe(5);
      expect(await value({ $bsonSize: "$none" }, collation)).toBeNull();
    });

    it("refuses another type with 31393", async () => {
      expect(await failure({ $bsonSize: "$s" }, collation)).toEqual({
        code: 31393,
        message: "$bsonSize requires a document input, found: string",
      });
      expect((await failure({ $bsonSize: ["$sub", "$sub"] }, collation)).code).toBe(16020);
    });
  });

  describe("$tsSecond and $tsIncrement", () => {
    it("answer a timestamp's seconds and increment as longs; null for null or missing", async () => {
      const rows = await c
        .aggregate(
          [{ $project: { _id: 0, t: { $tsSecond: "$ts" }, i: { $tsIncrement: "$ts" }, m: { $tsSecond: "$none" } } }],
          { collation, promoteLongs: false },
        )
        .toArray();
      expect(rows).toEqual([{ t: Long.fromNumber(100), i: Long.fromNumber(7), m: null }]);
    });

    it("refuse another type with 5687301 and 5687302", async () => {
      expect(await failure({ $tsSecond: "$n" }, collation)).toEqual({
        code: 5687301,
        message: " Argument to $tsSecond must be a timestamp, but is int",
      });
      expect((await failure({ $tsIncrement: "$s" }, collation)).code).toBe(5687302);
    });
  });
});
