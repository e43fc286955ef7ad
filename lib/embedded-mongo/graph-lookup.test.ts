/**
 * `$graphLookup` answers as MongoDB's: breadth first, each foreign document once at the first
 * depth it is found at (a long), values compared as the query `{connectToField: {$in: values}}`
 * compares them (BSON order, documents field by field in order, numbers across types, `null`
 * only where the field exists), strings under the operation's collation. The order of the `as`
 * array is unspecified in MongoDB: each case sorts it.
 */
import { Double, Int32, Long, MongoClient, type CollationOptions, type Collection, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("graph-lookup");
let client: MongoClient;
let n = 0;
type Doc = { _id: number; [key: string]: unknown };
const db = () => client.db("graph");
const fresh = () => db().collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri);
});
afterAll(async () => {
  await client?.close();
});

async function seeded(docs: Doc[], collation?: CollationOptions): Promise<Collection<Doc>> {
  const c = fresh();
  if (collation) await db().createCollection(c.collectionName, { collation });
  if (docs.length > 0) await c.insertMany(docs);
  return c;
}

const XY = { x: 1, y: 2 };
const YX = { y: 2, x: 1 };
const CASELESS = { locale: "en", strength: 2 };

/** Each input document's `_id` with the `_id`s of its `as` array (`g`), sorted. */
const found = (rows: Document[]) =>
  rows
    .map((r) => [r._id, (r.g as Document[]).map((d) => d._id).sort((a, b) => a - b)])
    .sort((a, b) => (a[0] as number) - (b[0] as number));

/** Each found document's `_id` and depth, sorted by `_id`. */
const depths = (row: Document, field = "depth") =>
  (row.g as Document[]).map((d) => [d._id, Number(d[field])]).sort((a, b) => a[0] - b[0]);

const graphLookup = (from: Collection<Doc>, spec: Document) => ({
  $graphLookup: { from: from.collectionName, as: "g", ...spec },
});

const EMPLOYEES: Doc[] = [
  { _id: 1, name: "Dev" },
  { _id: 2, name: "Eliot", reportsTo: "Dev" },
  { _id: 3, name: "Ron", reportsTo: "Eliot" },
  { _id: 4, name: "Andrew", reportsTo: "Eliot" },
  { _id: 5, name: "Asya", reportsTo: "Ron" },
  { _id: 6, name: "Dan", reportsTo: "Andrew" },
];

const AIRPORTS: Doc[] = [
  { _id: 0, airport: "JFK", connects: ["BOS", "ORD"] },
  { _id: 1, airport: "BOS", connects: ["JFK", "PWM"] },
  { _id: 2, airport: "ORD", connects: ["JFK"] },
  { _id: 3, airport: "PWM", connects: ["BOS", "LHR"] },
  { _id: 4, airport: "LHR", connects: ["PWM"] },
];

