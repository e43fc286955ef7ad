/**
 * Text indexes, `$text` and hashed indexes through the driver and Mongoose, with the answers
 * (documents, scores, index listings, errors) a MongoDB 8 server gives.
 */
import { type Collection, type Document } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { beforeAll, describe, expect, it } from "vitest";
import { serverFailure, tempDatabaseForThisFile } from "../testing/temp-server";
import { stem } from "./stemmer";

const embedded = tempDatabaseForThisFile("text", "text_test");

describe("the Porter2 stemmer", () => {
  it("stems as Snowball's English stemmer does", () => {
    const cases: Record<string, string> = {
      running: "run",
      runs: "run",
      caresses: "caress",
      ponies: "poni",
      ties: "tie",
      cats: "cat",
      gas: "gas",
      happiness: "happi",
      generously: "generous",
      coffee: "coffe",
      shops: "shop",
      agreed: "agre",
      hopping: "hop",
      hoped: "hope",
      national: "nation",
      relational: "relat",
      conditional: "condit",
      cries: "cri",
      skies: "sky",
      news: "news",
      communication: "communic",
      "dog's": "dog",
      sensational: "sensat",
      consignment: "consign",
      fluently: "fluentli",
      knightly: "knight",
      succeeding: "succeed",
      yelling: "yell",
    };
    for (const [word, expected] of Object.entries(cases)) expect([word, stem(word)]).toEqual([word, expected]);
  });
});

