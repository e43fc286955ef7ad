/**
 * A skip served from index entries (README "Query planning"): when an index walks in the result's
 * order and its bounds decide the whole filter, the documents skipped are passed over from their
 * index entries without being read, as MongoDB's SKIP below FETCH. The answer never changes: each
 * query is compared with a collection scan (`$natural` hinted) that reads and sorts every match.
 */
import fc from "fast-check";
import { Decimal128, Long, ObjectId, type CollationOptions, type Document } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("skip-keys", "skip_keys_test");

interface Stats {
  nReturned: number;
  totalKeysExamined: number;
  totalDocsExamined: number;
}

async function stats(collection: string, find: Document): Promise<Stats> {
  const reply = await embedded.db.command({ explain: { find: collection, ...find }, verbosity: "executionStats" });
  return reply.executionStats as Stats;
}

describe("a page deep in a users list", () => {
  const companies = [new ObjectId(), new ObjectId()];
  const N = 3000;
  const base = Date.UTC(2025, 0, 1);
  const coll = () => embedded.db.collection("users");
  const sort = { modifiedAt: -1, _id: -1 } as const;

  beforeAll(async () => {
    const docs = Array.from({ length: N }, (_, i) => ({
      _id: new ObjectId(),
      // Every fifth user belongs to both companies; every seventh lists its company twice.
      companies: [
        { _id: new ObjectId(), companyId: companies[i % 2], isActive: i % 3 !== 0 },
        ...(i % 5 === 0 ? [{ _id: new ObjectId(), companyId: companies[(i + 1) % 2] }] : []),
        ...(i % 7 === 0 ? [{ _id: new ObjectId(), companyId: companies[i % 2], isActive: false }] : []),
      ],
      // Ties on modifiedAt: the order falls back on _id.
      modifiedAt: new Date(base + ((i * 7919) % 700) * 1000),
    }));
    await coll().insertMany(docs);
    await coll().createIndex({ "companies.companyId": 1, modifiedAt: 1, _id: 1 });
  });

  it("reads only the page's documents, counting the index entries passed over", async () => {
    const filter = { "companies.companyId": companies[0] };
    const all = await coll().find(filter).sort(sort).hint({ $natural: 1 }).toArray();
    expect(all.length).toBeGreaterThan(1500);
    const skip = 1490;
    const page = await coll().find(filter).sort(sort).skip(skip).limit(11).toArray();
    expect(page.map((d) => String(d._id))).toEqual(all.slice(skip, skip + 11).map((d) => String(d._id)));
    // Each user has one index entry under the company, however many memberships name it.
    expect(await stats("users", { filter, sort, skip, limit: 11 })).toEqual(
      expect.objectContaining({ nReturned: 11, totalDocsExamined: 11, totalKeysExamined: skip + 11 }),
    );
  });

  it("reads every document it skips when the filter needs them (an $elemMatch)", async () => {
    const filter = {
      "companies.companyId": companies[0],
      companies: { $elemMatch: { companyId: companies[0], isActive: { $ne: false } } },
    };
    const all = await coll().find(filter).sort(sort).hint({ $natural: 1 }).toArray();
    const skip = 500;
    const page = await coll().find(filter).sort(sort).skip(skip).limit(11).toArray();
    expect(page.map((d) => String(d._id))).toEqual(all.slice(skip, skip + 11).map((d) => String(d._id)));
    const { totalDocsExamined, totalKeysExamined } = await stats("users", { filter, sort, skip, limit: 11 });
    expect(totalDocsExamined).toBeGreaterThan(skip);
    expect(totalKeysExamined).toBe(totalDocsExamined);
  });
});

describe("index keys cut at 200 characters", () => {
  it("neither count nor skip a longer string by the key it shares", async () => {
    const coll = embedded.db.collection("cut_keys");
    await coll.createIndex({ s: 1 });
    const long = "l".repeat(200);
    await coll.insertMany([{ s: `${long}x` }, { s: long }, { s: `${long}y` }, { s: long }]);
    for (const filter of [{ s: long }, { s: { $regex: `^${long}` } }, { s: { $gte: long, $lte: long } }]) {
      const all = await coll.find(filter).hint({ $natural: 1 }).toArray();
      expect(await coll.countDocuments(filter), JSON.stringify(filter)).toBe(all.length);
      const page = await coll.find(filter).sort({ s: 1, _id: 1 }).skip(1).toArray();
      const sorted = await coll.find(filter).sort({ s: 1, _id: 1 }).hint({ $natural: 1 }).skip(1).toArray();
      expect(page, JSON.stringify(filter)).toEqual(sorted);
    }
    expect(await coll.countDocuments({ s: long })).toBe(2);
  });
});

