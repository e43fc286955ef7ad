/**
 * A find without a projection answers each document in the bytes it is stored as (commands/read.ts,
 * wire.ts), as MongoDB does: the same documents, whether they came in that find's first batch, a
 * getMore, or a transaction's own writes.
 */
import { BSON, BSONRegExp, Binary, Decimal128, Double, Int32, Long, ObjectId, type Document } from "mongodb";
import { beforeEach, describe, expect, it } from "vitest";
import { tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("stored-reply", "stored_reply_test");

type Typed = Document & { _id: number };

const typed = (i: number): Typed => ({
  _id: i,
  group: i % 2,
  long: Long.fromNumber(2 ** 40 + i),
  double: new Double(3),
  int: new Int32(-i),
  decimal: Decimal128.fromString(`${i}.50`),
  regex: new BSONRegExp("^a.b$", "imsx"),
  binary: new Binary(Buffer.from([i, 0, 255]), 4),
  nested: { list: [1, "two", { three: new Double(3) }], empty: {} },
  date: new Date(i * 1000),
  oid: new ObjectId(),
  name: `name ${String(100 - i).padStart(3, "0")}`,
});

describe("a find answering whole documents", () => {
  const coll = () => embedded.db.collection<Typed>("typed");
  const sent: Typed[] = [];
  beforeEach(async () => {
    await coll().deleteMany({});
    sent.splice(0, sent.length, ...Array.from({ length: 25 }, (_, i) => typed(i)));
    await coll().insertMany(sent.map((doc) => ({ ...doc })));
  });

  it("sends each document in the bytes it was inserted as, in every batch", async () => {
    const raw = (await coll()
      .find({ group: 1 }, { raw: true, sort: { name: 1 }, batchSize: 4 })
      .toArray()) as unknown as Buffer[];
    const expected = sent.filter((d) => d.group === 1).sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(raw.map((bytes) => Buffer.from(bytes).toString("hex"))).toEqual(
      expected.map((doc) => Buffer.from(BSON.serialize(doc)).toString("hex")),
    );
  });

  it("keeps every BSON type when decoded, through an index and without one", async () => {
    await coll().createIndex({ "nested.list": 1 });
    const options = { promoteValues: false, promoteLongs: false, bsonRegExp: true };
    const byIndex = await coll()
      .find({ "nested.list": "two", _id: { $lt: 3 } }, options)
      .toArray();
    const scanned = await coll()
      .find({ _id: { $in: [0, 1, 2] } }, { ...options, sort: { _id: 1 } })
      .toArray();
    const decoded = sent.slice(0, 3).map((doc) => BSON.deserialize(BSON.serialize(doc), options));
    expect(byIndex).toEqual(decoded);
    expect(scanned).toEqual(decoded);
  });

  it("sends a transaction's own writes as it stored them", async () => {
    const { regex, ...rest } = typed(100);
    const plain: Typed = { ...rest, _id: 100 };
    void regex;
    const session = embedded.client.startSession();
    try {
      await session.withTransaction(async () => {
        await coll().insertOne(plain, { session });
        await coll().updateOne({ _id: 100 }, { $set: { name: "renamed", long: Long.fromNumber(7) } }, { session });
        const [doc] = await coll().find({ _id: 100 }, { session, promoteValues: false }).toArray();
        expect(doc).toEqual(
          BSON.deserialize(BSON.serialize({ ...plain, name: "renamed", long: Long.fromNumber(7) }), {
            promoteValues: false,
          }),
        );
      });
    } finally {
      await session.endSession();
    }
    const [after] = await coll().find({ _id: 100 }).toArray();
    expect(after.name).toEqual("renamed");
  });
});