describe("text indexes", () => {
  let coll: Collection;

  beforeAll(async () => {
    coll = embedded.db.collection("articles");
    await coll.insertMany([
      { _id: 1 as never, title: "Coffee shop", body: "The best espresso in town" },
      { _id: 2 as never, title: "Tea", body: "Coffee is not served here, only tea" },
      { _id: 3 as never, title: "Shopping list", body: "milk, bread and coffee beans" },
      { _id: 4 as never, title: "Café culture", body: "Cafés and coffees across Europe" },
      { _id: 5 as never, title: "Nothing", body: "unrelated words entirely" },
    ]);
    await coll.createIndex({ title: "text", body: "text" }, { weights: { title: 10 }, name: "title_text_body_text" });
  });

  it("are listed in MongoDB's normalised form, and only one per collection is allowed", async () => {
    const index = (await coll.listIndexes().toArray()).find((i) => i.name === "title_text_body_text");
    expect(index).toEqual({
      v: 2,
      key: { _fts: "text", _ftsx: 1 },
      name: "title_text_body_text",
      weights: { body: 1, title: 10 },
      default_language: "english",
      language_override: "language",
      textIndexVersion: 3,
    });
    const second = await serverFailure(coll.createIndex({ body: "text" }));
    expect(second.code).toBe(67);
    expect(second.message).toBe(
      'only one text index per collection allowed, found existing text index "title_text_body_text"',
    );
  });

  it("finds stemmed terms and scores them with MongoDB's formula", async () => {
    const found = await coll
      .find({ $text: { $search: "coffee" } }, { projection: { score: { $meta: "textScore" } } })
      .sort({ score: { $meta: "textScore" } })
      .toArray();
    // Score of a term: weight × frequency × (0.5 × count / terms in the field + 0.5), stop words not counted.
    // "Coffee shop" (title, weight 10, 2 terms): 10 × 0.75. "Coffee is not served here, only tea" (coffe, serv, tea): 0.5/3 + 0.5.
    // "milk, bread and coffee beans" and "Cafés and coffees across Europe" (4 terms each): 0.5/4 + 0.5.
    expect(found.map((d) => d._id)).toEqual([1, 2, 3, 4]);
    expect(found[0].score).toBe(7.5);
    expect(found[1].score).toBeCloseTo(2 / 3, 12);
    expect(found[2].score).toBe(0.625);
    expect(found[3].score).toBe(0.625);
  });

  it("reads phrases, negations, $caseSensitive and $diacriticSensitive", async () => {
    const ids = async (filter: Document) => (await coll.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ $text: { $search: '"coffee beans"' } })).toEqual([3]);
    expect(await ids({ $text: { $search: "coffee -tea" } })).toEqual([1, 3, 4]);
    expect(await ids({ $text: { $search: 'coffee -"espresso in town"' } })).toEqual([2, 3, 4]);
    expect(await ids({ $text: { $search: "-coffee" } })).toEqual([]);
    expect(await ids({ $text: { $search: "Coffee", $caseSensitive: true } })).toEqual([1, 2]);
    expect(await ids({ $text: { $search: "cafe" } })).toEqual([4]);
    expect(await ids({ $text: { $search: "cafe", $diacriticSensitive: true } })).toEqual([]);
    expect(await ids({ $text: { $search: "the and" } })).toEqual([]);
    expect(await ids({ $text: { $search: "coffee" }, title: { $regex: /^S/ } })).toEqual([3]);
    expect(await coll.countDocuments({ $text: { $search: "tea" } })).toBe(1);
  });

  it("gives the score in aggregation and refuses $text outside the first $match", async () => {
    const rows = await coll
      .aggregate([
        { $match: { $text: { $search: "shop" } } },
        { $sort: { score: { $meta: "textScore" } } },
        { $project: { title: 1, score: { $meta: "textScore" } } },
      ])
      .toArray();
    expect(rows).toEqual([
      { _id: 1, title: "Coffee shop", score: 7.5 },
      { _id: 3, title: "Shopping list", score: 7.5 },
    ]);
    // Projected first, sorted after: the score is still there to sort by.
    const projectedFirst = await coll
      .aggregate([
        { $match: { $text: { $search: "coffee" } } },
        { $project: { score: { $meta: "textScore" } } },
        { $sort: { score: { $meta: "textScore" } } },
      ])
      .toArray();
    expect(projectedFirst.map((d) => d._id)).toEqual([1, 2, 3, 4]);
    expect(projectedFirst[0]).toEqual({ _id: 1, score: 7.5 });
    const late = await serverFailure(
      coll.aggregate([{ $sort: { _id: 1 } }, { $match: { $text: { $search: "shop" } } }]).toArray(),
    );
    expect(late.code).toBe(17313);
  });

  it("needs a text index, and equality on the prefix of a compound one", async () => {
    await embedded.db.collection("no_text").insertOne({ x: "x" });
    const none = await serverFailure(
      embedded.db
        .collection("no_text")
        .find({ $text: { $search: "x" } })
        .toArray(),
    );
    expect(none.code).toBe(27);
    expect(none.message).toBe("text index required for $text query");
    const compound = embedded.db.collection("compound_text");
    await compound.insertMany([
      { _id: 1 as never, shop: "a", name: "red apple" },
      { _id: 2 as never, shop: "b", name: "red pepper" },
    ]);
    await compound.createIndex({ shop: 1, name: "text" });
    expect((await compound.find({ shop: "b", $text: { $search: "red" } }).toArray()).map((d) => d._id)).toEqual([2]);
    expect((await serverFailure(compound.find({ $text: { $search: "red" } }).toArray())).code).toBe(2);
    expect((await compound.listIndexes().toArray())[1].key).toEqual({ shop: 1, _fts: "text", _ftsx: 1 });
  });

  it("takes default_language none, a per-document language, and refuses languages it cannot stem", async () => {
    const plain = embedded.db.collection("plain");
    await plain.insertMany([
      { _id: 1 as never, t: "running the shops" },
      { _id: 2 as never, t: "run the shop", language: "english" },
    ]);
    await plain.createIndex({ t: "text" }, { default_language: "none" });
    expect((await plain.find({ $text: { $search: "the" } }).toArray()).map((d) => d._id)).toEqual([1]);
    expect((await plain.find({ $text: { $search: "shops" } }).toArray()).map((d) => d._id)).toEqual([1]);
    expect(
      (await plain.find({ $text: { $search: "shops", $language: "english" } }).toArray()).map((d) => d._id),
    ).toEqual([2]);
    const french = await serverFailure(plain.insertOne({ t: "bonjour", language: "french" }));
    expect(french.message).toMatch(/french.*MONGODB_URI/);
    const klingon = await serverFailure(plain.insertOne({ t: "nuqneH", language: "klingon" }));
    expect(klingon.code).toBe(17262);
    const index = await serverFailure(
      embedded.db.collection("fr").createIndex({ t: "text" }, { default_language: "french" }),
    );
    expect(index.code).toBe(67);
  });
});

