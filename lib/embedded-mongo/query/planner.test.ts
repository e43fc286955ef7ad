/**
 * The query planner seen from outside: explain names the index a query uses and how many
 * documents it read, and an index never changes a query's answer, only its cost.
 */
import fc from "fast-check";
import { ObjectId, type Document } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDatabaseForThisFile } from "../testing/temp-server";
import { candidatePlans, planName } from "./planner";

/** Test documents carry their own numeric or string `_id`. */
type Doc = Document & { _id: unknown };

const embedded = tempDatabaseForThisFile("planner", "planner_test");

interface Explained {
  queryPlanner: { winningPlan: Document };
  executionStats: { nReturned: number; totalDocsExamined: number };
}

async function explain(
  collection: string,
  find: { filter?: Document; sort?: Document; limit?: number; skip?: number; hint?: Document | string },
): Promise<Explained> {
  return (await embedded.db.command({
    explain: { find: collection, ...find },
    verbosity: "executionStats",
  })) as unknown as Explained;
}

/** The stage that reads the data: MongoDB nests it under LIMIT, FETCH and SORT stages. */
function leaf(plan: Document): Document {
  let stage = plan;
  while (stage.inputStage) stage = stage.inputStage as Document;
  return stage;
}

describe("index use on a collection of 5,000 users", () => {
  const N = 5000;
  const COMPANIES = 50;
  const base = Date.UTC(2024, 0, 1);
  interface User {
    _id: number;
    company: string;
    email: string;
    name: string;
    createdAt: Date;
    age: number;
    status: string;
    tags: string[];
  }
  const users: User[] = Array.from({ length: N }, (_, i) => ({
    _id: i,
    company: `c${i % COMPANIES}`,
    email: `user${i}@example.com`,
    name: `user-${String(i).padStart(5, "0")}`,
    createdAt: new Date(base + ((i * 7919) % N) * 60_000),
    age: 18 + (i % 60),
    status: ["active", "inactive", "pending"][i % 3],
    tags: [...new Set([`t${i % 10}`, `t${(i * 3) % 10}`])],
  }));
  const coll = () => embedded.db.collection<User>("users");

  beforeAll(async () => {
    for (let i = 0; i < N; i += 1000) await coll().insertMany(users.slice(i, i + 1000));
    await coll().createIndexes([
      { key: { company: 1, createdAt: -1 } },
      { key: { email: 1 }, unique: true },
      { key: { createdAt: 1 } },
      { key: { name: 1 } },
      { key: { tags: 1 } },
      { key: { age: 1 } },
    ]);
  }, 60_000);

  it("finds one document by _id without an index scan", async () => {
    const e = await explain("users", { filter: { _id: 1234 } });
    expect(leaf(e.queryPlanner.winningPlan).stage).toBe("IDHACK");
    expect(e.executionStats).toMatchObject({ nReturned: 1, totalDocsExamined: 1 });
  });

  it("uses the unique index for an equality", async () => {
    const e = await explain("users", { filter: { email: "user4321@example.com" } });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "email_1" });
    expect(e.executionStats).toMatchObject({ nReturned: 1, totalDocsExamined: 1 });
  });

  it("uses an index for $in, reading only the listed keys", async () => {
    const e = await explain("users", {
      filter: {
        email: { $in: ["user1@example.com", "user2500@example.com", "user4999@example.com", "nobody@example.com"] },
      },
    });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "email_1" });
    expect(e.executionStats).toMatchObject({ nReturned: 3, totalDocsExamined: 3 });
  });

  it("uses an index for a numeric range", async () => {
    const expected = users.filter((u) => u.age >= 20 && u.age < 22).length;
    const e = await explain("users", { filter: { age: { $gte: 20, $lt: 22 } } });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "age_1" });
    expect(e.executionStats).toMatchObject({ nReturned: expected, totalDocsExamined: expected });
    expect(await coll().countDocuments({ age: { $gte: 20, $lt: 22 } })).toBe(expected);
  });

  it("uses an index for a date range", async () => {
    const from = new Date(base + 100 * 60_000);
    const to = new Date(base + 130 * 60_000);
    const expected = users.filter((u) => u.createdAt >= from && u.createdAt <= to).length;
    expect(expected).toBe(31);
    const e = await explain("users", { filter: { createdAt: { $gte: from, $lte: to } } });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "createdAt_1" });
    expect(e.executionStats).toMatchObject({ nReturned: expected, totalDocsExamined: expected });
  });

  it("uses an index for an anchored prefix regex", async () => {
    const e = await explain("users", { filter: { name: /^user-0012/ } });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "name_1" });
    expect(e.executionStats).toMatchObject({ nReturned: 10, totalDocsExamined: 10 });
    const names = (
      await coll()
        .find({ name: { $regex: "^user-0012" } })
        .sort({ name: 1 })
        .toArray()
    ).map((u) => u.name);
    expect(names).toEqual(Array.from({ length: 10 }, (_, k) => `user-0012${k}`));
  });

  it("uses a multikey index for an array element, returning each document once", async () => {
    const expected = users.filter((u) => u.tags.includes("t3"));
    const e = await explain("users", { filter: { tags: "t3" } });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "tags_1" });
    expect(e.executionStats).toMatchObject({ nReturned: expected.length, totalDocsExamined: expected.length });
    const found = await coll()
      .find({ tags: { $in: ["t3", "t9"] } })
      .project<{ _id: number }>({ _id: 1 })
      .toArray();
    const ids = found.map((u) => u._id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort((a, b) => a - b)).toEqual(
      users.filter((u) => u.tags.includes("t3") || u.tags.includes("t9")).map((u) => u._id),
    );
  });

  it("serves a page of 10 filtered by company and sorted by date from the compound index, reading about 10 documents", async () => {
    const filter = { company: "c7" };
    const expected = users
      .filter((u) => u.company === "c7")
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .map((u) => u._id);
    const e = await explain("users", { filter, sort: { createdAt: -1 }, limit: 10 });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "company_1_createdAt_-1" });
    expect(e.executionStats.nReturned).toBe(10);
    expect(e.executionStats.totalDocsExamined).toBeLessThanOrEqual(11);

    const page1 = (await coll().find(filter).sort({ createdAt: -1 }).limit(10).toArray()).map((u) => u._id);
    const page3 = (await coll().find(filter).sort({ createdAt: -1 }).skip(20).limit(10).toArray()).map((u) => u._id);
    expect(page1).toEqual(expected.slice(0, 10));
    expect(page3).toEqual(expected.slice(20, 30));
    const later = await explain("users", { filter, sort: { createdAt: -1 }, skip: 20, limit: 10 });
    expect(later.executionStats.nReturned).toBe(10);
    expect(later.executionStats.totalDocsExamined).toBeLessThanOrEqual(31);
  });

  it("walks an index in either direction for sort + limit without a filter", async () => {
    const byDate = [...users].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime()).map((u) => u._id);
    for (const [direction, expected] of [
      [1, byDate.slice(0, 10)],
      [-1, byDate.slice(-10).reverse()],
    ] as const) {
      const e = await explain("users", { filter: {}, sort: { createdAt: direction }, limit: 10 });
      expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "createdAt_1" });
      expect(e.executionStats.nReturned).toBe(10);
      expect(e.executionStats.totalDocsExamined).toBeLessThanOrEqual(11);
      expect((await coll().find().sort({ createdAt: direction }).limit(10).toArray()).map((u) => u._id)).toEqual(
        expected,
      );
    }
  });

  it("scans the collection for a field no index covers", async () => {
    const expected = users.filter((u) => u.status === "pending").length;
    const e = await explain("users", { filter: { status: "pending" } });
    expect(leaf(e.queryPlanner.winningPlan).stage).toBe("COLLSCAN");
    expect(e.executionStats).toMatchObject({ nReturned: expected, totalDocsExamined: N });
  });

  it("gives the same page with the index dropped, only slower", async () => {
    await embedded.db
      .collection("users_copy")
      .drop()
      .catch(() => undefined);
    const copy = embedded.db.collection<User>("users_copy");
    await copy.insertMany(users.filter((u) => u.company === "c7" || u.company === "c8"));
    const query = () => copy.find({ company: "c7" }).sort({ createdAt: -1 }).skip(5).limit(10).toArray();
    const scanned = await query();
    await copy.createIndex({ company: 1, createdAt: -1 });
    const indexed = await query();
    expect(indexed).toEqual(scanned);
    const e = await explain("users_copy", { filter: { company: "c7" }, sort: { createdAt: -1 }, skip: 5, limit: 10 });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "company_1_createdAt_-1" });
    await copy.dropIndex("company_1_createdAt_-1");
    const e2 = await explain("users_copy", { filter: { company: "c7" }, sort: { createdAt: -1 }, skip: 5, limit: 10 });
    expect(leaf(e2.queryPlanner.winningPlan).stage).toBe("COLLSCAN");
    expect(e2.executionStats.totalDocsExamined).toBe(200);
    expect(await query()).toEqual(scanned);
  });
});

