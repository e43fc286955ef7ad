/**
 * A find whose projection only removes top-level fields (`{a: 0, b: false}`) is answered from the
 * stored bytes with those fields cut out (bson-values.ts `withoutFields`). It must answer exactly
 * what projecting the decoded document answers: the same fields, in their stored order, each of
 * the same BSON type. The decoded path is reached with the same projection plus an exclusion of a
 * dotted path no document holds, which changes nothing but is not cut from the bytes.
 */
import { EJSON } from "bson";
import fc from "fast-check";
import {
  Binary,
  BSONRegExp,
  Decimal128,
  Double,
  Int32,
  Long,
  MongoClient,
  ObjectId,
  Timestamp,
  type Document,
} from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "../testing/temp-server";

const server = tempServerForThisFile("exclusion-bytes");
let client: MongoClient;

beforeAll(async () => {
  client = await MongoClient.connect(server.uri, { promoteValues: false, bsonRegExp: true });
});
afterAll(async () => {
  await client?.close();
});

const NAMES = ["a", "b", "é", "name", "search", "nested", "__proto__"];

const value = fc.oneof(
  fc.string(),
  fc.integer().map((n) => new Int32(n)),
  fc.double({ noNaN: true }).map((n) => new Double(n)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
  fc.constantFrom(Decimal128.fromString("1.50"), Decimal128.fromString("-0")),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true }),
  fc.uint8Array({ maxLength: 8 }).map((bytes) => new Binary(Buffer.from(bytes))),
  fc.constant(new BSONRegExp("^a", "i")),
  fc.constant(new Timestamp({ t: 5, i: 1 })),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom("x", "y"), fc.string()),
);

/** A document of some of {@link NAMES}, in any order, `_id` first as the server stores it. */
const document = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), value), { selector: ([name]) => name, maxLength: NAMES.length })
  .map((fields) => {
    const doc: Document = { _id: new ObjectId() };
    for (const [name, v] of fields) Object.defineProperty(doc, name, { value: v, enumerable: true, writable: true });
    return doc;
  });

const exact = (docs: Document[]) => docs.map((doc) => EJSON.stringify(doc, { relaxed: false }));

describe("a projection that only removes top-level fields", () => {
  it("answers from the stored bytes exactly what projecting the decoded documents answers", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(document, { minLength: 1, maxLength: 6 }),
        fc.uniqueArray(fc.constantFrom("_id", ...NAMES), { minLength: 1 }),
        fc.boolean(),
        async (docs, names, asFalse) => {
          const collection = client.db("cut").collection(`c${n++}`);
          await collection.insertMany(docs.map((doc) => ({ ...doc })));
          const projection = Object.fromEntries(names.map((name) => [name, asFalse ? false : 0]));
          const cut = await collection.find({}, { projection }).sort({ _id: 1 }).toArray();
          const decoded = await collection
            .find({}, { projection: { ...projection, "nowhere.at_all": 0 } })
            .sort({ _id: 1 })
            .toArray();
          expect(exact(cut)).toEqual(exact(decoded));
          for (const doc of cut) for (const name of names) expect(Object.keys(doc)).not.toContain(name);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps the filter, the sort, the limit and the next batches as without a projection", async () => {
    const collection = client.db("cut").collection<{ _id: number } & Document>("paged");
    await collection.insertMany(
      Array.from({ length: 30 }, (_, i) => ({ _id: i, group: i % 3, search: ["x", `n${i}`], name: `n${i}` })),
    );
    const page = await collection
      .find({ group: 1 }, { projection: { search: 0 }, batchSize: 4 })
      .sort({ _id: -1 })
      .limit(7)
      .toArray();
    expect(page).toEqual(
      [28, 25, 22, 19, 16, 13, 10].map((i) => ({ _id: new Int32(i), group: new Int32(1), name: `n${i}` })),
    );
    // A projection that mixes in anything else is projected as before, and a bad one refused.
    expect(
      await collection.findOne({ _id: 4 }, { projection: { search: 0, name: 1 } }).catch((e) => Number(e.code)),
    ).toBe(31254);
  });
});
