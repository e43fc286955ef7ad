/**
 * `sameEncoding` answers what comparing the two documents' BSON answers, on pairs that differ by
 * one value each way the comparison decides itself or leaves to the encoding.
 */
import { BSON, Binary, Decimal128, Long, ObjectId, type Document } from "bson";
import { describe, expect, it } from "vitest";
import { decodeDocument, sameEncoding, setNumberType } from "./bson-values";

const bytesEqual = (a: Document, b: Document) => Buffer.from(BSON.serialize(a)).equals(BSON.serialize(b));

const id = new ObjectId("6b0c055775affbf54384345f");
const values: unknown[] = [
  "a",
  "b",
  "",
  "\uD800",
  "\uFFFD",
  "😀",
  0,
  -0,
  1,
  1.5,
  2 ** 31,
  -(2 ** 31),
  NaN,
  true,
  false,
  null,
  undefined,
  new Date(0),
  new Date(1),
  new Date(NaN),
  id,
  new ObjectId(id.toHexString()),
  new ObjectId("6b0c055775affbf543843460"),
  { x: 1 },
  { x: 1, y: 2 },
  { y: 2, x: 1 },
  { x: undefined },
  { x: null },
  [1, 2],
  [1, 2, 3],
  [1, undefined],
  [1, null],
  new Array(2),
  Long.fromNumber(5),
  new Decimal128("1.0"),
  new Binary(Buffer.from("ab")),
  () => 1,
];

describe("sameEncoding", () => {
  it("answers as the encoding does for every pair of values, at the top and nested", () => {
    for (const a of values) {
      for (const b of values) {
        for (const wrap of [(v: unknown) => ({ _id: 1, v }), (v: unknown) => ({ _id: 1, n: { list: [0, v] } })]) {
          const [x, y] = [wrap(a), wrap(b)];
          expect([a, b, sameEncoding(x, y)]).toEqual([a, b, bytesEqual(x, y)]);
        }
      }
    }
  });

  it("tells documents apart by the order and number of their fields", () => {
    for (const [x, y] of [
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [{ a: 1 }, { a: 1, b: 2 }],
      [{ a: 1, f: () => 1 }, { a: 1 }],
      [{ a: 1, u: undefined }, { a: 1 }],
      [
        { a: 1, "\uD800": 1 },
        { a: 1, "\uDC00": 1 },
      ],
      [{ a: [1, 2] }, { a: { 0: 1, 1: 2 } }],
    ] as Document[][]) {
      expect(sameEncoding(x, y)).toBe(bytesEqual(x, y));
      expect(sameEncoding(y, x)).toBe(bytesEqual(y, x));
    }
  });

  it("compares the number types a stored document keeps", () => {
    const stored = decodeDocument(BSON.serialize({ l: Long.fromNumber(5), i: 5, d: new BSON.Double(5) }));
    const copy = decodeDocument(BSON.serialize(stored));
    expect(sameEncoding(stored, copy)).toBe(true);
    for (const [key, type] of [
      ["l", undefined],
      ["i", "long"],
      ["d", "long"],
      ["i", "double"],
    ] as const) {
      const other = decodeDocument(BSON.serialize(stored));
      setNumberType(other, key, type);
      expect(sameEncoding(stored, other)).toBe(bytesEqual(stored, other));
      expect(sameEncoding(stored, other)).toBe(false);
    }
  });
});