describe("indexes that bound the same fields", () => {
  // As the app's users: four indexes led by the company, and one of search words. A count of a
  // company's search matches must race the search index, not four walks of the whole company.
  const coll = () => embedded.db.collection<Doc>("alike");
  const N = 2000;
  beforeAll(async () => {
    await coll().insertMany(
      Array.from({ length: N }, (_, i) => ({
        _id: i,
        company: i % 2 === 0 ? "a" : "b",
        at: i,
        made: N - i,
        name: `n${i}`,
        email: `e${i}`,
        words: i % 5 === 0 ? ["match", `w${i}`] : [`w${i}`],
      })),
    );
    await coll().createIndexes([
      { key: { company: 1, at: 1 } },
      { key: { company: 1, made: 1 } },
      { key: { company: 1, name: 1 } },
      { key: { company: 1, email: 1 } },
      { key: { words: 1 } },
    ]);
  }, 60_000);

  it("race one of those that walk alike, so that an index bounding other fields races too", async () => {
    const filter = { company: "a", words: { $regex: "^ma" } };
    const plans = candidatePlans(filter, undefined, (await coll().indexes()) as never);
    expect(plans.map(planName).sort()).toEqual(["index:company_1_at_1", "index:words_1"]);
    const e = await explain("alike", { filter });
    // The search index reads the 400 documents with a word of `ma` (half of them the company's),
    // not the company's 1,000.
    expect(e.executionStats).toMatchObject({ nReturned: N / 10, totalDocsExamined: N / 5 });
    expect(await coll().countDocuments(filter)).toBe(N / 10);
    // Sorted, the walk in order is a plan of its own, and the rest still race.
    const sorted = candidatePlans(filter, { at: -1 }, (await coll().indexes()) as never);
    expect(sorted.map(planName)).toEqual(["index:company_1_at_1", "index:company_1_made_1", "index:words_1"]);
  });
});