describe("$graphLookup's search", () => {
  it("follows a chain, each document at its depth, the depth a long", async () => {
    const c = await seeded(EMPLOYEES);
    const stage = graphLookup(c, {
      startWith: "$reportsTo",
      connectFromField: "reportsTo",
      connectToField: "name",
      depthField: "depth",
    });
    const rows = await c.aggregate([stage]).toArray();
    expect(found(rows)).toEqual([
      [1, []],
      [2, [1]],
      [3, [1, 2]],
      [4, [1, 2]],
      [5, [1, 2, 3]],
      [6, [1, 2, 4]],
    ]);
    const asya = rows.find((r) => r._id === 5)!;
    expect(depths(asya)).toEqual([
      [1, 2],
      [2, 1],
      [3, 0],
    ]);
    const [raw] = await c.aggregate([{ $match: { _id: 5 } }, stage], { promoteLongs: false }).toArray();
    for (const doc of raw.g as Document[]) expect(doc.depth).toBeInstanceOf(Long);
    // The found documents are whole, the depth after their own fields.
    const ron = (raw.g as Document[]).find((d) => d._id === 3)!;
    expect(Object.keys(ron)).toEqual(["_id", "name", "reportsTo", "depth"]);
  });

  it("sets a dotted depthField and as inside documents, keeping their other fields", async () => {
    const c = await seeded([
      { _id: 1, name: "a", meta: { kept: true } },
      { _id: 2, name: "b", up: "a", out: { x: 1 } },
    ]);
    const [row] = await c
      .aggregate(
        [
          { $match: { _id: 2 } },
          {
            $graphLookup: {
              from: c.collectionName,
              startWith: "$up",
              connectFromField: "up",
              connectToField: "name",
              as: "out.g",
              depthField: "meta.depth",
            },
          },
        ],
        { promoteLongs: false },
      )
      .toArray();
    expect(row.out).toEqual({ x: 1, g: [{ _id: 1, name: "a", meta: { kept: true, depth: Long.fromNumber(0) } }] });
  });

  it("stops at maxDepth: 0 finds the direct matches only, 1 one level more", async () => {
    const airports = await seeded(AIRPORTS);
    const travelers = await seeded([{ _id: 1, nearestAirport: "JFK" }]);
    const at = async (maxDepth: number) => {
      const [row] = await travelers
        .aggregate([
          graphLookup(airports, {
            startWith: "$nearestAirport",
            connectFromField: "connects",
            connectToField: "airport",
            maxDepth,
            depthField: "depth",
          }),
        ])
        .toArray();
      return depths(row);
    };
    expect(await at(0)).toEqual([[0, 0]]);
    expect(await at(1)).toEqual([
      [0, 0],
      [1, 1],
      [2, 1],
    ]);
    expect(await at(2)).toEqual([
      [0, 0],
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
  });

  it("finds each document once in a cycle, at the first depth it is reached", async () => {
    const airports = await seeded(AIRPORTS);
    const [row] = await airports
      .aggregate([
        { $match: { _id: 4 } },
        graphLookup(airports, {
          startWith: "$airport",
          connectFromField: "connects",
          connectToField: "airport",
          depthField: "depth",
        }),
      ])
      .toArray();
    expect(depths(row)).toEqual([
      [0, 3],
      [1, 2],
      [2, 4],
      [3, 1],
      [4, 0],
    ]);
    const loop = await seeded([{ _id: 1, k: "a", next: ["a", "b"] }]);
    const [self] = await loop
      .aggregate([graphLookup(loop, { startWith: "$k", connectFromField: "next", connectToField: "k" })])
      .toArray();
    expect(found([self])).toEqual([[1, [1]]]);
  });

  it("neither keeps nor follows a document restrictSearchWithMatch refuses", async () => {
    const people = await seeded([
      { _id: 1, name: "Tanya", friends: ["Shirley", "Terry", "Carole"], hobbies: ["tennis", "golf"] },
      { _id: 2, name: "Carole", friends: ["Joseph", "Tanya", "Terry"], hobbies: ["golf"] },
      { _id: 3, name: "Terry", friends: ["Tanya", "Carole", "Angelo"], hobbies: ["knitting"] },
      { _id: 4, name: "Joseph", friends: ["Angelo", "Carole"], hobbies: ["golf"] },
      { _id: 5, name: "Angelo", friends: ["Terry", "Shirley", "Joseph"], hobbies: ["golf"] },
      { _id: 6, name: "Shirley", friends: ["Angelo", "Tanya", "Carole"], hobbies: ["frisbee"] },
    ]);
    const [row] = await people
      .aggregate([
        { $match: { name: "Tanya" } },
        graphLookup(people, {
          startWith: "$friends",
          connectFromField: "friends",
          connectToField: "name",
          depthField: "depth",
          restrictSearchWithMatch: { hobbies: "golf" },
        }),
      ])
      .toArray();
    // Angelo, a friend of Terry (refused), is reached only through Joseph, a level later.
    expect(depths(row)).toEqual([
      [1, 1],
      [2, 0],
      [4, 1],
      [5, 2],
    ]);
    // A malformed filter is refused before any document is read, as MongoDB's parse refuses it (BadValue).
    const empty = fresh();
    await expect(
      empty
        .aggregate([
          graphLookup(people, {
            startWith: "$x",
            connectFromField: "a",
            connectToField: "b",
            restrictSearchWithMatch: { a: { $nosuch: 1 } },
          }),
        ])
        .toArray(),
    ).rejects.toMatchObject({ code: 2 });
  });

  it("starts from each element of a startWith array, and connects through arrays on both sides", async () => {
    const c = await seeded([
      { _id: 1, keys: ["a", "b"], to: ["c", "d"] },
      { _id: 2, keys: "c", to: [] },
      { _id: 3, keys: ["d", "e"] },
      { _id: 4, keys: "e", to: "z" },
      { _id: 5, keys: "f" },
    ]);
    const local = await seeded([
      { _id: 10, start: ["b", "f"] },
      { _id: 11, start: "e" },
      { _id: 12, one: "a", two: "f" },
    ]);
    const spec = { connectFromField: "to", connectToField: "keys", depthField: "depth" };
    const rows = await local
      .aggregate([graphLookup(c, { startWith: { $ifNull: ["$start", ["$one", "$two"]] }, ...spec })])
      .toArray();
    expect(found(rows)).toEqual([
      [10, [1, 2, 3, 5]],
      [11, [3, 4]],
      [12, [1, 2, 3, 5]],
    ]);
    expect(depths(rows.find((r) => r._id === 10)!)).toEqual([
      [1, 0],
      [2, 1],
      [3, 1],
      [5, 0],
    ]);
  });
});

describe("$graphLookup's comparison of values", () => {
  it("compares documents field by field in order, whole or inside an array", async () => {
    const c = await seeded([
      { _id: 1, k: XY, n: YX },
      { _id: 2, k: YX },
      { _id: 3, k: [XY, 7] },
      { _id: 4, k: { x: 1 } },
    ]);
    const local = await seeded([
      { _id: 10, s: XY },
      { _id: 11, s: YX },
      { _id: 12, s: { x: 1, y: new Double(2) } },
    ]);
    const rows = await local
      .aggregate([graphLookup(c, { startWith: "$s", connectFromField: "n", connectToField: "k", depthField: "depth" })])
      .toArray();
    expect(found(rows)).toEqual([
      [10, [1, 2, 3]],
      [11, [2]],
      [12, [1, 2, 3]],
    ]);
    expect(depths(rows.find((r) => r._id === 10)!)).toEqual([
      [1, 0],
      [2, 1],
      [3, 0],
    ]);
    // restrictSearchWithMatch compares a document in order too (an array holding it matches).
    const [restricted] = await local
      .aggregate([
        { $match: { _id: 10 } },
        graphLookup(c, {
          startWith: "$s",
          connectFromField: "n",
          connectToField: "k",
          restrictSearchWithMatch: { k: XY },
        }),
      ])
      .toArray();
    expect(found([restricted])).toEqual([[10, [1, 3]]]);
  });

  it("finds a number of every type equal to it", async () => {
    const c = await seeded([
      { _id: 1, k: new Int32(2) },
      { _id: 2, k: new Double(2) },
      { _id: 3, k: Long.fromNumber(2) },
      { _id: 4, k: new Double(2.5) },
      { _id: 5, k: "2" },
    ]);
    const local = await seeded([
      { _id: 10, s: new Double(2) },
      { _id: 11, s: Long.fromNumber(2) },
      { _id: 12, s: 2.5 },
    ]);
    const rows = await local
      .aggregate([graphLookup(c, { startWith: "$s", connectFromField: "none", connectToField: "k" })])
      .toArray();
    expect(found(rows)).toEqual([
      [10, [1, 2, 3]],
      [11, [1, 2, 3]],
      [12, [4]],
    ]);
  });

  it("finds null only where the field exists, and nothing for a missing start", async () => {
    const c = await seeded([
      { _id: 1, k: null, next: null },
      { _id: 2 },
      { _id: 3, k: [null, 5] },
      { _id: 4, k: 5 },
      { _id: 5, k: [] },
      { _id: 6, k: "x", next: "$missing" },
    ]);
    const local = await seeded([{ _id: 10, s: null }, { _id: 11 }, { _id: 12, s: "x" }]);
    const rows = await local
      .aggregate([graphLookup(c, { startWith: "$s", connectFromField: "next", connectToField: "k" })])
      .toArray();
    expect(found(rows)).toEqual([
      [10, [1, 3]],
      [11, []],
      [12, [6]],
    ]);
    // A found document's null connects like a start's, a missing one connects nothing.
    const chained = await seeded([{ _id: 1, k: "a", next: null }, { _id: 2, k: null }, { _id: 3, k: "b" }, { _id: 4 }]);
    const [row] = await chained
      .aggregate([
        { $match: { _id: 1 } },
        graphLookup(chained, { startWith: "$k", connectFromField: "next", connectToField: "k" }),
      ])
      .toArray();
    expect(found([row])).toEqual([[1, [1, 2]]]);
  });

  it("reads a regular expression as a pattern, as $in does", async () => {
    const c = await seeded([
      { _id: 1, k: "abc" },
      { _id: 2, k: "xyz" },
      { _id: 3, k: /^a/ },
    ]);
    const [row] = await (
      await seeded([{ _id: 10 }])
    )
      .aggregate([graphLookup(c, { startWith: { $literal: /^a/ }, connectFromField: "none", connectToField: "k" })])
      .toArray();
    expect(found([row])).toEqual([[10, [1, 3]]]);
  });
});

describe("$graphLookup under a collation", () => {
  const pair = async (localCollation?: CollationOptions, foreignCollation?: CollationOptions) => ({
    foreign: await seeded(
      [
        { _id: 10, k: "a", n: "B" },
        { _id: 11, k: "B", n: "x" },
        { _id: 12, k: "á" },
      ],
      foreignCollation,
    ),
    local: await seeded([{ _id: 1, k: "A" }], localCollation),
  });
  const spec = { startWith: "$k", connectFromField: "n", connectToField: "k", depthField: "depth" };

  it("compares strings by the aggregate's collation", async () => {
    const { foreign, local } = await pair();
    const [row] = await local.aggregate([graphLookup(foreign, spec)], { collation: CASELESS }).toArray();
    expect(depths(row)).toEqual([
      [10, 0],
      [11, 1],
    ]);
    // The simple collation compares in binary.
    expect(found(await local.aggregate([graphLookup(foreign, spec)]).toArray())).toEqual([[1, []]]);
    // restrictSearchWithMatch runs under the same collation.
    const [restricted] = await local
      .aggregate([graphLookup(foreign, { ...spec, restrictSearchWithMatch: { n: "b" } })], { collation: CASELESS })
      .toArray();
    expect(found([restricted])).toEqual([[1, [10]]]);
  });

  it("follows the local collection's default collation, not the foreign one's", async () => {
    const withLocal = await pair(CASELESS);
    expect(found(await withLocal.local.aggregate([graphLookup(withLocal.foreign, spec)]).toArray())).toEqual([
      [1, [10, 11]],
    ]);
    const withForeign = await pair(undefined, CASELESS);
    expect(found(await withForeign.local.aggregate([graphLookup(withForeign.foreign, spec)]).toArray())).toEqual([
      [1, []],
    ]);
  });
});

describe("$graphLookup's checks", () => {
  const base = { from: "f", startWith: "$a", connectFromField: "a", connectToField: "b", as: "g" };
  const refused = async (stage: unknown, code: number) => {
    // On a collection that does not exist: the stage is refused before any document is read.
    const c = fresh();
    await expect(c.aggregate([{ $graphLookup: stage } as Document]).toArray()).rejects.toMatchObject({ code });
  };

  it("refuses a malformed stage with MongoDB's codes", async () => {
    await refused(5, 9);
    await refused({ startWith: "$a", connectFromField: "a", connectToField: "b", as: "g" }, 9);
    await refused({ ...base, from: 1 }, 9);
    await refused({ ...base, maxDepth: "1" }, 40100);
    await refused({ ...base, maxDepth: -1 }, 40101);
    await refused({ ...base, maxDepth: 1.5 }, 40102);
    await refused({ ...base, connectToField: 5 }, 40103);
    await refused({ ...base, depthField: true }, 40103);
    await refused({ ...base, let: {} }, 40104);
    await refused({ from: "f", connectFromField: "a", connectToField: "b", as: "g" }, 40105);
    await refused({ ...base, as: "" }, 40105);
    await refused({ ...base, restrictSearchWithMatch: 5 }, 40185);
    await refused({ ...base, depthField: "$d" }, 16410);
    await refused({ ...base, as: "a..b" }, 15998);
    await refused({ ...base, as: "a\0b" }, 16411);
  });

  it("accepts a whole maxDepth of any numeric type", async () => {
    const c = await seeded(EMPLOYEES);
    for (const maxDepth of [new Double(1), Long.fromNumber(1), new Int32(1)]) {
      const [row] = await c
        .aggregate([
          { $match: { _id: 5 } },
          graphLookup(c, { startWith: "$reportsTo", connectFromField: "reportsTo", connectToField: "name", maxDepth }),
        ])
        .toArray();
      expect(found([row])).toEqual([[5, [2, 3]]]);
    }
  });
});
