/**
 * A BSON regular expression stored in a document keeps its pattern and options exactly (MongoDB
 * stores `i m s x u l` as given, alphabetized), through every read and write; a `$regex` with `s`
 * or `x` matches as MongoDB's PCRE does. Through the driver with `bsonRegExp: true`, which shows
 * the exact stored options.
 */
import fc from "fast-check";
import { BSONRegExp, BSONSymbol, MongoClient, type Document } from "mongodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempServerForThisFile } from "./testing/temp-server";

const server = tempServerForThisFile("regexvalues");
let client: MongoClient;
let n = 0;
/** Documents of a number `_id` and any fields (the driver's own type assumes an ObjectId). */
type Doc = { _id: number } & Document;
const fresh = () => client.db("regexvalues").collection<Doc>(`c${n++}`);

beforeAll(async () => {
  client = await MongoClient.connect(server.uri, { bsonRegExp: true });
});
afterAll(async () => {
  await client?.close();
});

/** Every option alone, and combinations of them. */
const OPTIONS = ["", "i", "m", "s", "x", "u", "l", "is", "sx", "imsx", "ilmsux"];
const shown = (v: unknown) => {
  const re = v as BSONRegExp;
  return { pattern: re.pattern, options: re.options };
};
const value = (options: string) => new BSONRegExp("a.b # c", options);