describe("a page whose newest records do not match", () => {
  // The newest records of the sort order fail the filter (a run of fresh writes of another kind):
  // the walk in sort order finds its first match late, while an index on the filter's field finds
  // matches at once but must read and sort all of them. MongoDB's multi-planner counts a plan that
  // still has to sort as having returned nothing yet, so the walk is chosen (docs: query planning).
  const coll = () =>
    embedded.db.collection<{ _id: number; company: string; modifiedAt: Date; kind: string }>("fresh_writes");
  const base = Date.UTC(2026, 0, 1);
  const fresh = (count: number, older: number) =>
    Array.from({ length: count + older }, (_, i) => ({
      _id: i,
      company: "a",
      modifiedAt: new Date(base + i * 1000),
      // The newest `count` records are of another kind.
      kind: i >= older ? "fresh" : "common",
    }));

  it.each([
    ["2,000 newest records, found within the race", 2_000, 3_000],
    ["11,000 newest records, past the race's 10,000 steps", 11_000, 13_000],
  ])(
    "walks the sort order for a page when the %s do not match",
    async (_name, count, older) => {
      await coll()
        .drop()
        .catch(() => undefined);
      const docs = fresh(count, older);
      for (let i = 0; i < docs.length; i += 5000) await coll().insertMany(docs.slice(i, i + 5000));
      await coll().createIndexes([{ key: { company: 1, modifiedAt: 1 } }, { key: { kind: 1 } }]);
      const find = { filter: { company: "a", kind: "common" }, sort: { modifiedAt: -1 as const }, limit: 10 };
      const e = await explain("fresh_writes", find);
      expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "company_1_modifiedAt_1" });
      // The walk reads the fresh run and then ten matches; the other plan would read every match.
      expect(e.executionStats.totalDocsExamined).toBeLessThanOrEqual(count + 10);
      const page = await coll().find(find.filter).sort(find.sort).limit(10).toArray();
      expect(page.map((d) => d._id)).toEqual(Array.from({ length: 10 }, (_, i) => older - 1 - i));
      // Cached, the plan answers the same page again.
      expect((await coll().find(find.filter).sort(find.sort).limit(10).toArray()).map((d) => d._id)).toEqual(
        page.map((d) => d._id),
      );
    },
    60_000,
  );
});

