/**
 * The `validate` command through the driver: a sound collection with every kind of index is
 * valid, with MongoDB's counts; an index entry lost or left behind (as a crash between two writes
 * could do, simulated by editing the LMDB files while the database is stopped) makes it invalid,
 * naming the index; a record that is not BSON is reported; a missing collection is
 * NamespaceNotFound.
 */
import { open } from "lmdb";
import { MongoClient, MongoServerError, type Db } from "mongodb";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedMongo, type EmbeddedMongoHandle } from "../index";

let dir: string;
let handle: EmbeddedMongoHandle | undefined;
let client: MongoClient | undefined;

async function serve(): Promise<Db> {
  handle = await startEmbeddedMongo({ dir });
  client = await MongoClient.connect(handle.localUri);
  return client.db("v");
}

async function stop(): Promise<void> {
  await client?.close();
  await handle?.close();
  client = undefined;
  handle = undefined;
}

/** Edits the stopped database's files directly, below the store, as a torn write would leave them. */
async function withRawFiles(
  edit: (dbs: { docs: ReturnType<typeof openDb>; index: ReturnType<typeof openDb> }) => void,
): Promise<void> {
  const env = open({ path: dir, noSubdir: false, maxDbs: 8 });
  const dbs = { docs: openDb(env, "docs"), index: openDb(env, "index") };
  env.transactionSync(() => edit(dbs));
  await env.close();
}

function openDb(env: ReturnType<typeof open>, name: string) {
  return env.openDB<Buffer, Array<string | number>>(name, { encoding: "binary" });
}

async function seed(db: Db): Promise<void> {
  const things = db.collection("things");
  await things.createIndexes([
    { key: { a: 1, b: -1 } },
    { key: { tags: 1 } },
    { key: { opt: 1 }, sparse: true },
    { key: { score: 1 }, partialFilterExpression: { score: { $gt: 5 } } },
    { key: { email: 1 }, unique: true, collation: { locale: "en", strength: 2 } },
  ]);
  await things.insertMany(
    Array.from({ length: 20 }, (_, i) => ({
      _id: i as never,
      a: i % 4,
      b: `b${i}`,
      tags: i % 2 ? ["x", "y", `t${i}`] : [],
      ...(i % 3 ? { opt: i } : {}),
      score: i,
      email: `User${i}@Example.com`,
    })),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-validate-"));
});