describe("text search through Mongoose", () => {
  it("sorts and projects by text score, with a discriminator", async () => {
    const conn = await mongoose
      .createConnection(embedded.server.uri, { dbName: "text_mongoose", autoIndex: true })
      .asPromise();
    try {
      const schema = new Schema({ title: String, kind: String }, { discriminatorKey: "kind" });
      schema.index({ title: "text" });
      const Post = conn.model("Post", schema);
      const Event = Post.discriminator("Event", new Schema({ at: Date }));
      await Post.init();
      await Post.create([{ title: "text search text" }, { title: "search" }, { title: "unrelated" }]);
      await Event.create({ title: "text event", at: new Date(0) });
      const posts = await Post.find({ $text: { $search: "text" } }, { score: { $meta: "textScore" } })
        .sort({ score: { $meta: "textScore" } })
        .lean();
      expect(posts.map((p) => p.title)).toEqual(["text search text", "text event"]);
      expect((posts[0] as unknown as { score: number }).score).toBeGreaterThan(
        (posts[1] as unknown as { score: number }).score,
      );
      const events = await Event.find({ $text: { $search: "text" } })
        .select({ score: { $meta: "textScore" } })
        .lean();
      expect(events).toHaveLength(1);
      expect((events[0] as unknown as { score: number }).score).toBe(0.75);
      // syncIndexes keeps the text index it finds equal to the schema's.
      expect(await Post.syncIndexes()).toEqual([]);
      expect((await Post.diffIndexes()).toCreate).toEqual([]);
    } finally {
      await conn.close();
    }
  });
});

describe("compound text indexes through Mongoose", () => {
  it("are found equal to the schema's by syncIndexes, and refuse a collation", async () => {
    const conn = await mongoose
      .createConnection(embedded.server.uri, { dbName: "text_mongoose_compound", autoIndex: false })
      .asPromise();
    try {
      const schema = new Schema({ title: String, category: String });
      schema.index({ category: 1, title: "text" }, { weights: { title: 3 } });
      const Item = conn.model("Item", schema);
      await Item.syncIndexes();
      const index = (await Item.listIndexes()).find((i) => i.name === "category_1_title_text");
      expect(index).toMatchObject({ key: { category: 1, _fts: "text", _ftsx: 1 }, weights: { title: 3 } });
      expect(await Item.diffIndexes()).toEqual({ toDrop: [], toCreate: [] });
      expect(await Item.syncIndexes()).toEqual([]);
      const collation = await serverFailure(
        conn.db!.collection("collated").createIndex({ t: "text" }, { collation: { locale: "en" } }),
      );
      expect(collation.code).toBe(67);
    } finally {
      await conn.close();
    }
  });
});

describe("hashed indexes", () => {
  it("are created and listed as MongoDB does, and answer equalities through the index", async () => {
    const coll = embedded.db.collection("hashed");
    await coll.insertMany([
      { _id: 1 as never, t: "a" },
      { _id: 2 as never, t: "b" },
      { _id: 3 as never, t: "a" },
    ]);
    expect(await coll.createIndex({ t: "hashed" })).toBe("t_hashed");
    expect((await coll.listIndexes().toArray())[1]).toEqual({ v: 2, key: { t: "hashed" }, name: "t_hashed" });
    const plan = (await coll.find({ t: "a" }).explain()) as Document;
    expect(plan.queryPlanner.winningPlan).toMatchObject({ stage: "IXSCAN", indexName: "t_hashed" });
    expect((await coll.find({ t: "a" }).toArray()).map((d) => d._id)).toEqual([1, 3]);
    // Ranges cannot use it.
    expect(((await coll.find({ t: { $gt: "a" } }).explain()) as Document).queryPlanner.winningPlan.stage).toBe(
      "COLLSCAN",
    );
    expect((await coll.find({ t: { $gt: "a" } }).toArray()).map((d) => d._id)).toEqual([2]);
    const array = await serverFailure(coll.insertOne({ t: ["x", "y"] }));
    expect(array.code).toBe(16766);
    const unique = await serverFailure(coll.createIndex({ u: "hashed" }, { unique: true }));
    expect(unique.code).toBe(67);
  });
});

describe("server-side JavaScript", () => {
  it("stays refused, naming the operator and MONGODB_URI", async () => {
    const coll = embedded.db.collection("scripts");
    await coll.insertOne({ a: 1 });
    for (const run of [
      () => coll.find({ $where: "this.a == 1" }).toArray(),
      () => coll.updateOne({ $where: "true" }, { $set: { b: 1 } }),
      () =>
        coll
          .aggregate([{ $project: { x: { $function: { body: "function() { return 1 }", args: [], lang: "js" } } } }])
          .toArray(),
    ]) {
      const err = await serverFailure(run());
      expect(err.code).toBe(2);
      expect(err.message).toMatch(
        /^\$(where|function) \(server-side JavaScript\) is not supported by the embedded database: set MONGODB_URI/,
      );
    }
  });
});