describe("multikey and compound indexes answer as a scan does", () => {
  const both = async (name: string, docs: Doc[], indexes: Document[]) => {
    for (const suffix of ["_plain", "_indexed"]) {
      await embedded.db
        .collection<Doc>(name + suffix)
        .drop()
        .catch(() => undefined);
      await embedded.db.collection<Doc>(name + suffix).insertMany(docs.map((d) => ({ ...d })));
    }
    for (const key of indexes) await embedded.db.collection<Doc>(name + "_indexed").createIndex(key);
    return {
      run: async (filter: Document, sort?: Document) =>
        Promise.all(
          ["_plain", "_indexed"].map((suffix) =>
            embedded.db
              .collection<Doc>(name + suffix)
              .find(filter, sort ? { sort } : {})
              .toArray(),
          ),
        ),
    };
  };

  it("matches a range over an array when different elements meet each bound", async () => {
    const { run } = await both(
      "scores",
      [
        { _id: 1, scores: [1, 10] },
        { _id: 2, scores: [6] },
        { _id: 3, scores: [1, 2] },
        { _id: 4, scores: [10, 11] },
        { _id: 5, scores: 7 },
        { _id: 6, scores: [] },
      ],
      [{ scores: 1 }],
    );
    const [plain, indexed] = await run({ scores: { $gt: 5, $lt: 8 } }, { _id: 1 });
    expect(plain.map((d) => d._id)).toEqual([1, 2, 5]);
    expect(indexed).toEqual(plain);
    const [plainElem, indexedElem] = await run({ scores: { $elemMatch: { $gt: 5, $lt: 8 } } }, { _id: 1 });
    expect(plainElem.map((d) => d._id)).toEqual([2]);
    expect(indexedElem).toEqual(plainElem);
    const e = await explain("scores_indexed", { filter: { scores: { $gt: 5, $lt: 8 } } });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "scores_1" });
  });

  it("sorts arrays by their smallest element ascending and their largest descending", async () => {
    const { run } = await both(
      "arraysort",
      [
        { _id: 1, v: [5, 1] },
        { _id: 2, v: [3] },
        { _id: 3, v: 2 },
        { _id: 4, v: [4, 0.5, 6] },
      ],
      [{ v: 1 }],
    );
    const [plainAsc, indexedAsc] = await run({}, { v: 1 });
    expect(plainAsc.map((d) => d._id)).toEqual([4, 1, 3, 2]);
    expect(indexedAsc.map((d) => d._id)).toEqual([4, 1, 3, 2]);
    const [plainDesc, indexedDesc] = await run({}, { v: -1 });
    expect(plainDesc.map((d) => d._id)).toEqual([4, 1, 2, 3]);
    expect(indexedDesc.map((d) => d._id)).toEqual([4, 1, 2, 3]);
  });

  it("sorts an array by its whole smallest or largest element even when the filter is an equality on it", async () => {
    // As MongoDB (3.6 and later) does: the filter does not narrow the array's sort key.
    const { run } = await both(
      "eqarraysort",
      [
        { _id: 0, a: 0 },
        { _id: 4, a: [-1, 0] },
        { _id: 5, a: [0, 2] },
        { _id: 6, a: 1 },
      ],
      [{ a: 1 }],
    );
    const [plainAsc, indexedAsc] = await run({ a: 0 }, { a: 1, _id: 1 });
    expect(plainAsc).toEqual([
      { _id: 4, a: [-1, 0] },
      { _id: 0, a: 0 },
      { _id: 5, a: [0, 2] },
    ]);
    expect(indexedAsc).toEqual(plainAsc);
    const [plainDesc, indexedDesc] = await run({ a: 0 }, { a: -1, _id: 1 });
    expect(plainDesc.map((d) => d._id)).toEqual([5, 0, 4]);
    expect(indexedDesc).toEqual(plainDesc);
    const hinted = await embedded.db
      .collection<Doc>("eqarraysort_indexed")
      .find({ a: 0 })
      .sort({ a: 1, _id: 1 })
      .hint("a_1")
      .toArray();
    expect(hinted).toEqual(plainAsc);
  });

  it("answers compound-index queries with every sort direction", async () => {
    const docs = Array.from({ length: 60 }, (_, i) => ({
      _id: i,
      g: ["a", "b", "c"][i % 3],
      n: (i * 17) % 20,
      t: [`x${i % 4}`, `y${i % 5}`],
    }));
    const { run } = await both("compound", docs, [
      { g: 1, n: -1 },
      { n: 1, g: 1 },
      { t: 1, n: 1 },
    ]);
    const cases: Array<[Document, Document]> = [
      [{ g: "b" }, { n: -1, _id: 1 }],
      [{ g: "b" }, { n: 1, _id: 1 }],
      [{ g: { $in: ["a", "c"] } }, { n: -1, _id: 1 }],
      [
        { g: "a", n: { $gte: 5, $lt: 15 } },
        { n: 1, _id: 1 },
      ],
      [{ n: { $gt: 10 } }, { g: 1, n: -1, _id: 1 }],
      [{}, { g: -1, n: 1, _id: -1 }],
      [{}, { n: 1, g: 1, _id: 1 }],
      [
        { t: "x1", n: { $lte: 10 } },
        { n: 1, _id: 1 },
      ],
      [{ t: { $all: ["x2", "y3"] } }, { _id: 1 }],
    ];
    for (const [filter, sort] of cases) {
      const [plain, indexed] = await run(filter, sort);
      expect(indexed, JSON.stringify({ filter, sort })).toEqual(plain);
    }
    const e = await explain("compound_indexed", { filter: { g: "b" }, sort: { n: -1 }, limit: 3 });
    expect(leaf(e.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", indexName: "g_1_n_-1" });
    expect(e.executionStats.totalDocsExamined).toBeLessThanOrEqual(4);
  });
});