describe("property: a skip from index entries gives the scan's answer", () => {
  const DATES = [0, 1, 2, 3].map((d) => new Date(Date.UTC(2024, 0, 1 + d)));
  const LONG = "l".repeat(205);
  const INDEXES: Document[] = [{ s: 1, d: 1 }, { tags: 1, d: -1 }, { n: 1 }, { d: 1 }, { o: 1 }];
  // Each ends on `_id`, so the order is total and a skip keeps the same documents in both reads.
  const SORTS: Document[] = [
    { d: 1, _id: 1 },
    { d: -1, _id: -1 },
    { s: 1, d: 1, _id: 1 },
    { n: 1, _id: 1 },
    { n: -1, _id: -1 },
    { o: 1, _id: 1 },
    { _id: 1 },
  ];
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 5 });
  const docArb = fc.record(
    {
      // Long strings are cut in index keys: two of them share a key under the cut.
      s: optional(fc.constantFrom("a", "ab", "b", LONG, `${LONG}x`, LONG.slice(0, 200), null)),
      tags: optional(
        fc.oneof(fc.array(fc.constantFrom("x", "y", "z"), { maxLength: 3 }), fc.constantFrom("x", "y", null)),
      ),
      d: optional(fc.constantFrom(...DATES)),
      // A Decimal128 or an int64 past 2^53 is keyed by its nearest double (1, 2^53), a value no
      // stored double holds here: index entries tie only on equal values.
      n: optional(
        fc.constantFrom<unknown>(
          2,
          3,
          Decimal128.fromString("1.0000000000000000000001"),
          Long.fromString("9007199254740993"),
        ),
      ),
      // A document as a value: its key is not in MongoDB's order.
      o: optional(fc.constantFrom<unknown>(1, "a", { b: 1 }, { a: 2 }, { a: 1, b: 0 })),
    },
    { requiredKeys: [] },
  );
  type Condition = [string, unknown];
  const condition: fc.Arbitrary<Condition> = fc.oneof(
    fc.constantFrom("a", "ab", "b", LONG.slice(0, 200), LONG).map((v): Condition => ["s", v]),
    fc.constantFrom("^a", "^l", "^b").map((v): Condition => ["s", { $regex: v }]),
    fc.constantFrom("ab", "b").map((v): Condition => ["s", { $gte: v }]),
    fc.constantFrom("x", "y", "z").map((v): Condition => ["tags", v]),
    fc
      .array(fc.constantFrom("x", "y", "z"), { minLength: 1, maxLength: 2 })
      .map((v): Condition => ["tags", { $in: v }]),
    fc.tuple(fc.constantFrom("$gte", "$lt"), fc.constantFrom(...DATES)).map(([op, v]): Condition => ["d", { [op]: v }]),
    fc.constantFrom<unknown>(1, 9007199254740992, 9007199254740993n).map((v): Condition => ["n", v]),
    fc.constantFrom<unknown>({ $gte: 1 }, { $lt: 2 }).map((v): Condition => ["n", v]),
    fc.constantFrom<unknown>(1, "a", { $gte: "a" }).map((v): Condition => ["o", v]),
  );
  const queryArb = fc.record({
    filter: fc.array(condition, { maxLength: 2 }).map((conds) => {
      const filter: Document = {};
      for (const [f, c] of conds) if (!(f in filter)) filter[f] = typeof c === "bigint" ? Long.fromBigInt(c) : c;
      return filter;
    }),
    sort: fc.constantFrom(...SORTS),
    skip: fc.integer({ min: 1, max: 30 }),
    limit: fc.integer({ min: 0, max: 5 }),
    collation: fc.constantFrom<CollationOptions | undefined>(undefined, undefined, { locale: "en", strength: 2 }),
  });

  it("with and without indexes, on arrays, cut keys, numbers keyed inexactly, documents and collations", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 10, maxLength: 60 }),
        fc.array(queryArb, { minLength: 1, maxLength: 8 }),
        async (raw, queries) => {
          run += 1;
          const coll = embedded.db.collection<Document & { _id: number }>(`prop_${run}`);
          const docs = raw.map((d, i) => ({
            _id: i,
            ...Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined)),
          }));
          await coll.createIndexes([
            ...INDEXES.map((key) => ({ key })),
            { key: { s: 1, _id: 1 }, name: "s_collated", collation: { locale: "en", strength: 2 } },
          ]);
          await coll.insertMany(docs);
          for (const q of queries) {
            const read = (hint?: Document) => {
              let cursor = coll.find(q.filter).sort(q.sort).skip(q.skip).limit(q.limit);
              if (q.collation) cursor = cursor.collation(q.collation);
              if (hint) cursor = cursor.hint(hint);
              return cursor.toArray();
            };
            const [expected, got] = await Promise.all([read({ $natural: 1 }), read()]);
            expect(got, JSON.stringify(q)).toEqual(expected);
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