describe("a stored regular expression keeps its pattern and options", () => {
  it.each(OPTIONS)(
    "options %j: insert, find, projection, update of another field, replace, findAndModify",
    async (options) => {
      const c = fresh();
      const expected = { pattern: "a.b # c", options };
      await c.insertOne({ _id: 1, re: value(options), list: [value(options)], n: 0 });
      expect(shown((await c.findOne({ _id: 1 }))!.re)).toEqual(expected);
      expect(shown((await c.findOne({ _id: 1 }, { projection: { re: 1 } }))!.re)).toEqual(expected);
      expect(shown((await c.findOne({ _id: 1 }, { projection: { n: 0 } }))!.list[0])).toEqual(expected);

      await c.updateOne({ _id: 1 }, { $set: { n: 1 } });
      const updated = (await c.findOne({ _id: 1 }))!;
      expect(shown(updated.re)).toEqual(expected);
      expect(shown((updated.list as unknown[])[0])).toEqual(expected);
      expect(updated.n).toBe(1);

      const found = await c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }, { returnDocument: "after" });
      expect(shown(found!.re)).toEqual(expected);
      const before = await c.findOneAndUpdate({ _id: 1 }, { $inc: { n: 1 } }, { returnDocument: "before" });
      expect(shown(before!.re)).toEqual(expected);

      await c.replaceOne({ _id: 1 }, { other: value(options) });
      expect(shown((await c.findOne({ _id: 1 }))!.other)).toEqual(expected);
      const replaced = await c.findOneAndReplace({ _id: 1 }, { again: value(options) }, { returnDocument: "after" });
      expect(shown(replaced!.again)).toEqual(expected);

      await c.updateOne({ _id: 1 }, { $set: { set: value(options) } });
      expect(shown((await c.findOne({ _id: 1 }))!.set)).toEqual(expected);
      await c.updateOne({ _id: 2 }, { $setOnInsert: { up: value(options) } }, { upsert: true });
      expect(shown((await c.findOne({ _id: 2 }))!.up)).toEqual(expected);
    },
  );

  it.each(OPTIONS)("options %j: aggregate $project, $addFields, $group $push", async (options) => {
    const c = fresh();
    const expected = { pattern: "a.b # c", options };
    await c.insertMany([
      { _id: 1, re: value(options), k: 1 },
      { _id: 2, re: value(options), k: 1 },
    ]);
    const [projected] = await c.aggregate([{ $match: { _id: 1 } }, { $project: { re: 1, copy: "$re" } }]).toArray();
    expect(shown(projected.re)).toEqual(expected);
    expect(shown(projected.copy)).toEqual(expected);
    const [added] = await c.aggregate([{ $match: { _id: 1 } }, { $addFields: { copy: "$re", n: 1 } }]).toArray();
    expect(shown(added.re)).toEqual(expected);
    expect(shown(added.copy)).toEqual(expected);
    const [faceted] = await c
      .aggregate([{ $facet: { f: [{ $match: { _id: 1 } }, { $project: { re: 1 } }] } }])
      .toArray();
    expect(shown(faceted.f[0].re)).toEqual(expected);
    const [grouped] = await c.aggregate([{ $group: { _id: "$k", all: { $push: "$re" } } }]).toArray();
    expect((grouped.all as unknown[]).map(shown)).toEqual([expected, expected]);
  });

  it.each(OPTIONS)("options %j: nested values, $push, an index on the field, bulk writes", async (options) => {
    const c = fresh();
    const expected = { pattern: "a.b # c", options };
    await c.createIndex({ re: 1 });
    await c.insertOne({ _id: 1, re: value(options), list: [] });
    await c.updateOne({ _id: 1 }, { $set: { sub: { re: value(options), arr: [value(options)] } } });
    await c.updateOne({ _id: 1 }, { $push: { list: value(options) } } as Document);
    await c.updateOne({ _id: 1 }, [{ $set: { piped: "$re", n: 1 } }]);
    await c.bulkWrite([{ updateOne: { filter: { _id: 1 }, update: { $inc: { n: 1 } } } }]);
    const doc = (await c.findOne({ _id: 1 }))!;
    const sub = doc.sub as { re: unknown; arr: unknown[] };
    expect([doc.re, sub.re, sub.arr[0], (doc.list as unknown[])[0], doc.piped].map(shown)).toEqual(
      Array(5).fill(expected),
    );
    // The index holds the regex value: read through it, and a delete leaves no entry behind.
    expect(shown((await c.find({}, { hint: { re: 1 } }).toArray())[0].re)).toEqual(expected);
    await c.deleteOne({ _id: 1 });
    expect(await c.countDocuments({}, { hint: { re: 1 } })).toBe(0);
  });

  it.each(OPTIONS)("options %j: change streams and transactions", async (options) => {
    const c = fresh();
    await c.insertOne({ _id: 0 });
    const expected = { pattern: "a.b # c", options };
    const stream = c.watch([], { fullDocument: "updateLookup" });
    const events: Document[] = [];
    const next = async () => events.push((await stream.next()) as Document);
    await stream.tryNext();
    await c.insertOne({ _id: 1, re: value(options) });
    await next();
    await c.updateOne({ _id: 1 }, { $set: { n: 1, other: value(options) } });
    await next();
    await stream.close();
    expect(shown(events[0].fullDocument.re)).toEqual(expected);
    expect(shown(events[1].fullDocument.re)).toEqual(expected);
    expect(shown(events[1].updateDescription.updatedFields.other)).toEqual(expected);

    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await c.insertOne({ _id: 2, re: value(options) }, { session });
        await c.updateOne({ _id: 1 }, { $set: { n: 2 } }, { session });
        expect(shown((await c.findOne({ _id: 2 }, { session }))!.re)).toEqual(expected);
        expect(shown((await c.findOne({ _id: 1 }, { session }))!.re)).toEqual(expected);
      });
    } finally {
      await session.endSession();
    }
    expect(shown((await c.findOne({ _id: 1 }))!.re)).toEqual(expected);
    expect(shown((await c.findOne({ _id: 2 }))!.re)).toEqual(expected);
  });

  it("a random pattern and options round-trip through insert, update of another field and find", async () => {
    const c = fresh();
    let id = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom("a", ".", " ", "#", "\n", "\\", "[", "]", "(", ")", "*", "é", "b") }),
        fc.subarray(["i", "l", "m", "s", "u", "x"]),
        async (pattern, flags) => {
          const options = flags.join("");
          const _id = id++;
          await c.insertOne({ _id, re: new BSONRegExp(pattern, options) });
          await c.updateOne({ _id }, { $set: { n: _id } });
          const doc = (await c.findOne({ _id }))!;
          expect(shown(doc.re)).toEqual({ pattern, options });
          expect(doc.n).toBe(_id);
        },
      ),
      { numRuns: 60 },
    );
  });
});