describe("unique indexes over existing documents", () => {
  it("refuses to build over duplicates, with MongoDB's E11000 error, and leaves no index behind", async () => {
    const coll = embedded.db.collection<Doc>("dupes");
    await coll.insertMany([
      { _id: 1, email: "a@x.io", x: 1 },
      { _id: 2, email: "b@x.io", x: 2 },
      { _id: 3, email: "a@x.io", x: 3 },
    ]);
    const err = await coll.createIndex({ email: 1 }, { unique: true }).then(
      () => undefined,
      (e: unknown) => e as Document,
    );
    expect(err).toMatchObject({ code: 11000, codeName: "DuplicateKey" });
    expect(err?.message).toMatch(
      /^E11000 duplicate key error collection: planner_test\.dupes index: email_1 dup key: \{ email: "a@x\.io" \}$/,
    );
    expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(["_id_"]);
    // Without the index, duplicates remain insertable.
    await coll.insertOne({ _id: 4, email: "a@x.io", x: 4 });
    expect(await coll.countDocuments({ email: "a@x.io" })).toBe(3);
  });

  it("builds none of the indexes of a createIndexes command when one of them fails", async () => {
    const coll = embedded.db.collection<Doc>("dupes2");
    await coll.insertMany([
      { _id: 1, email: "a@x.io", x: 1 },
      { _id: 2, email: "a@x.io", x: 2 },
    ]);
    await expect(
      coll.createIndexes([
        { key: { x: 1 }, name: "x_1" },
        { key: { email: 1 }, name: "email_1", unique: true },
      ]),
    ).rejects.toMatchObject({ code: 11000 });
    expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(["_id_"]);
    expect((await coll.find({ x: 2 }).toArray()).map((d) => d._id)).toEqual([2]);
    // The name is free to build again once the data allows it.
    await coll.createIndex({ x: 1 }, { name: "x_1" });
    expect((await coll.find({ x: 2 }).hint("x_1").toArray()).map((d) => d._id)).toEqual([2]);
  });

  it("counts a missing field as null: two documents without it are duplicates", async () => {
    const coll = embedded.db.collection<Doc>("dupes3");
    await coll.insertMany([{ _id: 1, code: "k" }, { _id: 2 }, { _id: 3 }]);
    const err = await coll.createIndex({ code: 1 }, { unique: true }).then(
      () => undefined,
      (e: unknown) => e as Document,
    );
    expect(err).toMatchObject({ code: 11000 });
    expect(err?.message).toMatch(/index: code_1 dup key: \{ code: null \}$/);
  });

  it("fails an $out whose results break the target's unique index, leaving the target as it was", async () => {
    const source = embedded.db.collection<Doc>("out_source");
    const target = embedded.db.collection<Doc>("out_target");
    await target.insertMany([
      { _id: 1, k: "old1" },
      { _id: 2, k: "old2" },
    ]);
    await target.createIndex({ k: 1 }, { unique: true });
    await source.insertMany([
      { _id: 10, k: "new" },
      { _id: 11, k: "new" },
    ]);
    await expect(source.aggregate([{ $match: {} }, { $out: "out_target" }]).toArray()).rejects.toMatchObject({
      code: 11000,
    });
    expect(await target.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, k: "old1" },
      { _id: 2, k: "old2" },
    ]);
    expect((await target.listIndexes().toArray()).map((i) => i.name)).toEqual(["_id_", "k_1"]);
  });

  it("treats a shared array element as a duplicate, but not a value repeated within one document", async () => {
    const coll = embedded.db.collection<Doc>("dupes4");
    await coll.createIndex({ tags: 1 }, { unique: true });
    await coll.insertOne({ _id: 1, tags: ["a", "a", "b"] });
    await coll.insertOne({ _id: 2, tags: ["c"] });
    await expect(coll.insertOne({ _id: 3, tags: ["d", "b"] })).rejects.toMatchObject({
      code: 11000,
      keyPattern: { tags: 1 },
    });
    expect(await coll.countDocuments()).toBe(2);
  });
});

