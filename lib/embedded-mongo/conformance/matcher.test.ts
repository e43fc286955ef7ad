import { Binary, Double, Int32, Long, ObjectId } from "bson";
import { describe, expect, it } from "vitest";
import { match, type MatchContext } from "./matcher";

const ok = (expected: unknown, actual: unknown, opts = {}) => expect(match(expected, actual, opts)).toBeNull();
const mismatch = (expected: unknown, actual: unknown, opts = {}) =>
  expect(match(expected, actual, opts)).not.toBeNull();

describe("root-level vs nested documents", () => {
  it("allows extra fields in the root document only", () => {
    ok({ x: 1 }, { x: 1, y: 1 });
    mismatch({ x: 1, y: 1 }, { x: 1 });
    mismatch({ x: { y: 1 } }, { x: { y: 1, z: 1 } });
    ok({ x: { y: 1 } }, { x: { y: 1 }, extra: true });
  });

  it("rejects extra fields at the root when the document is not root-level", () => {
    mismatch({ x: 1 }, { x: 1, y: 1 }, { root: false });
  });

  it("treats each element of an iterable result as a root document, but not array values", () => {
    const expected = [{ x: 1 }, { x: 2 }];
    const actual = [
      { x: 1, y: 1 },
      { x: 2, y: 2 },
    ];
    ok(expected, actual, { rootElements: true }); // find / aggregate
    mismatch(expected, actual); // distinct: plain array of values
  });

  it("requires arrays of the same length", () => {
    mismatch([1, 2, 3], [1, 2, 3, 4]);
    mismatch([1, 2, 3], [1, 2]);
    ok([1, 2, 3], [1, 2, 3]);
  });

  it("ignores key order and reports the path of a mismatch", () => {
    ok({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 });
    expect(match({ a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } })?.path).toBe("a.b[1].c");
  });
});

describe("numeric leniency", () => {
  it("considers int32, int64 and double equal when numerically equal", () => {
    ok({ n: 1 }, { n: new Long(1) });
    ok({ n: new Int32(5) }, { n: 5 });
    ok({ n: 1 }, { n: new Double(1.0) });
    ok({ n: new Long("9007199254740993") }, { n: new Long("9007199254740993") });
    mismatch({ n: 1 }, { n: 1.5 });
    mismatch({ n: 1 }, { n: "1" });
    mismatch({ n: new Long("9007199254740993") }, { n: new Long("9007199254740992") });
  });
});

describe("$$unsetOrMatches", () => {
  it("matches an absent field or a matching value, not a different value", () => {
    ok({ insertedId: { $$unsetOrMatches: 2 } }, {});
    ok({ insertedId: { $$unsetOrMatches: 2 } }, { insertedId: 2 });
    mismatch({ insertedId: { $$unsetOrMatches: 2 } }, { insertedId: 3 });
  });

  it("applies to a whole result, keeping it root-level", () => {
    const expected = { $$unsetOrMatches: { insertedId: { $$unsetOrMatches: 2 } } };
    ok(expected, undefined);
    ok(expected, { insertedId: 2, acknowledged: true });
    mismatch(expected, { insertedId: 1 });
  });

  it("keeps nested documents strict", () => {
    ok({ insertedIds: { $$unsetOrMatches: { "0": 1 } } }, { insertedIds: { "0": 1 } });
    mismatch({ insertedIds: { $$unsetOrMatches: { "0": 1 } } }, { insertedIds: { "0": 1, "1": 2 } });
  });
});

describe("$$exists", () => {
  it("checks presence or absence of a key", () => {
    ok({ getMore: { $$exists: true } }, { getMore: 1 });
    ok({ a: { $$exists: true } }, { a: null }); // null is a value
    mismatch({ a: { $$exists: true } }, {});
    ok({ writeConcern: { $$exists: false } }, { update: "c" });
    mismatch({ writeConcern: { $$exists: false } }, { writeConcern: { w: 1 } });
    ok({ comment: { $$exists: false } }, { comment: undefined }); // undefined is not sent
  });
});

describe("$$type", () => {
  it("matches one of the given BSON types", () => {
    ok({ getMore: { $$type: ["int", "long"] } }, { getMore: new Long(12) });
    ok({ getMore: { $$type: ["int", "long"] } }, { getMore: 12 });
    mismatch({ getMore: { $$type: ["int", "long"] } }, { getMore: "12" });
    mismatch({ getMore: { $$type: ["int", "long"] } }, { getMore: 1.5 });
    ok({ s: { $$type: "string" } }, { s: "x" });
    ok({ id: { $$type: "objectId" } }, { id: new ObjectId() });
    mismatch({ id: { $$type: "objectId" } }, { id: "5f1d7f0e8b8a4c1f9c0e8b8a" });
    ok({ d: { $$type: "date" } }, { d: new Date() });
    ok({ b: { $$type: "binData" } }, { b: new Binary(Buffer.from("ab")) });
    ok({ a: { $$type: "array" } }, { a: [1, "x"] });
    ok({ o: { $$type: "object" } }, { o: { x: 1 } });
    mismatch({ o: { $$type: "object" } }, { o: [1] });
    mismatch({ missing: { $$type: "null" } }, {});
    ok({ n: { $$type: "null" } }, { n: null });
  });
});

describe("entity operators", () => {
  const id = new ObjectId();
  const lsid = { id: new Binary(Buffer.alloc(16, 7), 4) };
  const ctx: MatchContext = {
    getEntity: (name) => {
      if (name === "saved") return id;
      throw new Error(`no entity ${name}`);
    },
    getSessionLsid: () => lsid,
  };

  it("$$matchesEntity compares with a saved value", () => {
    ok({ _id: { $$matchesEntity: "saved" } }, { _id: new ObjectId(id.toHexString()) }, { ctx });
    mismatch({ _id: { $$matchesEntity: "saved" } }, { _id: new ObjectId() }, { ctx });
    expect(() => match({ _id: { $$matchesEntity: "nope" } }, { _id: 1 }, { ctx })).toThrow();
  });

  it("$$sessionLsid compares the session id bytes", () => {
    ok({ lsid: { $$sessionLsid: "session0" } }, { lsid: { id: new Binary(Buffer.alloc(16, 7), 4) } }, { ctx });
    mismatch({ lsid: { $$sessionLsid: "session0" } }, { lsid: { id: new Binary(Buffer.alloc(16, 8), 4) } }, { ctx });
  });

  it("throws on an unknown special operator", () => {
    expect(() => match({ a: { $$bogus: 1 } }, { a: 1 })).toThrow(/unknown special operator/);
  });
});

describe("other values", () => {
  it("compares BSON values by value", () => {
    const a = new ObjectId();
    ok({ _id: a }, { _id: new ObjectId(a.toHexString()) });
    ok({ d: new Date(5) }, { d: new Date(5) });
    mismatch({ d: new Date(5) }, { d: new Date(6) });
    ok({ v: null }, { v: null });
    mismatch({ v: null }, { v: 0 });
    mismatch({ v: true }, { v: 1 });
  });

  it("$$lte applies numeric comparison", () => {
    ok({ n: { $$lte: 5 } }, { n: 5 });
    ok({ n: { $$lte: 5 } }, { n: new Long(3) });
    mismatch({ n: { $$lte: 5 } }, { n: 6 });
  });
});
