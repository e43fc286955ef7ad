/**
 * A count answered from index entries alone (README "Query planning") answers what `find` does:
 * a number's index key is its nearest double, which a Decimal128 or an int64 past 2^53 shares
 * with a different number, so such an entry is checked against its document. Each count is
 * compared with a collection scan (`$natural` hinted) that reads every document.
 */
import fc from "fast-check";
import { Decimal128, Long, type Document } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("count-keys", "count_keys_test");

const TWO_53 = 2 ** 53;
const NEAR_ONE = Decimal128.fromString("1.0000000000000000000000000001");
const BELOW_ONE = Decimal128.fromString("0.99999999999999999999999999999");
const PAST_2_53 = Long.fromString("9007199254740993");
const BELOW_2_53 = Long.fromString("9007199254740991");

/** The count of `filter` by every route a driver has, and the matches of a scan reading every document. */
async function counts(collection: string, filter: Document) {
  const coll = embedded.db.collection<Numbered>(collection);
  const scanned = (await coll.find(filter).hint({ $natural: 1 }).toArray()).length;
  const found = (await coll.find(filter).toArray()).length;
  const countDocuments = await coll.countDocuments(filter);
  const command = (await embedded.db.command({ count: collection, query: filter })).n as number;
  return { scanned, found, countDocuments, command };
}

interface Numbered {
  _id: number;
  n: unknown;
}

const same = (n: number) => ({ scanned: n, found: n, countDocuments: n, command: n });

/** Documents read by the server so far (serverStatus `metrics.queryExecutor.scannedObjects`). */
async function scannedObjects(): Promise<number> {
  const status = await embedded.db.admin().command({ serverStatus: 1 });
  return status.metrics.queryExecutor.scannedObjects as number;
}

describe("numbers that share an index key", () => {
  const name = "numbers";
  beforeAll(async () => {
    await embedded.db.collection<Numbered>(name).insertMany([
      { _id: 1, n: 1 },
      { _id: 2, n: NEAR_ONE },
      { _id: 3, n: BELOW_ONE },
      { _id: 4, n: Decimal128.fromString("1") },
      { _id: 5, n: TWO_53 },
      { _id: 6, n: PAST_2_53 },
      { _id: 7, n: BELOW_2_53 },
      { _id: 8, n: 2 },
    ]);
    await embedded.db.collection(name).createIndex({ n: 1 });
  });

  it.each<[string, Document]>([
    ["$eq 1", { n: 1 }],
    ["$eq 1 by $eq", { n: { $eq: 1 } }],
    ["$eq 2^53", { n: TWO_53 }],
    ["$eq 2^53 + 1 as a long", { n: PAST_2_53 }],
    ["$gt 1", { n: { $gt: 1 } }],
    ["$gte 1", { n: { $gte: 1 } }],
    ["$lt 1", { n: { $lt: 1 } }],
    ["$lte 1", { n: { $lte: 1 } }],
    ["$gt 1, $lte 2", { n: { $gt: 1, $lte: 2 } }],
    ["$gt 2^53", { n: { $gt: TWO_53 } }],
    ["$gte 2^53", { n: { $gte: TWO_53 } }],
    ["$lt 2^53", { n: { $lt: TWO_53 } }],
    ["$lte 2^53", { n: { $lte: TWO_53 } }],
    ["$gt 2, $lte 2^53", { n: { $gt: 2, $lte: TWO_53 } }],
    ["$gt 2^53 as a long", { n: { $gt: Long.fromNumber(TWO_53) } }],
    ["$gte 2^53 + 1 as a long", { n: { $gte: PAST_2_53 } }],
    ["$in 1 and 2^53", { n: { $in: [1, TWO_53] } }],
    ["$in 2 and 2^53 + 1", { n: { $in: [2, PAST_2_53] } }],
  ])("%s: every count answers what a scan finds", async (_label, filter) => {
    const got = await counts(name, filter);
    expect(got).toEqual(same(got.scanned));
  });

  it("a count of 1 never counts the Decimal128 close to 1, nor a count of 2^53 the long 2^53 + 1", async () => {
    const coll = embedded.db.collection<Numbered>(name);
    expect(await coll.countDocuments({ n: 1, _id: { $in: [1, 2] } })).toBe(1);
    expect(await coll.countDocuments({ n: 1 })).toBe((await coll.find({ n: 1 }).toArray()).length);
    expect(await coll.countDocuments({ n: TWO_53 })).toBe(1);
    expect(await coll.countDocuments({ n: PAST_2_53 })).toBe(1);
  });

  it("reads the documents of the entries whose keys are shared, and only those", async () => {
    const before = await scannedObjects();
    // Keys 1: the double, two Decimal128 (1 and the one close to 1); the one below 1 is keyed 1 too.
    await embedded.db.collection(name).countDocuments({ n: 1 });
    expect((await scannedObjects()) - before).toBe(3);
  });

  it("keeps the list of shared keys through updates, deletes and an index dropped and built again", async () => {
    const coll = embedded.db.collection<Numbered>("changing");
    await coll.insertMany([
      { _id: 1, n: 1 },
      { _id: 2, n: NEAR_ONE },
      { _id: 3, n: PAST_2_53 },
    ]);
    await coll.createIndex({ n: 1 });
    const agree = async () => {
      for (const filter of [{ n: 1 }, { n: { $gte: 1 } }, { n: TWO_53 }, { n: { $in: [1, TWO_53] } }]) {
        const got = await counts("changing", filter);
        expect(got).toEqual(same(got.scanned));
      }
    };
    await agree();
    await coll.updateOne({ _id: 1 }, { $set: { n: Decimal128.fromString("1") } });
    await coll.updateOne({ _id: 2 }, { $set: { n: 1 } });
    await agree();
    await coll.deleteOne({ _id: 3 });
    await coll.insertOne({ _id: 4, n: TWO_53 });
    await agree();
    await coll.dropIndex("n_1");
    await coll.createIndex({ n: 1 });
    await agree();
    const report = await embedded.db.command({ validate: "changing", full: true });
    expect(report.valid).toBe(true);
    expect(report.keysPerIndex).toEqual({ _id_: 3, n_1: 3 });
  });

  it("estimatedDocumentCount counts every document", async () => {
    expect(await embedded.db.collection(name).estimatedDocumentCount()).toBe(8);
  });

  it("distinct on the index gives the values a scan finds", async () => {
    const coll = embedded.db.collection<Numbered>(name);
    const filter = { n: { $gte: 1, $lte: 2 } };
    const scanned = (await coll.find(filter).hint({ $natural: 1 }).toArray()).map((d) => String(d.n));
    const distinct = (await coll.distinct("n", filter)).map(String);
    expect(distinct.sort()).toEqual([...new Set(scanned)].sort());
  });
});