describe("property: an index never changes a query's answer", () => {
  const DATES = [0, 1, 2, 3, 4].map((d) => new Date(Date.UTC(2024, 0, 1 + d)));
  const INDEXES: Document[] = [{ a: 1 }, { b: 1, a: -1 }, { s: 1 }, { tags: 1 }, { d: -1 }, { b: 1, s: 1 }];
  const SORTS: Document[] = [
    { a: 1 },
    { a: -1 },
    { b: 1, a: -1 },
    { b: -1, a: 1 },
    { d: -1 },
    { d: 1 },
    { s: 1 },
    { b: 1, s: 1 },
    { s: -1, b: -1 },
  ];

  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 4 });
  const scalar = fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.constant(null),
    fc.constantFrom("a", "b", "ab"),
    fc.constantFrom(...DATES),
  );
  const docArb = fc.record(
    {
      a: optional(
        fc.oneof(
          { weight: 5, arbitrary: scalar },
          { weight: 1, arbitrary: fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 }) },
        ),
      ),
      b: optional(fc.integer({ min: 0, max: 4 })),
      s: optional(fc.constantFrom("", "a", "ab", "abc", "abd", "b", "ba", "B")),
      tags: optional(fc.oneof(fc.array(fc.constantFrom("x", "y", "z"), { maxLength: 3 }), fc.constantFrom("x", "y"))),
      d: optional(fc.constantFrom(...DATES)),
    },
    { requiredKeys: [] },
  );
  const int = fc.integer({ min: -3, max: 4 });
  type Condition = [string, unknown];
  const condition: fc.Arbitrary<Condition> = fc.oneof(
    int.map((v): Condition => ["a", v]),
    fc.constant<Condition>(["a", null]),
    fc
      .array(fc.oneof(int, fc.constant(null), fc.constant("ab")), { minLength: 1, maxLength: 3 })
      .map((v): Condition => ["a", { $in: v }]),
    fc.tuple(fc.constantFrom("$gt", "$gte", "$lt", "$lte"), int).map(([op, v]): Condition => ["a", { [op]: v }]),
    fc.tuple(int, int).map(([lo, hi]): Condition => ["a", { $gte: Math.min(lo, hi), $lt: Math.max(lo, hi) }]),
    int.map((v): Condition => ["b", v]),
    fc.array(int, { minLength: 1, maxLength: 3 }).map((v): Condition => ["b", { $in: v }]),
    fc.tuple(fc.constantFrom("$gt", "$lte"), int).map(([op, v]): Condition => ["b", { [op]: v }]),
    fc.constantFrom("", "a", "ab", "b").map((v): Condition => ["s", v]),
    fc.constantFrom("^a", "^ab", "^b", "^abc", "^B").map((v): Condition => ["s", { $regex: v }]),
    fc.constantFrom("ab", "b").map((v): Condition => ["s", { $gte: v }]),
    fc.constantFrom("x", "y", "z").map((v): Condition => ["tags", v]),
    fc
      .array(fc.constantFrom("x", "y", "z"), { minLength: 1, maxLength: 2 })
      .map((v): Condition => ["tags", { $in: v }]),
    fc.array(fc.constantFrom("x", "y"), { minLength: 1, maxLength: 2 }).map((v): Condition => ["tags", { $all: v }]),
    fc.tuple(fc.constantFrom("$gte", "$lt"), fc.constantFrom(...DATES)).map(([op, v]): Condition => ["d", { [op]: v }]),
  );
  const filterArb = fc.tuple(fc.array(condition, { maxLength: 2 }), fc.boolean()).map(([conds, asAnd]) => {
    if (asAnd) return conds.length ? { $and: conds.map(([f, c]) => ({ [f]: c })) } : {};
    const filter: Document = {};
    for (const [f, c] of conds) if (!(f in filter)) filter[f] = c;
    return filter;
  });
  const queryArb = fc.record({
    filter: filterArb,
    sort: fc.option(fc.constantFrom(...SORTS), { nil: undefined }),
    skip: fc.integer({ min: 0, max: 3 }),
    limit: fc.integer({ min: 0, max: 5 }),
  });

  it("gives identical results with and without indexes, and with each index hinted", async () => {
    const names = INDEXES.map((key) =>
      Object.entries(key)
        .map(([f, d]) => `${f}_${d}`)
        .join("_"),
    );
    let run = 0;

    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb, { minLength: 5, maxLength: 40 }),
        fc.array(queryArb, { minLength: 1, maxLength: 10 }),
        async (raw, queries) => {
          // Fresh collections each run (cheaper than dropping: every write is a durable commit).
          run += 1;
          const plain = embedded.db.collection<Doc>(`prop_plain_${run}`);
          const indexed = embedded.db.collection<Doc>(`prop_indexed_${run}`);
          const docs = raw.map((d, i) => ({
            _id: i,
            ...Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined)),
          }));
          await indexed.createIndexes(INDEXES.map((key) => ({ key })));
          await Promise.all([
            plain.insertMany(docs.map((d) => ({ ...d }))),
            indexed.insertMany(docs.map((d) => ({ ...d }))),
          ]);

          for (const q of queries) {
            // Without a sort, the order (and so which documents a skip or limit keeps) is unspecified.
            const sort: Document | undefined = q.sort ? { ...q.sort, _id: 1 } : undefined;
            const find = async (coll: typeof plain, hint?: string) => {
              let cursor = coll.find(q.filter);
              if (hint) cursor = cursor.hint(hint);
              if (sort) cursor = cursor.sort(sort).skip(q.skip).limit(q.limit);
              const rows = await cursor.toArray();
              return sort ? rows : rows.sort((x, y) => Number(x._id) - Number(y._id));
            };
            const [expected, chosen, ...hinted] = await Promise.all([
              find(plain),
              find(indexed),
              ...names.map((name) => find(indexed, name)),
            ]);
            const label = JSON.stringify({ filter: q.filter, sort, skip: q.skip, limit: q.limit });
            expect(chosen, label).toEqual(expected);
            hinted.forEach((rows, i) => expect(rows, `${label} hint ${names[i]}`).toEqual(expected));
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 60_000);
});