/** Strings that tell the options s, x and i apart: a newline, none, a space, and capitals. */
const LINES = [
  { _id: 1, s: "a\nb" },
  { _id: 2, s: "ab" },
  { _id: 3, s: "a b" },
  { _id: 4, s: "A\nB" },
];

describe("$regex with the options s and x matches as PCRE does", () => {
  it("s lets `.` match a newline; x ignores whitespace and # comments", async () => {
    const c = fresh();
    await c.insertMany(LINES);
    const ids = async (filter: Document) => (await c.find(filter, { sort: { _id: 1 } }).toArray()).map((d) => d._id);
    expect(await ids({ s: { $regex: "^a.b$" } })).toEqual([3]);
    expect(await ids({ s: { $regex: "^a.b$", $options: "s" } })).toEqual([1, 3]);
    expect(await ids({ s: { $regex: "^a.b$", $options: "is" } })).toEqual([1, 3, 4]);
    expect(await ids({ s: { $regex: "^a b$ # a comment", $options: "x" } })).toEqual([2]);
    expect(await ids({ s: { $regex: "^a\\ b$", $options: "x" } })).toEqual([3]);
    expect(await ids({ s: { $regex: "^a[ ]b$", $options: "x" } })).toEqual([3]);
    expect(await ids({ s: { $regex: "^a . b $", $options: "sx" } })).toEqual([1, 3]);
    expect(await ids({ s: new BSONRegExp("^a.b$", "s") })).toEqual([1, 3]);
    expect(await ids({ s: new BSONRegExp("^a b$ # c", "x") })).toEqual([2]);
    expect(await ids({ s: { $in: [new BSONRegExp("^A.B$", "is")] } })).toEqual([1, 3, 4]);
    expect(await ids({ s: { $not: new BSONRegExp("^a . b$", "sx") } })).toEqual([2, 4]);
    expect(await ids({ s: { $regex: new BSONRegExp("^a b$", "x") } })).toEqual([2]);
    expect(await ids({ s: { $regex: new BSONRegExp("^a b$"), $options: "x" } })).toEqual([2]);
    expect(await ids({ s: { $not: { $regex: "^a . b$", $options: "sx" } } })).toEqual([2, 4]);
    expect(
      await ids({ $or: [{ s: { $elemMatch: { $regex: "x" } } }, { s: { $regex: "^a # c\n b$", $options: "x" } }] }),
    ).toEqual([2]);
  });

  it("in an aggregation's $match", async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, s: "a\nb" },
      { _id: 2, s: "ab" },
    ]);
    const matched = await c.aggregate([{ $match: { s: { $regex: "^a . b$", $options: "sx" } } }]).toArray();
    expect(matched.map((d) => d._id)).toEqual([1]);
    const later = await c
      .aggregate([{ $project: { s: 1 } }, { $match: { s: { $regex: "^a . b$", $options: "sx" } } }])
      .toArray();
    expect(later.map((d) => d._id)).toEqual([1]);
  });

  it("refuses an option MongoDB has not, and options given twice", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, s: "ab" });
    await expect(c.findOne({ s: { $regex: "a", $options: "g" } })).rejects.toMatchObject({
      code: 51108,
      message: expect.stringContaining("invalid flag in regex options: g"),
    });
    await expect(c.findOne({ s: { $regex: new BSONRegExp("a", "i"), $options: "s" } })).rejects.toMatchObject({
      code: 51075,
    });
    // A stored regex may hold `l`; MongoDB 8's PCRE takes no such option in a pattern.
    await expect(c.findOne({ s: { $regex: "a", $options: "l" } })).rejects.toMatchObject({ code: 51108 });
    await expect(c.findOne({ s: new BSONRegExp("a", "l") })).rejects.toMatchObject({ code: 51108 });
    await expect(c.findOne({ s: { $in: [new BSONRegExp("a", "il")] } })).rejects.toMatchObject({ code: 51108 });
    expect(await c.countDocuments({ s: { $eq: new BSONRegExp("a", "l") } })).toBe(0);
  });
});

