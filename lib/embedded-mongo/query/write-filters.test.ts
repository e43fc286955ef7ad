/**
 * The filters of writes (update, upsert, findAndModify, delete) repeated with one shape and other
 * values, collations, `let` variables, hints or indexes: what the executor keeps from one command
 * to the next (compiled filters, plans, a filter of plain equalities left uncompiled) never
 * changes which documents the next one matches (query/filter.ts, query/plan-cache.ts).
 */
import { Double, Long, MongoServerError, ObjectId, type Document } from "mongodb";
import { describe, expect, it } from "vitest";
import { tempDatabaseForThisFile } from "../testing/temp-server";

/** Test documents carry their own numeric `_id`. */
type Numbered = Document & { _id: number };

const embedded = tempDatabaseForThisFile("write-filters", "write_filters_test");

describe("writes repeated with one filter shape", () => {
  it("upserts by (survey, __v) with other values: each upsert meets its own revision or inserts it", async () => {
    const revisions = embedded.db.collection("revisions");
    await revisions.createIndex({ survey: 1, __v: 1 }, { unique: true });
    const [a, b] = [new ObjectId(), new ObjectId()];
    const seal = (survey: ObjectId, __v: number, note: string) =>
      revisions.updateOne({ survey, __v }, { $setOnInsert: { note } }, { upsert: true });
    expect((await seal(a, 0, "a0")).upsertedCount).toBe(1);
    expect((await seal(a, 1, "a1")).upsertedCount).toBe(1);
    const again = await seal(a, 1, "a1 again");
    expect([again.matchedCount, again.upsertedCount]).toEqual([1, 0]);
    expect((await seal(b, 1, "b1")).upsertedCount).toBe(1);
    const bulk = await revisions.bulkWrite(
      [
        { updateOne: { filter: { survey: b, __v: 2 }, update: { $setOnInsert: { note: "b2" } }, upsert: true } },
        { updateOne: { filter: { survey: b, __v: 1 }, update: { $setOnInsert: { note: "b1 again" } }, upsert: true } },
      ],
      { ordered: false },
    );
    expect([bulk.upsertedCount, bulk.matchedCount]).toEqual([1, 1]);
    const notes = (await revisions.find({}, { sort: { note: 1 } }).toArray()).map((d) => d.note);
    expect(notes).toEqual(["a0", "a1", "b1", "b2"]);
  });

  it("matches other number types, arrays and missing fields as MongoDB's equality does", async () => {
    const docs = embedded.db.collection<Numbered>("numbers");
    await docs.insertMany([
      { _id: 1, k: "x", v: 1 },
      { _id: 2, k: "x", v: Long.fromNumber(1) },
      { _id: 3, k: "x", v: new Double(1) },
      { _id: 5, k: "x", v: [0, 1] },
      { _id: 6, k: "x", v: 2 },
      { _id: 7, k: "x" },
      { _id: 8, k: "x", v: null },
      { _id: 9, k: "y", v: 1 },
    ]);
    const matched = async (v: unknown) => (await docs.updateMany({ k: "x", v }, { $inc: { seen: 1 } })).matchedCount;
    expect(await matched(1)).toBe(4);
    expect(await matched(2)).toBe(1);
    expect(await matched(null)).toBe(2);
    expect(await matched(0)).toBe(1);
    expect(await matched(3)).toBe(0);
    const seen = await docs.find({}, { sort: { _id: 1 }, projection: { seen: 1 } }).toArray();
    expect(seen.map((d) => d.seen ?? 0)).toEqual([1, 1, 1, 2, 1, 1, 1, 0]);
    // findAndModify and delete, the same shape with other values.
    expect((await docs.findOneAndUpdate({ k: "y", v: 1 }, { $set: { hit: true } }))?._id).toBe(9);
    expect(await docs.findOneAndUpdate({ k: "y", v: 2 }, { $set: { hit: true } })).toBeNull();
    expect((await docs.deleteOne({ k: "x", v: 2 })).deletedCount).toBe(1);
    expect((await docs.deleteOne({ k: "x", v: 2 })).deletedCount).toBe(0);
    expect((await docs.findOneAndDelete({ k: "x", v: 0 }))?._id).toBe(5);
  });

  it("matches by ObjectId and date values, never another document's", async () => {
    const docs = embedded.db.collection("ids");
    const [a, b] = [new ObjectId(), new ObjectId()];
    const [t1, t2] = [new Date("2026-01-01T00:00:00Z"), new Date("2026-01-02T00:00:00Z")];
    await docs.insertMany([
      { _id: a, company: b, at: t1 },
      { _id: b, company: a, at: t2 },
    ]);
    expect((await docs.findOneAndUpdate({ _id: a, company: b }, { $set: { n: 1 } }))?._id).toEqual(a);
    expect(await docs.findOneAndUpdate({ _id: a, company: a }, { $set: { n: 2 } })).toBeNull();
    expect((await docs.updateOne({ company: a, at: t1 }, { $set: { n: 3 } })).matchedCount).toBe(0);
    expect((await docs.updateOne({ company: a, at: new Date(t2) }, { $set: { n: 4 } })).matchedCount).toBe(1);
    expect((await docs.find({}, { sort: { at: 1 } }).toArray()).map((d) => d.n)).toEqual([1, 4]);
  });

  it("gives one filter under different collations their own answers", async () => {
    const people = embedded.db.collection("people");
    await people.insertOne({ name: "ADA", n: 0 });
    const caseless = { locale: "en", strength: 2 };
    const one = await people.updateOne({ name: "Ada" }, { $inc: { n: 1 } }, { collation: caseless, upsert: true });
    expect([one.matchedCount, one.upsertedCount]).toEqual([1, 0]);
    const binary = await people.updateOne({ name: "Ada" }, { $inc: { n: 1 } }, { upsert: true });
    expect([binary.matchedCount, binary.upsertedCount]).toEqual([0, 1]);
    const both = await people.updateMany({ name: "ada" }, { $inc: { n: 10 } }, { collation: caseless });
    expect(both.matchedCount).toBe(2);
    expect((await people.deleteMany({ name: "ada" })).deletedCount).toBe(0);
    expect((await people.deleteMany({ name: "ada" }, { collation: caseless })).deletedCount).toBe(2);
  });

  it("gives one filter under different let variables their own answers", async () => {
    const docs = embedded.db.collection<Numbered>("let");
    await docs.insertMany([
      { _id: 1, k: "a" },
      { _id: 2, k: "b" },
    ]);
    const filter = { $expr: { $eq: ["$k", "$$want"] } };
    for (const want of ["a", "b", "b", "c"]) {
      await docs.updateOne(filter, { $inc: { n: 1 } }, { let: { want } });
    }
    expect((await docs.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d.n)).toEqual([1, 2]);
    expect((await docs.findOneAndDelete(filter, { let: { want: "b" } }))?._id).toBe(2);
  });

  it("plans again when an index is dropped or created between two upserts, and refuses a hint at a dropped one", async () => {
    const revisions = embedded.db.collection("replanned");
    await revisions.createIndex({ survey: 1, __v: 1 }, { name: "survey_v", unique: true });
    await revisions.createIndex({ survey: 1 }, { name: "survey" });
    const survey = new ObjectId();
    const seal = (__v: number, hint?: string) =>
      revisions.updateOne({ survey, __v }, { $setOnInsert: { at: __v } }, { upsert: true, hint });
    expect((await seal(1)).upsertedCount).toBe(1);
    expect((await seal(1)).matchedCount).toBe(1);
    expect((await seal(1, "survey_v")).matchedCount).toBe(1);
    await revisions.dropIndex("survey_v");
    expect((await seal(1)).matchedCount).toBe(1);
    expect((await seal(2)).upsertedCount).toBe(1);
    const refused = await seal(2, "survey_v").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MongoServerError);
    expect((refused as MongoServerError).message).toMatch(/hint provided does not correspond to an existing index/);
    await revisions.createIndex({ __v: 1, survey: 1 }, { name: "v_survey" });
    expect((await seal(2)).matchedCount).toBe(1);
    expect((await seal(3, "v_survey")).upsertedCount).toBe(1);
    expect((await seal(3)).matchedCount).toBe(1);
    await revisions.dropIndex("survey");
    expect((await seal(3)).matchedCount).toBe(1);
    expect((await seal(4)).upsertedCount).toBe(1);
    expect(await revisions.countDocuments({ survey })).toBe(4);
  });
});