describe("counting from index entries", () => {
  it("counts exactly as a scan does, whether one index covers the filter, two intersect, or documents are read", async () => {
    const indexed = embedded.db.collection("count_indexed");
    const plain = embedded.db.collection("count_plain");
    const companies = [new ObjectId(), new ObjectId(), new ObjectId()];
    const docs: Document[] = Array.from({ length: 3000 }, (_, i) => ({
      _id: i,
      companies:
        i % 11 === 0 ? [{ companyId: companies[0] }, { companyId: companies[1] }] : [{ companyId: companies[i % 3] }],
      isActive: i % 4 !== 0,
      search: [`w${i % 37}`, `n${i}`, ...(i % 5 === 0 ? [`w${i % 37}`] : [])],
      at: new Date(Date.UTC(2026, 0, 1) + (i % 400) * 60_000),
      note: i % 2 ? "odd" : null,
    }));
    await indexed.insertMany(docs);
    await plain.insertMany(docs);
    await indexed.createIndex({ "companies.companyId": 1, isActive: 1, at: 1, _id: 1 });
    await indexed.createIndex({ search: 1 });
    await indexed.createIndex({ at: 1 });
    const filters: Document[] = [
      { "companies.companyId": companies[0], isActive: true },
      { "companies.companyId": companies[1], isActive: false, search: { $regex: "^w1" } },
      { "companies.companyId": companies[0], isActive: true, search: "w3" },
      { search: { $in: ["w2", "w30", "n7"] }, at: { $gte: new Date(Date.UTC(2026, 0, 1, 2)) } },
      { "companies.companyId": companies[2], isActive: true, note: null },
      { "companies.companyId": companies[0], isActive: true, search: { $regex: "^w1", $options: "i" } },
      { at: { $gt: new Date(Date.UTC(2026, 0, 1, 1)), $lte: new Date(Date.UTC(2026, 0, 1, 3)) } },
    ];
    for (const filter of filters) {
      const expected = await plain.countDocuments(filter);
      expect(await indexed.countDocuments(filter), JSON.stringify(filter)).toBe(expected);
      expect(await indexed.countDocuments(filter, { skip: 5, limit: 7 }), JSON.stringify(filter)).toBe(
        Math.min(7, Math.max(0, expected - 5)),
      );
    }
  });
});