afterEach(stop);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("validate", () => {
  it("finds a sound collection valid, with MongoDB's fields and the keys of each index", async () => {
    const db = await serve();
    await seed(db);
    const report = await db.command({ validate: "things" });
    expect(report).toMatchObject({
      ns: "v.things",
      nInvalidDocuments: 0,
      nNonCompliantDocuments: 0,
      nrecords: 20,
      nIndexes: 6,
      valid: true,
      repaired: false,
      warnings: [],
      errors: [],
      extraIndexEntries: [],
      missingIndexEntries: [],
      corruptRecords: [],
      ok: 1,
    });
    expect(report.advice).toBeUndefined();
    expect(report.keysPerIndex).toEqual({
      _id_: 20,
      "a_1_b_-1": 20,
      // Ten documents hold three tags each; an empty array is one (undefined) key, as in MongoDB.
      tags_1: 10 * 3 + 10,
      opt_1: 13,
      score_1: 14,
      email_1: 20,
    });
    expect(Object.keys(report.indexDetails).sort()).toEqual([
      "_id_",
      "a_1_b_-1",
      "email_1",
      "opt_1",
      "score_1",
      "tags_1",
    ]);
    for (const details of Object.values(report.indexDetails)) expect(details).toEqual({ valid: true });
    // `full` changes nothing here: every check is the full one.
    expect(await db.command({ validate: "things", full: true })).toMatchObject({
      valid: true,
      keysPerIndex: report.keysPerIndex,
    });
  });

  it("stays valid after updates and deletes that move documents between index entries", async () => {
    const db = await serve();
    const things = db.collection("things");
    await things.updateMany({ a: 1 }, { $push: { tags: "z" }, $unset: { opt: "" }, $set: { score: 1 } } as never);
    await things.updateOne({ _id: 2 as never }, { $set: { email: "other@example.com", tags: ["q"] } });
    await things.deleteMany({ a: 3 });
    const report = await db.command({ validate: "things" });
    expect(report).toMatchObject({
      valid: true,
      nrecords: 15,
      errors: [],
      missingIndexEntries: [],
      extraIndexEntries: [],
    });
  });

  it("reports a lost and a stray index entry as invalid, naming each index", async () => {
    await withRawFiles(({ index }) => {
      const lost = [
        ...index.getKeys({ start: ["v", "things", "tags_1"], end: ["v", "things", "tags_1", "\uffff\uffff"] }),
      ][0];
      expect(lost).toBeDefined();
      void index.remove(lost);
      const first = [
        ...index.getKeys({ start: ["v", "things", "a_1_b_-1"], end: ["v", "things", "a_1_b_-1", "\uffff\uffff"] }),
      ][0];
      // The same key, pointing at a document that does not exist.
      void index.put([...first.slice(0, -1), 999], Buffer.alloc(0));
    });
    const db = await serve();
    const report = await db.command({ validate: "things" });
    expect(report.valid).toBe(false);
    expect(report.errors).toEqual([
      "Detected 1 extra index entries in index 'a_1_b_-1'.",
      "Detected 1 missing index entries in index 'tags_1'.",
    ]);
    expect(report.missingIndexEntries).toHaveLength(1);
    expect(report.missingIndexEntries[0]).toMatchObject({ indexName: "tags_1" });
    expect(report.extraIndexEntries).toEqual([{ indexName: "a_1_b_-1", recordId: "3:999" }]);
    expect(report.indexDetails).toMatchObject({
      tags_1: { valid: false },
      "a_1_b_-1": { valid: false },
      opt_1: { valid: true },
      email_1: { valid: true },
    });
    expect(report.advice).toMatch(/corrupt namespace/);
    expect(report.ok).toBe(1);
  });

  it("reports a record that does not decode as BSON", async () => {
    await withRawFiles(({ docs }) => {
      void docs.put(["v", "things", 3, 12345], Buffer.from([9, 0, 0, 0, 42]));
    });
    const db = await serve();
    const report = await db.command({ validate: "things" });
    expect(report).toMatchObject({ valid: false, nInvalidDocuments: 1, corruptRecords: ["3:12345"] });
    expect(report.errors).toContain("Detected 1 invalid documents. See corruptRecords.");
  });

  it("counts documents that break the collection's validator as warnings, not errors", async () => {
    const db = await serve();
    await db.createCollection("ruled");
    await db.collection("ruled").insertMany([{ n: 1 }, { n: "one" }, { n: 2 }]);
    await db.command({ collMod: "ruled", validator: { n: { $type: "number" } } });
    const report = await db.command({ validate: "ruled" });
    expect(report).toMatchObject({ valid: true, nNonCompliantDocuments: 1, errors: [] });
    expect(report.warnings).toHaveLength(1);
  });

  it("keys a collection with a default collation through its collated _id index", async () => {
    const db = await serve();
    await db.createCollection("collated", { collation: { locale: "fr", strength: 1 } });
    await db.collection("collated").insertMany([{ _id: "Élan" as never }, { _id: "b" as never }]);
    const report = await db.command({ validate: "collated" });
    expect(report).toMatchObject({ valid: true, nrecords: 2, keysPerIndex: { _id_: 2 } });
  });

  it("finds capped collections, text and hashed indexes valid", async () => {
    const db = await serve();
    await db.createCollection("ring", { capped: true, size: 4096, max: 5 });
    await db.collection("ring").insertMany(Array.from({ length: 12 }, (_, i) => ({ i })));
    expect(await db.command({ validate: "ring" })).toMatchObject({ valid: true, nrecords: 5, nIndexes: 1 });
    const notes = db.collection("notes");
    await notes.createIndex({ body: "text" });
    await notes.createIndex({ owner: "hashed" });
    await notes.insertMany([
      { body: "the quick fox", owner: "a" },
      { body: "lazy dogs", owner: "b" },
      { body: "no owner" },
    ]);
    const report = await db.command({ validate: "notes" });
    // One text key per distinct term after stop words and stemming: quick, fox; lazi, dog; owner.
    expect(report).toMatchObject({ valid: true, nrecords: 3, keysPerIndex: { owner_hashed: 3, body_text: 5 } });
  });

  it("answers NamespaceNotFound for a missing collection, and refuses a view", async () => {
    const db = await serve();
    const missing = await db.command({ validate: "nothing" }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(MongoServerError);
    expect(missing).toMatchObject({
      code: 26,
      codeName: "NamespaceNotFound",
      message: "Collection 'v.nothing' does not exist to validate.",
    });
    await db.createCollection("view", { viewOn: "things", pipeline: [] });
    await expect(db.command({ validate: "view" })).rejects.toMatchObject({
      code: 166,
      codeName: "CommandNotSupportedOnView",
    });
  });
});
