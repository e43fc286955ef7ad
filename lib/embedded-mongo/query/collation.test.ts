/**
 * Collations on the embedded database, through the mongodb driver and Mongoose as an application
 * uses them: queries, sorts, groups, writes and unique indexes follow the collation a command, an
 * index or a collection names; what Intl.Collator cannot express is refused. Every expectation is
 * what a MongoDB server answers.
 */
import { type CollationOptions, type Collection, type Document, type MongoServerError } from "mongodb";
import mongoose, { Schema, type Connection } from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caught, tempDatabaseForThisFile } from "../testing/temp-server";

const embedded = tempDatabaseForThisFile("collation", "collation_test");

const CASE_INSENSITIVE = { locale: "en", strength: 2 };
const BASE_LETTERS = { locale: "en_US", strength: 1 };

async function fresh(name: string, docs: Document[]): Promise<Collection> {
  const coll = embedded.db.collection(name);
  await coll.drop().catch(() => undefined);
  if (docs.length) await coll.insertMany(docs);
  return coll;
}

const names = (docs: Document[]) => docs.map((d) => d.name as string);

describe("a collation on an operation", () => {
  const people = [
    { _id: 1, name: "Ana" },
    { _id: 2, name: "ana" },
    { _id: 3, name: "Ána" },
    { _id: 4, name: "bob" },
    { _id: 5, name: "Zeta" },
    { _id: 6, name: "alpha" },
    { _id: 7, name: 42 },
  ];

  it("makes equality, $in, $ne and $nin compare strings by the collator, and other types as usual", async () => {
    const coll = await fresh("ops", people);
    expect(names(await coll.find({ name: "ANA" }, { collation: CASE_INSENSITIVE }).sort({ _id: 1 }).toArray())).toEqual(
      ["Ana", "ana"],
    );
    expect(names(await coll.find({ name: "ANA" }, { collation: BASE_LETTERS }).sort({ _id: 1 }).toArray())).toEqual([
      "Ana",
      "ana",
      "Ána",
    ]);
    expect(
      names(
        await coll
          .find({ name: { $in: ["BOB", "zeta", 42] } }, { collation: CASE_INSENSITIVE })
          .sort({ _id: 1 })
          .toArray(),
      ),
    ).toEqual(["bob", "Zeta", 42] as never);
    expect(await coll.countDocuments({ name: { $ne: "ana" } }, { collation: CASE_INSENSITIVE })).toBe(5);
    expect(await coll.countDocuments({ name: { $nin: ["ana", "BOB"] } }, { collation: CASE_INSENSITIVE })).toBe(4);
    // Without a collation, comparison is binary.
    expect(await coll.find({ name: "ANA" }).toArray()).toEqual([]);
    expect(await coll.find({ name: "ANA" }, { collation: { locale: "simple" } }).toArray()).toEqual([]);
  });

  it("makes ranges and sorts follow the collator's order", async () => {
    const coll = await fresh("order", people);
    // Binary order puts every capital letter first; the collator does not.
    expect(
      names(
        await coll
          .find({ name: { $type: "string" } })
          .sort({ name: 1 })
          .toArray(),
      ),
    ).toEqual(["Ana", "Zeta", "alpha", "ana", "bob", "Ána"]);
    expect(
      names(
        await coll
          .find({ name: { $type: "string" } }, { collation: { locale: "en" } })
          .sort({ name: 1 })
          .toArray(),
      ),
    ).toEqual(["alpha", "ana", "Ana", "Ána", "bob", "Zeta"]);
    expect(
      names(
        await coll
          .find({ name: { $gt: "B", $lt: "zz" } }, { collation: CASE_INSENSITIVE })
          .sort({ name: 1 })
          .toArray(),
      ),
    ).toEqual(["bob", "Zeta"]);
    expect(
      names(
        await coll
          .find({ name: { $lte: "ANA" } }, { collation: CASE_INSENSITIVE })
          .sort({ name: 1, _id: 1 })
          .toArray(),
      ),
    ).toEqual(["alpha", "Ana", "ana"]);
  });

  it("orders numbers inside strings with numericOrdering, and capitals first with caseFirst upper", async () => {
    const coll = await fresh("numeric", [
      { name: "item10" },
      { name: "item9" },
      { name: "item100" },
      { name: "b" },
      { name: "B" },
    ]);
    const numeric = await coll
      .find({ name: /^item/ }, { collation: { locale: "en", numericOrdering: true } })
      .sort({ name: 1 })
      .toArray();
    expect(names(numeric)).toEqual(["item9", "item10", "item100"]);
    expect(
      names(
        await coll
          .find({ name: /^b$/i }, { collation: { locale: "en", caseFirst: "upper" } })
          .sort({ name: 1 })
          .toArray(),
      ),
    ).toEqual(["B", "b"]);
    expect(
      names(
        await coll
          .find({ name: /^b$/i }, { collation: { locale: "en", caseFirst: "lower" } })
          .sort({ name: 1 })
          .toArray(),
      ),
    ).toEqual(["b", "B"]);
  });

  it("ignores punctuation and spaces with alternate shifted", async () => {
    const coll = await fresh("shifted", [{ name: "e-mail" }, { name: "email" }, { name: "e mail" }, { name: "mail" }]);
    expect(await coll.countDocuments({ name: "email" }, { collation: { locale: "en", alternate: "shifted" } })).toBe(3);
    expect(
      await coll.countDocuments(
        { name: "email" },
        { collation: { locale: "en", alternate: "shifted", maxVariable: "punct" } },
      ),
    ).toBe(3);
    expect(await coll.countDocuments({ name: "email" }, { collation: { locale: "en" } })).toBe(1);
  });

  it("keeps regular expressions on the original strings", async () => {
    const coll = await fresh("regex", people);
    expect(
      names(
        await coll
          .find({ name: { $in: [/^a/, "BOB"] } }, { collation: CASE_INSENSITIVE })
          .sort({ _id: 1 })
          .toArray(),
      ),
    ).toEqual(["ana", "bob", "alpha"]);
    expect(
      names(
        await coll
          .find({ name: { $regex: "^A" } }, { collation: CASE_INSENSITIVE })
          .sort({ _id: 1 })
          .toArray(),
      ),
    ).toEqual(["Ana"]);
  });

  it("merges equal strings in distinct and in $group keys, and sorts an aggregation by the collator", async () => {
    const coll = await fresh("groups", people);
    const distinct = (await coll.distinct(
      "name",
      { name: { $type: "string" } },
      { collation: BASE_LETTERS },
    )) as string[];
    expect(distinct).toHaveLength(4);
    expect(distinct.map((s) => s.toLowerCase()).sort()).toEqual(["alpha", "ana", "bob", "zeta"]);
    const groups = await coll
      .aggregate(
        [
          { $match: { name: { $type: "string" } } },
          { $group: { _id: "$name", n: { $sum: 1 } } },
          { $sort: { _id: 1 } },
        ],
        { collation: CASE_INSENSITIVE },
      )
      .toArray();
    expect(groups).toEqual([
      { _id: "alpha", n: 1 },
      { _id: "Ana", n: 2 },
      { _id: "Ána", n: 1 },
      { _id: "bob", n: 1 },
      { _id: "Zeta", n: 1 },
    ]);
    const [set] = await coll
      .aggregate(
        [{ $match: { name: { $type: "string" } } }, { $group: { _id: null, names: { $addToSet: "$name" } } }],
        { collation: BASE_LETTERS },
      )
      .toArray();
    expect((set.names as string[]).map((s) => s.toLowerCase().replace("á", "a")).sort()).toEqual([
      "alpha",
      "ana",
      "bob",
      "zeta",
    ]);
    const matched = await coll
      .aggregate([{ $match: { name: "ANA" } }, { $count: "n" }], { collation: CASE_INSENSITIVE })
      .toArray();
    expect(matched).toEqual([{ n: 2 }]);
  });

  it("makes the comparison expressions of $expr and of the pipeline compare by the collator", async () => {
    const coll = await fresh("expressions", people);
    expect(await coll.countDocuments({ $expr: { $eq: ["$name", "ANA"] } }, { collation: CASE_INSENSITIVE })).toBe(2);
    expect(await coll.countDocuments({ $expr: { $eq: ["$name", "ANA"] } })).toBe(0);
    const projected = await coll
      .aggregate(
        [
          { $match: { _id: { $in: [1, 4] } } },
          {
            $project: {
              _id: 0,
              same: { $eq: ["$name", "ANA"] },
              before: { $lt: ["$name", "B"] },
              listed: { $in: ["$name", ["ANA", "BOB"]] },
            },
          },
        ],
        { collation: CASE_INSENSITIVE },
      )
      .toArray();
    expect(projected).toEqual([
      { same: true, before: true, listed: true },
      { same: false, before: false, listed: true },
    ]);
  });

  it("takes the locale's own defaults for the options it leaves out", async () => {
    const coll = await fresh("danish", [{ name: "b" }, { name: "B" }]);
    await coll.createIndex({ name: 1 }, { collation: { locale: "da" } });
    const [, index] = await coll.listIndexes().toArray();
    expect(index.collation).toMatchObject({ locale: "da", caseFirst: "upper", strength: 3 });
    expect(
      names(
        await coll
          .find({}, { collation: { locale: "da" } })
          .sort({ name: 1 })
          .toArray(),
      ),
    ).toEqual(["B", "b"]);
  });

  it("applies to the filters of updates, deletes and findAndModify", async () => {
    const coll = await fresh("writes", people);
    const updated = await coll.updateMany({ name: "ANA" }, { $set: { seen: true } }, { collation: CASE_INSENSITIVE });
    expect(updated.modifiedCount).toBe(2);
    const found = await coll.findOneAndUpdate(
      { name: "ZETA" },
      { $set: { seen: true } },
      { collation: CASE_INSENSITIVE, returnDocument: "after" },
    );
    expect(found).toMatchObject({ _id: 5, seen: true });
    const removed = await coll.deleteMany({ name: "ána" }, { collation: BASE_LETTERS });
    expect(removed.deletedCount).toBe(3);
    const bulk = await coll.bulkWrite([{ deleteOne: { filter: { name: "BOB" }, collation: CASE_INSENSITIVE } }]);
    expect(bulk.deletedCount).toBe(1);
    expect((await coll.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([5, 6, 7]);
  });
});

describe("collation options", () => {
  it("refuses an unknown locale, a bad field and a bad strength as MongoDB does", async () => {
    const coll = await fresh("invalid", [{ name: "a" }]);
    const unknown = await caught(coll.find({}, { collation: { locale: "xx" } }).toArray());
    expect(unknown.code).toBe(2);
    expect(unknown.message).toBe("Field 'locale' is invalid in: { locale: \"xx\" }");
    const strength = await caught(coll.find({}, { collation: { locale: "en", strength: 6 } }).toArray());
    expect(strength.code).toBe(2);
    expect(strength.message).toBe("BSON field 'collation.strength' value must be >= 1 and <= 5, actual value '6'");
    const field = await caught(coll.find({}, { collation: { locale: "en", colour: 1 } as never }).toArray());
    expect(field.message).toBe("BSON field 'collation.colour' is an unknown field");
    const simple = await caught(coll.find({}, { collation: { locale: "simple", strength: 2 } }).toArray());
    expect(simple.code).toBe(9);
    expect(simple.message).toBe(
      'If locale=simple, no other fields should be present in: { locale: "simple", strength: 2 }',
    );
  });

  it("refuses, naming the option and MONGODB_URI, what Intl.Collator cannot express", async () => {
    const coll = await fresh("unsupported", [{ name: "a" }]);
    for (const collation of [
      { locale: "en", strength: 4 },
      { locale: "en", strength: 5 },
      { locale: "en", strength: 2, caseLevel: true },
      { locale: "en", strength: 3, caseLevel: true },
      { locale: "en", alternate: "shifted", maxVariable: "space" },
      { locale: "en", backwards: true },
    ]) {
      const err = await caught(coll.find({}, { collation }).toArray());
      expect(err.code).toBe(2);
      expect(err.codeName).toBe("BadValue");
      expect(err.message).toMatch(/not supported by the embedded database \(set MONGODB_URI/);
    }
    // Strength 1 with caseLevel is what Intl calls sensitivity "case": base letters and case.
    expect(
      await coll.countDocuments({ name: "á" }, { collation: { locale: "en", strength: 1, caseLevel: true } }),
    ).toBe(1);
    expect(
      await coll.countDocuments({ name: "A" }, { collation: { locale: "en", strength: 1, caseLevel: true } }),
    ).toBe(0);
  });
});

describe("indexes with a collation", () => {
  it("makes a strength-2 unique index refuse an e-mail address that differs only by case", async () => {
    const users = await fresh("users", []);
    await users.createIndex({ email: 1 }, { unique: true, collation: CASE_INSENSITIVE });
    await users.insertOne({ email: "Ana@x.io" });
    const err = await caught(users.insertOne({ email: "ana@x.io" }));
    expect(err.code).toBe(11000);
    expect(err.message).toMatch(
      /^E11000 duplicate key error collection: collation_test\.users index: email_1 collation: \{ locale: "en", caseLevel: false, caseFirst: "off", strength: 2, .* dup key: \{ email: "ana@x\.io" \}$/,
    );
    expect(err.keyPattern).toEqual({ email: 1 });
    // Also through an update, and for a string outside ASCII.
    await users.insertOne({ email: "bob@x.io" });
    expect((await caught(users.updateOne({ email: "bob@x.io" }, { $set: { email: "ANA@X.IO" } }))).code).toBe(11000);
    await users.insertOne({ email: "Ünal@x.io" });
    expect((await caught(users.insertOne({ email: "üNAL@x.io" }))).code).toBe(11000);
    await users.insertOne({ email: "unal@x.io" });
    expect(await users.countDocuments()).toBe(4);
  });

  it("indexes long strings, telling apart those that differ past the first 200 characters", async () => {
    const coll = await fresh("long", []);
    await coll.createIndex({ text: 1 }, { unique: true, collation: CASE_INSENSITIVE });
    const long = "x".repeat(3000);
    await coll.insertMany([{ text: `${long}a` }, { text: `${long}b` }]);
    expect((await caught(coll.insertOne({ text: `${long}B` }))).code).toBe(11000);
    expect(await coll.countDocuments({ text: `${long}A` }, { collation: CASE_INSENSITIVE })).toBe(1);
  });

  it("refuses to build a unique index over values equal under its collation", async () => {
    const coll = await fresh("existing", [{ email: "Ana@x.io" }, { email: "bob@x.io" }, { email: "ANA@x.io" }]);
    const err = await caught(coll.createIndex({ email: 1 }, { unique: true, collation: CASE_INSENSITIVE }));
    expect(err.code).toBe(11000);
    await coll.createIndex({ email: 1 }, { unique: true });
    expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(["_id_", "email_1"]);
  });

  it("treats letters the locale expands as equal (æ and ae at strength 1)", async () => {
    const coll = await fresh("expansions", []);
    await coll.createIndex({ word: 1 }, { unique: true, collation: { locale: "en", strength: 1 } });
    await coll.insertOne({ word: "aether" });
    expect((await caught(coll.insertOne({ word: "Æther" }))).code).toBe(11000);
  });

  it("shows the collation in full in listIndexes", async () => {
    const coll = await fresh("listed", []);
    await coll.createIndex({ email: 1 }, { collation: CASE_INSENSITIVE, name: "email_ci" });
    await coll.createIndex({ email: 1 }, { name: "email_binary" });
    const indexes = await coll.listIndexes().toArray();
    expect(indexes.find((i) => i.name === "email_ci")?.collation).toEqual({
      locale: "en",
      caseLevel: false,
      caseFirst: "off",
      strength: 2,
      numericOrdering: false,
      alternate: "non-ignorable",
      maxVariable: "punct",
      normalization: false,
      backwards: false,
      version: "57.1",
    });
    expect(indexes.find((i) => i.name === "email_binary")).not.toHaveProperty("collation");
  });

  it("serves a query only when the query's collation is the index's", async () => {
    const coll = await fresh("planned", [{ email: "Ana@x.io" }, { email: "ana@x.io" }, { email: "bob@x.io" }]);
    await coll.createIndex({ email: 1 }, { collation: CASE_INSENSITIVE });
    const stage = async (collation?: CollationOptions) =>
      ((await coll.find({ email: "ANA@X.IO" }, collation ? { collation } : {}).explain()) as Document).queryPlanner
        .winningPlan.stage;
    expect(await stage(CASE_INSENSITIVE)).toBe("IXSCAN");
    expect(await stage()).toBe("COLLSCAN");
    expect(await stage(BASE_LETTERS)).toBe("COLLSCAN");
    expect(await coll.countDocuments({ email: "ANA@X.IO" }, { collation: CASE_INSENSITIVE })).toBe(2);
    expect(await coll.countDocuments({ email: "ANA@X.IO" })).toBe(0);
    expect(await coll.countDocuments({ email: "Ana@x.io" })).toBe(1);
    expect(await coll.countDocuments({ email: { $gte: "ANA", $lt: "B" } }, { collation: CASE_INSENSITIVE })).toBe(2);
    // A hinted index of another collation still gives the query's own answer.
    expect(await coll.find({ email: "Ana@x.io" }, { hint: "email_1" }).toArray()).toHaveLength(1);
    expect(
      await coll.find({ email: "ANA@X.IO" }, { hint: "email_1", collation: CASE_INSENSITIVE }).toArray(),
    ).toHaveLength(2);
  });
});

describe("an index never changes a collated query's answer", () => {
  const words = [
    "ana",
    "Ana",
    "ANA",
    "Ána",
    "ana-x",
    "anax",
    "ana x",
    "aether",
    "Æther",
    "strasse",
    "Straße",
    "ccs",
    "cscs",
    "aa",
    "å",
    "item010",
    "item10",
    "item9",
    "Zeta",
    "zeta",
    "",
    "ŁÓDŹ",
    "lodz",
    "日本",
    "にほん",
    7,
    null,
  ];
  const collations: CollationOptions[] = [
    { locale: "en", strength: 1 },
    { locale: "en", strength: 2 },
    { locale: "en" },
    { locale: "en", strength: 1, alternate: "shifted" },
    { locale: "en", strength: 2, numericOrdering: true },
    { locale: "hu", strength: 2 },
    { locale: "da", strength: 1 },
  ];

  // Some 1,500 commands: on two busy cores that can outlast the default timeout.
  it(
    "finds with the index what a scan finds, and its unique form keeps one of each class",
    { timeout: 120_000 },
    async () => {
      for (const [n, collation] of collations.entries()) {
        const plain = await fresh(
          `words_scan_${n}`,
          words.map((w, i) => ({ _id: i, w })),
        );
        const indexed = await fresh(
          `words_index_${n}`,
          words.map((w, i) => ({ _id: i, w })),
        );
        await indexed.createIndex({ w: 1 }, { collation });
        const filters: Document[] = [
          ...words.map((w) => ({ w })),
          { w: { $in: ["ANA", "ZETA", 7] } },
          { w: { $gte: "A", $lt: "B" } },
          { w: { $gt: "item1" } },
          { w: { $ne: "ana" } },
          { w: /^a/ },
        ];
        for (const filter of filters) {
          const ids = async (coll: Collection) =>
            (await coll.find(filter, { collation }).sort({ _id: 1 }).toArray()).map((d) => d._id);
          expect(await ids(indexed), `${JSON.stringify(collation)} ${JSON.stringify(filter)}`).toEqual(
            await ids(plain),
          );
        }

        const unique = await fresh(`words_unique_${n}`, []);
        await unique.createIndex({ w: 1 }, { unique: true, collation });
        const kept: unknown[] = [];
        for (const w of words) {
          const duplicate = (await unique.countDocuments({ w }, { collation })) > 0;
          const inserted = await unique.insertOne({ w }).then(
            () => true,
            (err: MongoServerError) => (err.code === 11000 ? false : Promise.reject(err)),
          );
          expect(inserted, `${JSON.stringify(collation)} ${JSON.stringify(w)}`).toBe(!duplicate);
          if (inserted) kept.push(w);
        }
        const built = await fresh(
          `words_built_${n}`,
          kept.map((w) => ({ w })),
        );
        await built.createIndex({ w: 1 }, { unique: true, collation });
        if ((collation.strength ?? 3) < 3) expect(kept.length).toBeLessThan(words.length);
      }
    },
  );
});

describe("a collection's default collation", () => {
  it("applies to every operation and index without one of their own, and shows in listCollections", async () => {
    await embedded.db.dropCollection("members").catch(() => undefined);
    await embedded.db.createCollection("members", { collation: CASE_INSENSITIVE });
    const members = embedded.db.collection("members");
    const [info] = (await embedded.db.listCollections({ name: "members" }).toArray()) as Document[];
    expect(info.options.collation).toMatchObject({ locale: "en", strength: 2, caseFirst: "off", version: "57.1" });
    expect(info.idIndex.collation).toMatchObject({ locale: "en", strength: 2 });

    await members.insertMany([
      { _id: "x", name: "Zeta" },
      { _id: "y", name: "alpha" },
      { _id: "z", name: "Alpha" },
    ] as never[]);
    expect(names(await members.find().sort({ name: 1, _id: 1 }).toArray())).toEqual(["alpha", "Alpha", "Zeta"]);
    expect(await members.countDocuments({ name: "ALPHA" })).toBe(2);
    // An operation may still ask for binary comparison.
    expect(await members.countDocuments({ name: "ALPHA" }, { collation: { locale: "simple" } })).toBe(0);

    await members.createIndex({ name: 1 }, { name: "inherits" });
    await members.createIndex({ name: 1 }, { name: "binary", collation: { locale: "simple" } });
    const indexes = await members.listIndexes().toArray();
    expect(indexes.find((i) => i.name === "inherits")?.collation).toMatchObject({ locale: "en", strength: 2 });
    expect(indexes.find((i) => i.name === "binary")).not.toHaveProperty("collation");
    expect(indexes.find((i) => i.name === "_id_")?.collation).toMatchObject({ locale: "en", strength: 2 });

    // The `_id_` index follows the collection's collation too.
    const dup = await caught(members.insertOne({ _id: "X", name: "other" } as never));
    expect(dup.code).toBe(11000);
    expect(await members.findOne({ _id: "X" } as never)).toMatchObject({ _id: "x" });
    expect(await members.findOne({ _id: "X" } as never, { collation: { locale: "simple" } })).toBeNull();
    expect(await members.findOne({ _id: "X" } as never, { collation: { locale: "simple" }, hint: "_id_" })).toBeNull();
    expect(await members.findOne({ _id: "X" } as never, { hint: "_id_" })).toMatchObject({ _id: "x" });
  });

  it("refuses an invalid default collation at create", async () => {
    const err = await caught(embedded.db.createCollection("badDefault", { collation: { locale: "en", strength: 4 } }));
    expect(err.code).toBe(2);
    expect(await embedded.db.listCollections({ name: "badDefault" }).toArray()).toEqual([]);
  });
});

describe("compound indexes over arrays", () => {
  it("indexes two fields of one same array, and refuses a document with two different arrays (171)", async () => {
    const coll = await fresh("memberships", []);
    await coll.createIndex({ "companies.companyId": 1, "companies.isActive": 1 });
    await coll.insertOne({
      email: "a@x.io",
      companies: [
        { companyId: 1, isActive: true },
        { companyId: 2, isActive: false },
      ],
    });
    expect(await coll.countDocuments({ "companies.companyId": 2, "companies.isActive": false })).toBe(1);
    expect(await coll.countDocuments({ companies: { $elemMatch: { companyId: 1, isActive: false } } })).toBe(0);

    await coll.createIndex({ tags: 1, roles: 1 });
    const err = await caught(coll.insertOne({ tags: ["a", "b"], roles: ["x", "y"] }));
    expect(err.code).toBe(171);
    expect(err.codeName).toBe("CannotIndexParallelArrays");
    expect(err.message).toMatch(/^cannot index parallel arrays \[(roles|tags)\] \[(roles|tags)\]$/);
    await coll.insertOne({ tags: ["a", "b"], roles: "x" });

    // Two arrays inside elements of one array are parallel too.
    await coll.createIndex({ "a.x": 1, "a.z": 1 });
    expect((await caught(coll.insertOne({ a: [{ x: [1, 2], z: [3, 4] }] }))).code).toBe(171);
    await coll.insertOne({ a: [{ x: 5, z: [1, 2] }, { z: [1, 2] }] });
  });
});

describe("Mongoose", () => {
  let conn: Connection;

  beforeAll(async () => {
    conn = await mongoose
      .createConnection(embedded.server.uri, { dbName: "collation_mongoose", autoIndex: false })
      .asPromise();
  });

  afterAll(async () => {
    await conn?.close();
  });

  it("creates the collection with the schema's collation, which then sorts its queries", async () => {
    const Word = conn.model("Word", new Schema({ text: String }, { collation: { locale: "en_US", strength: 1 } }));
    await Word.createCollection();
    await Word.create([{ text: "Zeta" }, { text: "alpha" }]);
    const sorted = await Word.find().sort({ text: 1 }).lean();
    expect(sorted.map((w) => w.text)).toEqual(["alpha", "Zeta"]);
    const [info] = (await conn.db!.listCollections({ name: "words" }).toArray()) as Document[];
    expect(info.options.collation).toMatchObject({ locale: "en_US", strength: 1 });
  });

  it("finds and counts with a query collation, and with a schema-level one", async () => {
    const Tag = conn.model("Tag", new Schema({ label: String }));
    await Tag.create([{ label: "Test" }, { label: "test" }, { label: "other" }]);
    expect(await Tag.find({ label: "TEST" }).collation({ locale: "en_US", strength: 1 })).toHaveLength(2);
    expect(await Tag.countDocuments({ label: "TEST" }).collation({ locale: "en_US", strength: 1 })).toBe(2);
    expect(await Tag.find({ label: "TEST" })).toHaveLength(0);

    const Label = conn.model(
      "Label",
      new Schema({ label: String }, { collation: { locale: "en_US", strength: 1 } }),
      "tags",
    );
    expect(await Label.find({ label: "TEST" })).toHaveLength(2);
    expect(await Label.countDocuments({ label: "TEST" })).toBe(2);
  });

  it("gives the schema's collation to its indexes, and syncIndexes keeps them once in place", async () => {
    const schema = new Schema(
      { email: { type: String, unique: true }, name: String },
      { collation: { locale: "en", strength: 2 } },
    );
    schema.index({ name: 1 }, { collation: { locale: "fr" } });
    const Member = conn.model("Member", schema);
    expect(await Member.syncIndexes()).toEqual([]);
    const indexes = await Member.listIndexes();
    expect(indexes.find((i) => i.name === "email_1")?.collation).toMatchObject({ locale: "en", strength: 2 });
    expect(indexes.find((i) => i.name === "name_1")?.collation).toMatchObject({ locale: "fr", strength: 3 });
    expect(await Member.syncIndexes()).toEqual([]);

    await Member.create({ email: "Ana@x.io" });
    const err = await caught(Member.create({ email: "ana@x.io" }));
    expect(err.code).toBe(11000);
  });

  it("keeps a discriminator's unique index of another collation beside the base one", async () => {
    const base = new Schema({ key: String }, { discriminatorKey: "kind" });
    base.index({ key: 1 }, { unique: true, name: "key_binary" });
    const Thing = conn.model("Thing", base);
    const special = new Schema({});
    special.index(
      { key: 1 },
      {
        unique: true,
        name: "key_ci",
        collation: { locale: "en", strength: 2 },
        partialFilterExpression: { kind: "Special" },
      },
    );
    const Special = Thing.discriminator("Special", special);
    await Thing.syncIndexes();
    await Special.syncIndexes();
    const indexes = await Thing.listIndexes();
    expect(indexes.map((i) => i.name).sort()).toEqual(["_id_", "key_binary", "key_ci"]);
    expect(indexes.find((i) => i.name === "key_ci")?.collation).toMatchObject({ locale: "en", strength: 2 });
  });
});