describe("the plan cache", () => {
  /** Documents read by every plan, trials included, since the server started. */
  const scanned = async () =>
    ((await embedded.db.admin().command({ serverStatus: 1 })) as Document).metrics.queryExecutor
      .scannedObjects as number;
  const readBy = async (run: () => Promise<unknown>) => {
    const before = await scanned();
    await run();
    return (await scanned()) - before;
  };

  const companies = ["a", "b", "c", "d"];
  const base = Date.UTC(2026, 0, 1);
  const docs: Document[] = Array.from({ length: 4000 }, (_, i) => ({
    _id: i,
    company: companies[i % 4],
    // One document in 499 is "rare": 9 in all, 2 of them in company "c".
    status: i % 499 === 0 ? "rare" : "common",
    createdAt: new Date(base + i * 60_000),
    modifiedAt: new Date(base + (4000 - i) * 60_000),
  }));
  const expected = (filter: (d: Document) => boolean) =>
    docs
      .filter(filter)
      .sort((x, y) => y.createdAt - x.createdAt)
      .slice(0, 10)
      .map((d) => d._id);

  beforeAll(async () => {
    const coll = embedded.db.collection("plan_cache");
    await coll.insertMany(docs);
    // Three indexes can serve a company's page; one of them walks in the page's order.
    await coll.createIndex({ company: 1, createdAt: 1 });
    await coll.createIndex({ company: 1, modifiedAt: 1 });
    await coll.createIndex({ status: 1 });
  });

  it("races the candidates once per query shape, then runs the winner alone", async () => {
    const coll = embedded.db.collection("plan_cache");
    const page = (company: string) => coll.find({ company }).sort({ createdAt: -1 }).limit(10).toArray();

    let rows: Document[] = [];
    const first = await readBy(async () => (rows = await page("a")));
    expect(rows.map((d) => d._id)).toEqual(expected((d) => d.company === "a"));
    // Another company is the same shape: the cached plan reads the 10 documents of the page only.
    const second = await readBy(async () => (rows = await page("b")));
    expect(rows.map((d) => d._id)).toEqual(expected((d) => d.company === "b"));
    expect(second).toBe(10);
    // The race read about 10 documents for each of the two company indexes.
    expect(first).toBeGreaterThan(15);
  });

  it("an aggregate's $sort then $limit (or $skip and $limit) read the page from the index, as a find does", async () => {
    const coll = embedded.db.collection("plan_cache");
    const newest = (company: string) => expected((d) => d.company === company);
    const aggregate = (stages: Document[]) =>
      coll.aggregate([{ $match: { company: "d" } }, { $sort: { createdAt: -1 } }, ...stages]).toArray();

    await aggregate([{ $limit: 10 }]);
    let rows: Document[] = [];
    expect(await readBy(async () => (rows = await aggregate([{ $limit: 10 }])))).toBe(10);
    expect(rows.map((d) => d._id)).toEqual(newest("d"));
    expect(await readBy(async () => (rows = await aggregate([{ $skip: 4 }, { $limit: 6 }])))).toBeLessThanOrEqual(10);
    expect(rows.map((d) => d._id)).toEqual(newest("d").slice(4));
    // The stages after the page run on it; a $limit MongoDB refuses is still refused.
    rows = await aggregate([{ $limit: 3 }, { $project: { _id: 1 } }, { $skip: 1 }]);
    expect(rows).toEqual(
      newest("d")
        .slice(1, 3)
        .map((_id) => ({ _id })),
    );
    await expect(aggregate([{ $limit: 0 }])).rejects.toMatchObject({ code: 15958 });
    await expect(aggregate([{ $skip: -1 }, { $limit: 2 }])).rejects.toMatchObject({ code: 15956 });
  });

  it("races again when the cached plan works far harder than when it won, and caches the new winner", async () => {
    const coll = embedded.db.collection("plan_cache");
    const page = (status: string) => coll.find({ company: "c", status }).sort({ createdAt: -1 }).limit(10).toArray();

    // "common": the index in createdAt order fills the page at once and is cached.
    let rows: Document[] = [];
    await readBy(async () => (rows = await page("common")));
    expect(rows.map((d) => d._id)).toEqual(expected((d) => d.company === "c" && d.status === "common"));
    expect(await readBy(() => page("common"))).toBe(10);

    // "rare": that index would read the whole company (1,000 documents) to find 2; past its
    // budget the candidates race again, and the status index (9 entries) wins.
    await readBy(async () => (rows = await page("rare")));
    expect(rows.map((d) => d._id)).toEqual(expected((d) => d.company === "c" && d.status === "rare"));
    expect(rows).toHaveLength(2);
    expect(await readBy(() => page("rare"))).toBe(9);
  });

  it("builds only the cached winner's plan, and asks the cache only when several indexes could serve", () => {
    const index = (name: string, key: Document) => ({ v: 2, name, key });
    const indexes = [
      index("_id_", { _id: 1 }),
      index("company_1_createdAt_1", { company: 1, createdAt: 1 }),
      index("company_1_modifiedAt_1", { company: 1, modifiedAt: 1 }),
      index("status_1", { status: 1 }),
    ];
    const sort = { createdAt: -1 };
    let asked = 0;
    const winner = (name: string | undefined) => () => {
      asked += 1;
      return name;
    };
    const race = candidatePlans({ company: "a" }, sort, indexes);
    expect(race.map(planName)).toEqual(["index:company_1_createdAt_1", "index:company_1_modifiedAt_1"]);

    const alone = candidatePlans(
      { company: "a" },
      sort,
      indexes,
      undefined,
      undefined,
      winner("index:company_1_modifiedAt_1"),
    );
    expect(alone).toEqual([race[1]]);
    // No winner yet, or one no longer among the indexes: every candidate, as without a cache.
    expect(candidatePlans({ company: "a" }, sort, indexes, undefined, undefined, winner(undefined))).toEqual(race);
    expect(candidatePlans({ company: "a" }, sort, indexes, undefined, undefined, winner("index:gone_1"))).toEqual(race);
    // A winner that cannot serve this filter (no bound, no order) is not taken.
    expect(
      candidatePlans({ company: "a" }, undefined, indexes, undefined, undefined, winner("index:status_1")),
    ).toEqual(candidatePlans({ company: "a" }, undefined, indexes));
    expect(asked).toBe(4);

    // An _id lookup, a hint and a filter one index serves alone never race: the cache is not asked.
    candidatePlans({ _id: 1, company: "a" }, sort, indexes, undefined, undefined, winner("index:status_1"));
    candidatePlans({ company: "a" }, sort, indexes, "status_1", undefined, winner("index:company_1_createdAt_1"));
    candidatePlans(
      { status: "rare" },
      undefined,
      indexes.slice(0, 1).concat(indexes[3]),
      undefined,
      undefined,
      winner("x"),
    );
    expect(asked).toBe(4);
  });

  it("forgets the plans of a collection whose indexes change", async () => {
    const coll = embedded.db.collection("plan_cache");
    const page = () => coll.find({ company: "d" }).sort({ modifiedAt: 1 }).limit(10).toArray();
    await page();
    expect(await readBy(page)).toBe(10);
    await coll.dropIndex("company_1_modifiedAt_1");
    let rows: Document[] = [];
    // No index sorts by modifiedAt now: the company's 1,000 documents are read and sorted.
    expect(await readBy(async () => (rows = await page()))).toBeGreaterThanOrEqual(1000);
    const wanted = docs
      .filter((d) => d.company === "d")
      .sort((x, y) => x.modifiedAt - y.modifiedAt)
      .slice(0, 10)
      .map((d) => d._id);
    expect(rows.map((d) => d._id)).toEqual(wanted);
  });
});