describe("$regexMatch, $regexFind and $regexFindAll read options as PCRE does", () => {
  const seeded = async () => {
    const c = fresh();
    await c.insertMany(LINES);
    return c;
  };
  /** Each document's value of the expression, in `_id` order. */
  const each = async (c: ReturnType<typeof fresh>, expr: Document) =>
    (await c.aggregate([{ $sort: { _id: 1 } }, { $project: { _id: 0, v: expr } }]).toArray()).map((d) => d.v);

  it("s, i, m and x, in options or in the regex itself", async () => {
    const c = await seeded();
    const match = (regex: unknown, options?: string) => each(c, { $regexMatch: { input: "$s", regex, options } });
    expect(await match("^a.b$")).toEqual([false, false, true, false]);
    expect(await match("^a.b$", "s")).toEqual([true, false, true, false]);
    expect(await match("^a.b$", "is")).toEqual([true, false, true, true]);
    expect(await match("^b", "m")).toEqual([true, false, false, false]);
    expect(await match("^a b$ # a comment", "x")).toEqual([false, true, false, false]);
    expect(await match("^a[ ]b$", "x")).toEqual([false, false, true, false]);
    expect(await match(new BSONRegExp("^a . b$", "sx"))).toEqual([true, false, true, false]);
    expect(await match(new BSONRegExp("^a . b$", "isx"))).toEqual([true, false, true, true]);
    expect(await match("^a.b$", "su")).toEqual([true, false, true, false]);
    expect(await match(null, "s")).toEqual([false, false, false, false]);
  });

  it("$regexFind and $regexFindAll: captures under x, positions in code points, matches searched on in the whole input", async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, date: "2026-11-29", emoji: "😀😀ab", a: "aaa", ab: "aab" });
    const [row] = await c
      .aggregate([
        {
          $project: {
            _id: 0,
            find: { $regexFind: { input: "$date", regex: "(\\d+) - (\\d+) # year and month", options: "x" } },
            emoji: { $regexFind: { input: "$emoji", regex: "b" } },
            anchored: { $regexFindAll: { input: "$a", regex: "^a" } },
            empty: { $regexFindAll: { input: "$ab", regex: "x*" } },
            greedy: { $regexFindAll: { input: "$ab", regex: "a*" } },
            optional: { $regexFind: { input: "$ab", regex: "(x)?(a)" } },
            none: { $regexFind: { input: "$a", regex: "z" } },
            missing: { $regexFindAll: { input: "$nothing", regex: "a" } },
          },
        },
      ])
      .toArray();
    expect(row).toEqual({
      find: { match: "2026-11", idx: 0, captures: ["2026", "11"] },
      emoji: { match: "b", idx: 3, captures: [] },
      anchored: [{ match: "a", idx: 0, captures: [] }],
      empty: [
        { match: "", idx: 0, captures: [] },
        { match: "", idx: 1, captures: [] },
        { match: "", idx: 2, captures: [] },
      ],
      greedy: [
        { match: "aa", idx: 0, captures: [] },
        { match: "", idx: 2, captures: [] },
      ],
      optional: { match: "a", idx: 0, captures: [null, "a"] },
      none: null,
      missing: [],
    });
  });

  it("refuses what MongoDB refuses, with its codes", async () => {
    const c = await seeded();
    const refused = (spec: unknown) => c.aggregate([{ $project: { v: { $regexMatch: spec } } }]).toArray();
    await expect(refused({ input: "$s", regex: "a", options: "g" })).rejects.toMatchObject({
      code: 51108,
      message: expect.stringContaining("$regexMatch invalid flag in regex options: g"),
    });
    await expect(refused({ input: "$s", regex: "a", options: "l" })).rejects.toMatchObject({ code: 51108 });
    await expect(refused({ input: "$s", regex: new BSONRegExp("a", "i"), options: "s" })).rejects.toMatchObject({
      code: 51107,
    });
    await expect(refused({ input: "$s", regex: new BSONRegExp("a", "i"), options: "" })).rejects.toMatchObject({
      code: 51107,
    });
    await expect(refused({ input: "$s", regex: "a", options: 1 })).rejects.toMatchObject({ code: 51106 });
    await expect(refused({ input: "$s", regex: 1 })).rejects.toMatchObject({ code: 51105 });
    await expect(refused({ input: 1, regex: "a" })).rejects.toMatchObject({ code: 51104 });
    await expect(refused({ input: "$s", regex: "(" })).rejects.toMatchObject({ code: 51111 });
    await expect(refused("a")).rejects.toMatchObject({ code: 51103 });
    await expect(refused({ input: "$s" })).rejects.toMatchObject({ code: 31023 });
    await expect(refused({ regex: "a" })).rejects.toMatchObject({ code: 31022 });
    await expect(refused({ input: "$s", regex: "a", flags: "i" })).rejects.toMatchObject({ code: 31024 });
    await expect(
      c.aggregate([{ $project: { v: { $regexFindAll: { input: "$s", regex: "a", options: "y" } } } }]).toArray(),
    ).rejects.toMatchObject({ code: 51108, message: expect.stringContaining("$regexFindAll invalid flag") });
  });

  it("refuses a constant bad pattern or option before reading, also on an empty collection", async () => {
    const c = fresh();
    const stage = (spec: Document) => c.aggregate([{ $project: { v: { $regexFind: spec } } }]).toArray();
    await expect(stage({ input: "$s", regex: "a", options: "g" })).rejects.toMatchObject({ code: 51108 });
    await expect(stage({ input: "$s", regex: "(" })).rejects.toMatchObject({ code: 51111 });
    await expect(stage({ input: "$s" })).rejects.toMatchObject({ code: 31023 });
    // Options read from a document are checked where a document is read: none here.
    expect(await stage({ input: "$s", regex: "a", options: "$o" })).toEqual([]);
  });

  it("in $expr of a find, and in an update pipeline", async () => {
    const c = await seeded();
    const found = await c
      .find({ $expr: { $regexMatch: { input: "$s", regex: "^A . B$", options: "isx" } } }, { sort: { _id: 1 } })
      .toArray();
    expect(found.map((d) => d._id)).toEqual([1, 3, 4]);
    await c.updateMany({}, [{ $set: { m: { $regexMatch: { input: "$s", regex: "a b # c", options: "x" } } } }]);
    expect((await c.find({ m: true }).toArray()).map((d) => d._id)).toEqual([2]);
  });
});

