/**
 * A count reads only the top-level fields its filter names (decodeFields in storage/bson-values.ts):
 * it must count exactly what a find of the same filter returns, over documents holding every BSON
 * type around the fields read, with and without an index, and with filters that read the whole
 * document.
 */
import {
  Binary,
  BSONRegExp,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  type Document,
} from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("count-fields", "count_fields_test");
const coll = () => embedded.db.collection("people");

/** Fields of every BSON type, before and after the ones the filters read. */
const noise = (i: number): Document => ({
  double: new Double(i + 0.5),
  text: `text ${i} ✓`,
  doc: { a: i, nested: { b: [i, "x"] } },
  list: [i, { c: i }, [i]],
  bin: new Binary(Buffer.from([i % 256, 1, 2]), 4),
  undef: undefined,
  oid: new ObjectId(),
  bool: i % 2 === 0,
  date: new Date(1_700_000_000_000 + i),
  nil: null,
  regex: new BSONRegExp("^a\\d+", "i"),
  ref: new DBRef("other", new ObjectId()),
  code: new Code("function () { return 1; }"),
  int: new Int32(i),
  ts: new Timestamp({ t: i, i: 1 }),
  long: Long.fromNumber(i * 1_000_000_000),
  decimal: Decimal128.fromString(`${i}.25`),
  min: new MinKey(),
  max: new MaxKey(),
});

beforeAll(async () => {
  const docs: Document[] = [];
  for (let i = 0; i < 300; i++) {
    docs.push({
      ...noise(i),
      companies: [{ companyId: i % 3, isActive: i % 7 !== 0, hierarchy: { boss: [i % 5] } }],
      search: [`ma${i % 11}`, `jo${i % 13}`, i % 2 ? "maria" : "pedro"],
      "odd.name": i,
      score: i % 17,
      ...noise(i + 1000),
    });
  }
  await coll().insertMany(docs);
});

const filters: Document[] = [
  { "companies.companyId": 1, companies: { $elemMatch: { companyId: 1, isActive: { $ne: false } } } },
  { "companies.companyId": 2, $and: [{ search: { $regex: "^ma" } }] },
  { $or: [{ score: { $gt: 10 } }, { "companies.hierarchy.boss": 3 }] },
  { $nor: [{ score: 1 }], search: "maria", $comment: "a comment" },
  { $expr: { $gt: ["$score", "$int"] } },
  { bool: true, decimal: { $gte: Decimal128.fromString("100") } },
  { long: { $type: "long" }, score: { $in: [1, 2, 3] } },
  { "doc.nested.b": "x", score: { $lt: 5 } },
];

describe("a count reads only the fields of its filter", () => {
  it.each(filters.map((filter) => [JSON.stringify(filter), filter]))(
    "counts what a find returns: %s",
    async (_, filter) => {
      const found = await coll().find(filter).toArray();
      expect(await coll().countDocuments(filter)).toBe(found.length);
    },
  );

  it("counts the same through an index", async () => {
    await coll().createIndex({ search: 1 });
    await coll().createIndex({ "companies.companyId": 1 });
    for (const filter of filters) {
      const found = await coll().find(filter).toArray();
      expect(await coll().countDocuments(filter)).toBe(found.length);
    }
    await coll().dropIndexes();
  });

  it("finds matches at all for the filters above", async () => {
    const counts = await Promise.all(filters.map((filter) => coll().countDocuments(filter)));
    expect(counts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(6);
  });
});