describe("an index of plain numbers and short strings", () => {
  const name = "plain";
  beforeAll(async () => {
    const docs = Array.from({ length: 300 }, (_, i) => ({ _id: i, n: i % 3 === 0 ? `s${i % 7}` : (i % 50) / 2 }));
    await embedded.db.collection<Numbered>(name).insertMany(docs);
    await embedded.db.collection(name).createIndex({ n: 1 });
  });

  it.each<[string, Document]>([
    ["$eq", { n: 1 }],
    ["$gt", { n: { $gt: 2.5 } }],
    ["$gte, $lt", { n: { $gte: 1, $lt: 10 } }],
    ["$in", { n: { $in: [0, 0.5, "s3"] } }],
    ["$lte a string", { n: { $lte: "s4" } }],
  ])("%s counts from the index entries alone, reading no document", async (_label, filter) => {
    const before = await scannedObjects();
    const n = await embedded.db.collection(name).countDocuments(filter);
    expect((await scannedObjects()) - before).toBe(0);
    expect(n).toBe((await embedded.db.collection(name).find(filter).hint({ $natural: 1 }).toArray()).length);
  });
});

describe("counts over mixed numeric types", () => {
  const VALUES: unknown[] = [
    0,
    1,
    2,
    -1,
    0.5,
    TWO_53,
    TWO_53 + 2,
    Decimal128.fromString("1"),
    NEAR_ONE,
    BELOW_ONE,
    Decimal128.fromString("0.5"),
    Decimal128.fromString("9007199254740993"),
    Long.fromNumber(1),
    PAST_2_53,
    BELOW_2_53,
    Long.fromString("9007199254740995"),
    "a",
  ];
  const BOUNDS: unknown[] = [0, 1, 2, 0.5, TWO_53, TWO_53 + 2, -1];
  const condition = fc.oneof(
    fc.constantFrom(...BOUNDS),
    fc.constantFrom(...BOUNDS).map((v) => ({ $eq: v })),
    fc.tuple(fc.constantFrom("$gt", "$gte", "$lt", "$lte"), fc.constantFrom(...BOUNDS)).map(([op, v]) => ({ [op]: v })),
    fc
      .tuple(
        fc.constantFrom("$gt", "$gte"),
        fc.constantFrom(...BOUNDS),
        fc.constantFrom("$lt", "$lte"),
        fc.constantFrom(...BOUNDS),
      )
      .map(([a, lo, b, hi]) => ({ [a]: lo, [b]: hi })),
    fc.array(fc.constantFrom(...BOUNDS), { minLength: 1, maxLength: 3 }).map((vs) => ({ $in: vs })),
  );

  it("a count equals the matches of a scan, with or without the index", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...VALUES.keys()), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        condition,
        async (picks, multikey, cond) => {
          const name = `mixed${round++}`;
          const docs = picks.map((i, k) => ({ _id: k, n: multikey && k % 3 === 0 ? [VALUES[i], 2] : VALUES[i] }));
          await embedded.db.collection<Numbered>(name).insertMany(docs);
          await embedded.db.collection(name).createIndex({ n: 1 });
          const got = await counts(name, { n: cond });
          await embedded.db.collection(name).drop();
          expect(got).toEqual(same(got.scanned));
        },
      ),
      { numRuns: 60 },
    );
  });
});
