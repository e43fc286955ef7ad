/**
 * Mongoose 9 and the mongodb 7 driver on the embedded database, over TCP, as the application
 * uses them. Every expectation is what a real MongoDB 7.0 server answers.
 */
import type { CommandStartedEvent, CommandSucceededEvent } from "mongodb";
import mongoose, { Schema, Types, type Connection } from "mongoose";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { caught, tempServerForThisFile } from "./testing/temp-server";

const DB = "mongoose_test";
const server = tempServerForThisFile("mongoose");
let conn: Connection;

beforeAll(async () => {
  conn = await mongoose
    .createConnection(server.uri, { dbName: DB, monitorCommands: true, autoIndex: true })
    .asPromise();
});

afterAll(async () => {
  await conn?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` and returns the commands the driver sent meanwhile, with their replies. */
async function recordCommands<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; started: CommandStartedEvent[]; succeeded: CommandSucceededEvent[] }> {
  const client = conn.getClient();
  const started: CommandStartedEvent[] = [];
  const succeeded: CommandSucceededEvent[] = [];
  const onStart = (e: CommandStartedEvent) => started.push(e);
  const onSuccess = (e: CommandSucceededEvent) => succeeded.push(e);
  client.on("commandStarted", onStart);
  client.on("commandSucceeded", onSuccess);
  try {
    return { result: await fn(), started, succeeded };
  } finally {
    client.off("commandStarted", onStart);
    client.off("commandSucceeded", onSuccess);
  }
}

describe("timestamps", () => {
  const Note = () => conn.models.Note ?? conn.model("Note", new Schema({ text: String }, { timestamps: true }));

  it("sets createdAt and updatedAt on create, and advances only updatedAt on update", async () => {
    const before = Date.now();
    const created = await Note().create({ text: "first" });
    const stored = await Note().findById(created._id).lean<{ createdAt: Date; updatedAt: Date }>();
    expect(stored?.createdAt).toBeInstanceOf(Date);
    expect(stored?.updatedAt).toBeInstanceOf(Date);
    expect(stored!.createdAt.getTime()).toBe(stored!.updatedAt.getTime());
    expect(stored!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1);

    await sleep(15);
    await Note().updateOne({ _id: created._id }, { $set: { text: "second" } });
    const updated = await Note().findById(created._id).lean<{ text: string; createdAt: Date; updatedAt: Date }>();
    expect(updated?.text).toBe("second");
    expect(updated!.createdAt.getTime()).toBe(stored!.createdAt.getTime());
    expect(updated!.updatedAt.getTime()).toBeGreaterThan(stored!.updatedAt.getTime());

    await sleep(15);
    const doc = await Note().findById(created._id);
    doc!.set("text", "third");
    await doc!.save();
    const saved = await Note().findById(created._id).lean<{ createdAt: Date; updatedAt: Date }>();
    expect(saved!.createdAt.getTime()).toBe(stored!.createdAt.getTime());
    expect(saved!.updatedAt.getTime()).toBeGreaterThan(updated!.updatedAt.getTime());
  });
});

describe("unique indexes", () => {
  interface Account {
    email: string;
    name?: string;
  }
  const Account = () =>
    conn.models.Account ??
    conn.model<Account>("Account", new Schema<Account>({ email: { type: String, unique: true }, name: String }));

  beforeAll(async () => {
    await Account().init();
  });

  it("refuses a duplicate insert with MongoDB's duplicate key error", async () => {
    await Account().create({ email: "ada@example.com", name: "Ada" });
    const err = await caught(Account().create({ email: "ada@example.com", name: "Other" }));
    expect(err.name).toBe("MongoServerError");
    expect(err.code).toBe(11000);
    expect(err.keyPattern).toEqual({ email: 1 });
    expect(err.keyValue).toEqual({ email: "ada@example.com" });
    expect(err.message).toBe(
      `E11000 duplicate key error collection: ${DB}.accounts index: email_1 dup key: { email: "ada@example.com" }`,
    );
    expect(await Account().countDocuments({ email: "ada@example.com" })).toBe(1);
  });

  it("refuses an update that would duplicate a key, and leaves the document as it was", async () => {
    await Account().create({ email: "bob@example.com", name: "Bob" });
    const err = await caught(Account().updateOne({ email: "bob@example.com" }, { $set: { email: "ada@example.com" } }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ email: "ada@example.com" });
    expect(err.message).toMatch(
      /^E11000 duplicate key error collection: mongoose_test\.accounts index: email_1 dup key: \{ email: "ada@example\.com" \}$/,
    );
    expect(await Account().findOne({ name: "Bob" }).lean()).toMatchObject({ email: "bob@example.com" });
  });

  it("stops an ordered insertMany at the duplicate, keeping the documents before it", async () => {
    const err = await caught(
      Account().insertMany([
        { email: "c1@example.com" },
        { email: "c2@example.com" },
        { email: "c1@example.com" },
        { email: "c3@example.com" },
      ]),
    );
    expect(err.code).toBe(11000);
    const emails = (await Account().find({ email: /^c\d@/ }).sort({ email: 1 }).lean()).map((a) => a.email);
    expect(emails).toEqual(["c1@example.com", "c2@example.com"]);
  });

  it("lists the index with listIndexes", async () => {
    const indexes = await Account().listIndexes();
    expect(indexes.map((i) => i.name).sort()).toEqual(["_id_", "email_1"]);
    expect(indexes.find((i) => i.name === "email_1")).toMatchObject({ key: { email: 1 }, unique: true });
    expect(indexes.find((i) => i.name === "_id_")).toMatchObject({ key: { _id: 1 } });
  });
});

describe("queries", () => {
  interface Item {
    sku: string;
    qty: number;
  }
  interface Order {
    code: string;
    status: string;
    placedAt: Date;
    tags: string[];
    items: Item[];
    scores: number[];
  }
  const Order = () =>
    conn.models.Order ??
    conn.model<Order>(
      "Order",
      new Schema<Order>({
        code: String,
        status: String,
        placedAt: Date,
        tags: [String],
        items: [new Schema<Item>({ sku: String, qty: Number }, { _id: false })],
        scores: [Number],
      }),
    );
  const day = (d: number) => new Date(Date.UTC(2024, 0, d));

  beforeAll(async () => {
    await Order().insertMany([
      {
        code: "A-100",
        status: "open",
        placedAt: day(1),
        tags: ["red", "small"],
        items: [
          { sku: "pen", qty: 2 },
          { sku: "ink", qty: 1 },
        ],
        scores: [1, 9],
      },
      {
        code: "A-101",
        status: "paid",
        placedAt: day(5),
        tags: ["blue"],
        items: [{ sku: "pen", qty: 10 }],
        scores: [5],
      },
      {
        code: "B-200",
        status: "shipped",
        placedAt: day(10),
        tags: ["red", "large", "fragile"],
        items: [{ sku: "vase", qty: 1 }],
        scores: [],
      },
      {
        code: "b-201",
        status: "open",
        placedAt: day(15),
        tags: [],
        items: [
          { sku: "ink", qty: 7 },
          { sku: "pen", qty: 1 },
        ],
        scores: [2, 3],
      },
      { code: "C-300", status: "cancelled", placedAt: day(20), tags: ["small", "red"], items: [], scores: [10, 20] },
    ]);
  });

  const codes = async (filter: mongoose.QueryFilter<Order>) =>
    (await Order().find(filter).sort({ code: 1 }).lean()).map((o) => o.code);

  it("$in", async () => {
    expect(await codes({ status: { $in: ["open", "paid"] } })).toEqual(["A-100", "A-101", "b-201"]);
    expect(await codes({ status: { $nin: ["open", "paid"] } })).toEqual(["B-200", "C-300"]);
    expect(await codes({ status: { $in: [] } })).toEqual([]);
  });

  it("$regex", async () => {
    expect(await codes({ code: /^A-/ })).toEqual(["A-100", "A-101"]);
    expect(await codes({ code: /^b-/i })).toEqual(["B-200", "b-201"]);
    expect(await codes({ code: { $regex: "0[01]$" } })).toEqual(["A-100", "A-101", "B-200", "C-300", "b-201"]);
    expect(await codes({ code: { $regex: "^c", $options: "i" } })).toEqual(["C-300"]);
  });

  it("$gte and $lt on dates", async () => {
    expect(await codes({ placedAt: { $gte: day(5) } })).toEqual(["A-101", "B-200", "C-300", "b-201"]);
    expect(await codes({ placedAt: { $gte: day(5), $lt: day(15) } })).toEqual(["A-101", "B-200"]);
    expect(await codes({ placedAt: { $gt: day(20) } })).toEqual([]);
  });

  it("matches an array by one element, by $all, by $size and as a whole", async () => {
    expect(await codes({ tags: "red" })).toEqual(["A-100", "B-200", "C-300"]);
    expect(await codes({ tags: { $all: ["red", "small"] } })).toEqual(["A-100", "C-300"]);
    expect(await codes({ tags: { $size: 0 } })).toEqual(["b-201"]);
    expect(await codes({ tags: ["red", "small"] })).toEqual(["A-100"]);
    expect(await codes({ tags: { $in: ["blue", "fragile"] } })).toEqual(["A-101", "B-200"]);
  });

  it("matches arrays of numbers element by element", async () => {
    // Without $elemMatch each condition may be met by a different element.
    expect(await codes({ scores: { $gt: 4, $lt: 6 } })).toEqual(["A-100", "A-101"]);
    expect(await codes({ scores: { $elemMatch: { $gt: 4, $lt: 6 } } })).toEqual(["A-101"]);
  });

  it("$elemMatch and dotted paths into arrays of subdocuments", async () => {
    expect(await codes({ "items.sku": "pen" })).toEqual(["A-100", "A-101", "b-201"]);
    expect(await codes({ items: { $elemMatch: { sku: "pen", qty: { $gte: 2 } } } })).toEqual(["A-100", "A-101"]);
    // Dotted conditions on different elements still match together: b-201 has ink×7 and pen×1.
    expect(await codes({ "items.sku": "pen", "items.qty": { $gte: 7 } })).toEqual(["A-101", "b-201"]);
    expect(await codes({ "items.0.sku": "ink" })).toEqual(["b-201"]);
    expect(await codes({ "items.sku": { $exists: false } })).toEqual(["C-300"]);
  });

  it("countDocuments", async () => {
    expect(await Order().countDocuments()).toBe(5);
    expect(await Order().countDocuments({ tags: "red" })).toBe(3);
    expect(await Order().countDocuments({ status: "none" })).toBe(0);
    expect(await Order().estimatedDocumentCount()).toBe(5);
  });

  it("distinct, unwinding arrays", async () => {
    expect((await Order().distinct("status")).sort()).toEqual(["cancelled", "open", "paid", "shipped"]);
    expect((await Order().distinct("tags")).sort()).toEqual(["blue", "fragile", "large", "red", "small"]);
    expect((await Order().distinct("items.sku", { status: "open" })).sort()).toEqual(["ink", "pen"]);
  });
});

describe("sort, skip and limit", () => {
  interface Player {
    name: string;
    score: number;
    team: string;
  }
  const Player = () =>
    conn.models.Player ??
    conn.model<Player>("Player", new Schema<Player>({ name: String, score: Number, team: String }));
  const players = Array.from({ length: 47 }, (_, i) => ({
    name: `p${String(i).padStart(2, "0")}`,
    score: (i * 37) % 101,
    team: ["x", "y", "z"][i % 3],
  }));

  beforeAll(async () => {
    // Inserted in an order unrelated to the sort order.
    await Player().insertMany(
      [...players].sort((a, b) => (a.name.split("").reverse().join("") < b.name.split("").reverse().join("") ? -1 : 1)),
    );
  });

  it("pages in exact order, without overlap or gap", async () => {
    const expected = [...players].sort((a, b) => b.score - a.score).map((p) => p.name);
    const pages: string[][] = [];
    for (let page = 0; page < 5; page++) {
      const rows = await Player()
        .find()
        .sort({ score: -1 })
        .skip(page * 10)
        .limit(10)
        .lean();
      pages.push(rows.map((r) => r.name));
    }
    expect(pages.map((p) => p.length)).toEqual([10, 10, 10, 10, 7]);
    expect(pages.flat()).toEqual(expected);
    expect(new Set(pages.flat()).size).toBe(47);
  });

  it("sorts by several keys with ties broken by the second", async () => {
    const rows = await Player()
      .find({ team: { $in: ["x", "y"] } })
      .sort({ team: 1, score: 1 })
      .skip(3)
      .limit(5)
      .lean();
    const expected = players
      .filter((p) => p.team !== "z")
      .sort((a, b) => (a.team === b.team ? a.score - b.score : a.team < b.team ? -1 : 1))
      .slice(3, 8)
      .map((p) => p.name);
    expect(rows.map((r) => r.name)).toEqual(expected);
  });

  it("skips past the end to an empty page", async () => {
    expect(await Player().find().sort({ score: 1 }).skip(47).limit(10).lean()).toEqual([]);
  });
});

describe("updates", () => {
  interface Counter {
    key: string;
    n: number;
    tags: string[];
    createdBy?: string;
    note?: string;
  }
  const Counter = () =>
    conn.models.Counter ??
    conn.model<Counter>(
      "Counter",
      new Schema<Counter>({ key: String, n: Number, tags: [String], createdBy: String, note: String }),
    );

  beforeEach(async () => {
    await Counter().deleteMany({});
  });

  it("findOneAndUpdate returns the document after $inc and $addToSet with returnDocument 'after' or new", async () => {
    await Counter().create({ key: "a", n: 1, tags: ["x"] });
    const after = await Counter()
      .findOneAndUpdate(
        { key: "a" },
        { $inc: { n: 5 }, $addToSet: { tags: { $each: ["x", "y", "y"] } } },
        { returnDocument: "after" },
      )
      .lean();
    expect(after).toMatchObject({ key: "a", n: 6, tags: ["x", "y"] });

    const before = await Counter()
      .findOneAndUpdate({ key: "a" }, { $inc: { n: -2 }, $addToSet: { tags: "z" } })
      .lean();
    expect(before).toMatchObject({ n: 6, tags: ["x", "y"] });

    const withNew = await Counter()
      .findOneAndUpdate({ key: "a" }, { $addToSet: { tags: "x" } }, { new: true })
      .lean();
    expect(withNew).toMatchObject({ n: 4, tags: ["x", "y", "z"] });
    expect(await Counter().findOne({ key: "a" }).lean()).toMatchObject({ n: 4, tags: ["x", "y", "z"] });
  });

  it("findOneAndUpdate with upsert creates the document and returns it", async () => {
    const created = await Counter()
      .findOneAndUpdate({ key: "new" }, { $inc: { n: 1 } }, { upsert: true, returnDocument: "after" })
      .lean();
    expect(created).toMatchObject({ key: "new", n: 1 });
    expect(created?._id).toBeInstanceOf(Types.ObjectId);
    expect(
      await Counter()
        .findOneAndUpdate({ key: "missing" }, { $inc: { n: 1 } })
        .lean(),
    ).toBeNull();
  });

  it("upserts with $setOnInsert applied on insert only", async () => {
    const first = await Counter().updateOne(
      { key: "u" },
      { $set: { note: "one" }, $setOnInsert: { createdBy: "seed", n: 0 } },
      { upsert: true },
    );
    expect(first).toMatchObject({ acknowledged: true, matchedCount: 0, modifiedCount: 0, upsertedCount: 1 });
    expect(first.upsertedId).toBeInstanceOf(Types.ObjectId);
    expect(await Counter().findById(first.upsertedId).lean()).toMatchObject({
      key: "u",
      note: "one",
      createdBy: "seed",
      n: 0,
    });

    const second = await Counter().updateOne(
      { key: "u" },
      { $set: { note: "two" }, $setOnInsert: { createdBy: "other" } },
      { upsert: true },
    );
    expect(second).toMatchObject({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null });
    expect(await Counter().findOne({ key: "u" }).lean()).toMatchObject({ note: "two", createdBy: "seed" });
    expect(await Counter().countDocuments({ key: "u" })).toBe(1);
  });

  it("updateMany counts matched and modified documents; deleteMany counts deleted ones", async () => {
    await Counter().insertMany([
      { key: "m1", n: 1 },
      { key: "m2", n: 2 },
      { key: "m3", n: 3, note: "done" },
      { key: "other", n: 4 },
    ]);
    const updated = await Counter().updateMany({ key: /^m/ }, { $set: { note: "done" } });
    expect(updated).toMatchObject({ acknowledged: true, matchedCount: 3, modifiedCount: 2, upsertedCount: 0 });
    expect(await Counter().countDocuments({ note: "done" })).toBe(3);

    const none = await Counter().updateMany({ key: "nope" }, { $set: { note: "x" } });
    expect(none).toMatchObject({ matchedCount: 0, modifiedCount: 0 });

    const deleted = await Counter().deleteMany({ n: { $lte: 2 } });
    expect(deleted).toMatchObject({ acknowledged: true, deletedCount: 2 });
    expect((await Counter().find().sort({ key: 1 }).lean()).map((c) => c.key)).toEqual(["m3", "other"]);
    expect(await Counter().deleteMany({ n: 99 })).toMatchObject({ deletedCount: 0 });
  });
});

describe("field order", () => {
  it("stores _id first whatever its place in the inserted document, as MongoDB does", async () => {
    const raw = conn.db!.collection("field_order");
    await raw.insertOne({ key: "k", n: 3, _id: 7 as never });
    expect(Object.keys((await raw.findOne({ _id: 7 as never }))!)).toEqual(["_id", "key", "n"]);
  });

  it("counts an update that changes nothing as matched, not modified", async () => {
    const raw = conn.db!.collection("field_order");
    // The driver appends a generated _id after the document's own fields.
    await raw.insertOne({ key: "same", n: 3 });
    const result = await raw.updateOne({ key: "same" }, { $set: { n: 3 } });
    expect(result).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
  });
});

describe("_id in update operators", () => {
  it("upserts with the _id given by $setOnInsert, and refuses to change an existing _id", async () => {
    const raw = conn.db!.collection("upsert_ids");
    const id = new Types.ObjectId();
    const upsert = await raw.updateOne({ name: "a" }, { $setOnInsert: { _id: id, v: 1 } }, { upsert: true });
    expect(upsert.upsertedId?.toString()).toBe(id.toString());
    expect(await raw.findOne({ name: "a" })).toEqual({ _id: id, name: "a", v: 1 });
    const same = await raw.updateOne({ _id: id }, { $set: { _id: id, v: 2 } });
    expect(same).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    await expect(raw.updateOne({ _id: id }, { $set: { _id: new Types.ObjectId() } })).rejects.toMatchObject({
      code: 66,
    });
  });
});

describe("populate and aggregate across collections", () => {
  interface Author {
    name: string;
    country: string;
  }
  interface Book {
    title: string;
    author: Types.ObjectId;
    year: number;
    pages: number;
  }
  const Author = () =>
    conn.models.Author ?? conn.model<Author>("Author", new Schema<Author>({ name: String, country: String }));
  const Book = () =>
    conn.models.Book ??
    conn.model<Book>(
      "Book",
      new Schema<Book>({
        title: String,
        author: { type: Schema.Types.ObjectId, ref: "Author" },
        year: Number,
        pages: Number,
      }),
    );
  let ids: Record<string, Types.ObjectId>;

  beforeAll(async () => {
    const [le, bo, ca] = await Author().insertMany([
      { name: "Le Guin", country: "US" },
      { name: "Borges", country: "AR" },
      { name: "Calvino", country: "IT" },
    ]);
    ids = { le: le._id, bo: bo._id, ca: ca._id };
    await Book().insertMany([
      { title: "The Dispossessed", author: le._id, year: 1974, pages: 387 },
      { title: "The Left Hand of Darkness", author: le._id, year: 1969, pages: 304 },
      { title: "Ficciones", author: bo._id, year: 1944, pages: 174 },
      { title: "Invisible Cities", author: ca._id, year: 1972, pages: 165 },
      { title: "If on a winter's night", author: ca._id, year: 1979, pages: 260 },
    ]);
  });

  it("populates a reference from another collection", async () => {
    const books = await Book()
      .find({ year: { $gte: 1970 } })
      .sort({ year: 1 })
      .populate("author", "name -_id")
      .lean<Array<{ title: string; author: Author }>>();
    expect(books.map((b) => [b.title, b.author])).toEqual([
      ["Invisible Cities", { name: "Calvino" }],
      ["The Dispossessed", { name: "Le Guin" }],
      ["If on a winter's night", { name: "Calvino" }],
    ]);
  });

  it("aggregates with $match, $group, $lookup and $sort", async () => {
    const rows = await Book().aggregate<{ _id: Types.ObjectId; books: number; pages: number; author: Author[] }>([
      { $match: { year: { $gte: 1950 } } },
      { $group: { _id: "$author", books: { $sum: 1 }, pages: { $sum: "$pages" } } },
      { $lookup: { from: "authors", localField: "_id", foreignField: "_id", as: "author" } },
      { $sort: { pages: -1 } },
    ]);
    expect(
      rows.map((r) => ({ id: String(r._id), books: r.books, pages: r.pages, name: r.author.map((a) => a.name) })),
    ).toEqual([
      { id: String(ids.le), books: 2, pages: 691, name: ["Le Guin"] },
      { id: String(ids.ca), books: 2, pages: 425, name: ["Calvino"] },
    ]);
  });

  it("$lookup with no match gives an empty array", async () => {
    const [row] = await Author().aggregate<{ name: string; books: Book[] }>([
      { $match: { name: "Borges" } },
      { $lookup: { from: "books", localField: "_id", foreignField: "author", as: "books" } },
      { $project: { _id: 0, name: 1, "books.title": 1 } },
    ]);
    expect(row).toEqual({ name: "Borges", books: [{ title: "Ficciones" }] });
    const [none] = await Author().aggregate([
      { $match: { name: "Calvino" } },
      { $lookup: { from: "nothing", localField: "_id", foreignField: "x", as: "found" } },
    ]);
    expect(none.found).toEqual([]);
  });
});

describe("a cursor of 1,000 documents", () => {
  interface Row {
    seq: number;
  }
  const Row = () => conn.models.Row ?? conn.model<Row>("Row", new Schema<Row>({ seq: Number }));

  beforeAll(async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ seq: (i * 7919) % 1000 }));
    await Row().insertMany(rows);
  });

  it("hands out every document once, in order, in batches of 101 fetched with getMore", async () => {
    const {
      result: seqs,
      started,
      succeeded,
    } = await recordCommands(async () => {
      const out: number[] = [];
      for await (const row of Row().find().sort({ seq: 1 }).batchSize(101).lean().cursor()) out.push((row as Row).seq);
      return out;
    });
    expect(seqs).toHaveLength(1000);
    expect(new Set(seqs).size).toBe(1000);
    expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => i));

    const find = started.filter((e) => e.commandName === "find");
    expect(find).toHaveLength(1);
    expect(find[0].command.batchSize).toBe(101);
    const getMores = started.filter((e) => e.commandName === "getMore");
    // 101 in the first batch, then 899 in batches of at most 101.
    expect(getMores).toHaveLength(9);
    for (const g of getMores) expect(g.command.batchSize).toBe(101);
    const batches = succeeded
      .filter((e) => e.commandName === "find" || e.commandName === "getMore")
      .map((e) => (e.reply as { cursor: { firstBatch?: unknown[]; nextBatch?: unknown[] } }).cursor)
      .map((c) => (c.firstBatch ?? c.nextBatch)!.length);
    expect(batches).toEqual([101, 101, 101, 101, 101, 101, 101, 101, 101, 91]);
  });
});