describe("a pattern in a filter also matches a stored regular expression equal to it", () => {
  for (const indexed of [false, true]) {
    it(`a field's pattern, $regex, $in, $nin, $all, $not, $elemMatch; $eq and $ne compare values only${indexed ? ", through an index" : ""}`, async () => {
      const c = fresh();
      if (indexed) await c.createIndex({ r: 1 });
      await c.insertMany([
        { _id: 1, r: new BSONRegExp("abc", "i") },
        { _id: 2, r: "xABCx" },
        { _id: 3, r: new BSONRegExp("abc") },
        { _id: 4, r: [new BSONRegExp("abc", "i"), "zzz"] },
        { _id: 5, r: new BSONRegExp("a b", "x") },
        { _id: 6, r: "ab" },
        { _id: 7, r: [["abc"]] },
        { _id: 8, r: new BSONRegExp("^abc") },
        { _id: 9, r: "abcd" },
      ]);
      const ids = async (filter: Document) => (await c.find(filter, { sort: { _id: 1 } }).toArray()).map((d) => d._id);
      const re = new BSONRegExp("abc", "i");
      expect(await ids({ r: re })).toEqual([1, 2, 4, 9]);
      expect(await ids({ r: { $regex: "abc", $options: "i" } })).toEqual([1, 2, 4, 9]);
      expect(await ids({ r: { $regex: re } })).toEqual([1, 2, 4, 9]);
      expect(await ids({ r: { $in: [re, "ab"] } })).toEqual([1, 2, 4, 6, 9]);
      expect(await ids({ r: { $nin: [re] } })).toEqual([3, 5, 6, 7, 8]);
      expect(await ids({ r: { $all: [re] } })).toEqual([1, 2, 4, 9]);
      expect(await ids({ r: { $not: re } })).toEqual([3, 5, 6, 7, 8]);
      expect(await ids({ r: { $elemMatch: { $regex: "abc", $options: "i" } } })).toEqual([4]);
      expect(await ids({ r: { $eq: re } })).toEqual([1, 4]);
      expect(await ids({ r: { $ne: re } })).toEqual([2, 3, 5, 6, 7, 8, 9]);
      expect(await ids({ r: new BSONRegExp("a b", "x") })).toEqual([5, 6, 9]);
      expect(await ids({ r: { $eq: new BSONRegExp("a b", "x") } })).toEqual([5]);
      expect(await ids({ r: { $eq: new BSONRegExp("ab") } })).toEqual([]);
      // An anchored pattern (an index bounds it by its prefix) and the stored regex of that same pattern.
      expect(await ids({ r: new BSONRegExp("^abc") })).toEqual([8, 9]);
      expect(await ids({ r: { $regex: "^abc" } })).toEqual([8, 9]);
      expect(await ids({ r: { $in: [new BSONRegExp("^abc"), "ab"] } })).toEqual([6, 8, 9]);
      // Under a collation the other values of $in compare by it; patterns and stored regexes do not.
      const collated = await c
        .find({ r: { $in: [re, "AB"] } }, { sort: { _id: 1 }, collation: { locale: "en", strength: 2 } })
        .toArray();
      expect(collated.map((d) => d._id)).toEqual([1, 2, 4, 6, 9]);
      const collatedAll = await c
        .find({ r: { $all: [re] } }, { sort: { _id: 1 }, collation: { locale: "en", strength: 2 } })
        .toArray();
      expect(collatedAll.map((d) => d._id)).toEqual([1, 2, 4, 9]);
      const collatedNot = await c
        .find({ r: { $not: re, $nin: ["AB"] } }, { sort: { _id: 1 }, collation: { locale: "en", strength: 2 } })
        .toArray();
      expect(collatedNot.map((d) => d._id)).toEqual([3, 5, 7, 8]);
      expect(await c.countDocuments({ r: new BSONRegExp("^abc") })).toBe(2);
      expect(await c.countDocuments({ r: re })).toBe(4);
      // A symbol (a deprecated BSON type) is matched as its string, as MongoDB does.
      await c.insertOne({ _id: 10, r: new BSONSymbol("zABCz") });
      expect(await ids({ r: re, _id: 10 })).toEqual([10]);
      await c.deleteOne({ _id: 10 });
      const matched = await c.aggregate([{ $match: { r: re } }, { $sort: { _id: 1 } }]).toArray();
      expect(matched.map((d) => d._id)).toEqual([1, 2, 4, 9]);
      expect((await c.deleteMany({ r: { $eq: re } })).deletedCount).toBe(2);
    });
  }
});
