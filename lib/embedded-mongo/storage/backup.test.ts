/**
 * Backups taken while another process serves the directory and writes to it hold one state that
 * existed; restore refuses what it must refuse without touching the target directory.
 */
import { open } from "lmdb";
import { MongoClient, type Collection } from "mongodb";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREDENTIALS_FILE, startEmbeddedMongo } from "../index";
import { BackupError, backupDatabase, restoreDatabase } from "./backup";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const DB_CLI = path.join(ROOT, "lib", "platform", "cli", "db.ts");

interface PairDoc {
  _id: string;
  pair: number;
  tag: string;
  /** Both documents of a pair are updated by one command: their `n` is always equal. */
  n: number;
  payload: string;
}

/** `npm run db -- --dir DIR --port 0` in a process of its own: the server the backups read from. */
function serveInChild(dir: string): Promise<{ child: ChildProcess; uri: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", DB_CLI, "--dir", dir, "--port", "0"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("\n")) resolve({ child, uri: stdout.split("\n")[0] });
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}: ${stderr}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Writes pairs of documents, one command each, until `until` resolves: inserts, updates and deletes. */
async function writePairs(docs: Collection<PairDoc>, writer: number, until: Promise<void>): Promise<number> {
  let done = false;
  void until.then(() => (done = true));
  let commands = 0;
  for (let k = 0; !done; k++) {
    const pair = writer * 1_000_000 + k;
    const payload = "p".repeat((k * 37) % 300);
    await docs.insertMany(
      [0, 1].map((side) => ({ _id: `${pair}-${side}`, pair, tag: `t${pair}-${side}`, n: 0, payload })),
    );
    await docs.updateMany({ pair: pair - 1 }, { $inc: { n: 1 }, $set: { payload: payload.toUpperCase() } });
    if (k % 3 === 2) await docs.deleteMany({ pair: pair - 2 });
    commands += 3;
  }
  return commands;
}

/** What a restored database must show: whole pairs only, equal `n` in a pair, indexes agreeing with documents. */
async function checkConsistent(docs: Collection<PairDoc>): Promise<number> {
  const all = await docs.find().toArray();
  const byPair = new Map<number, PairDoc[]>();
  for (const doc of all) byPair.set(doc.pair, [...(byPair.get(doc.pair) ?? []), doc]);
  for (const [pair, members] of byPair) {
    expect(members.map((doc) => doc._id).sort(), `pair ${pair}`).toEqual([`${pair}-0`, `${pair}-1`]);
    expect(members[0].n, `pair ${pair}`).toBe(members[1].n);
    expect(members[0].payload, `pair ${pair}`).toBe(members[1].payload);
  }
  // Each index, read on its own, names exactly the documents there are.
  const ids = all.map((doc) => doc._id).sort();
  const byTag = await docs
    .find({ tag: { $gte: "" } }, { projection: { _id: 1 } })
    .hint({ tag: 1 })
    .toArray();
  const byPairIndex = await docs
    .find({ pair: { $gte: 0 } }, { projection: { _id: 1 } })
    .hint({ pair: 1, n: 1 })
    .toArray();
  expect(byTag.map((doc) => doc._id).sort()).toEqual(ids);
  expect(byPairIndex.map((doc) => doc._id).sort()).toEqual(ids);
  expect(await docs.countDocuments({ pair: { $gte: 0 } }, { hint: { pair: 1, n: 1 } })).toBe(all.length);
  return all.length;
}

describe("backups of a directory another process serves", { timeout: 120_000 }, () => {
  let parent: string;
  let dir: string;
  let server: { child: ChildProcess; uri: string };

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), "embedded-mongo-backup-"));
    dir = path.join(parent, "db");
    server = await serveInChild(dir);
  });

  afterAll(async () => {
    if (server) await stop(server.child);
    await rm(parent, { recursive: true, force: true });
  });

  it("holds one state that existed, taken during concurrent writes, and restores into a database that serves it", async () => {
    const client = await MongoClient.connect(server.uri);
    const backups: string[] = [];
    try {
      const docs = client.db("backup").collection<PairDoc>("pairs");
      await docs.createIndex({ tag: 1 }, { unique: true });
      await docs.createIndex({ pair: 1, n: 1 });
      let finish!: () => void;
      const until = new Promise<void>((resolve) => (finish = resolve));
      const writers = Promise.all([0, 1, 2, 3].map((writer) => writePairs(docs, writer, until)));
      try {
        // Backups one after another while the writes go on, each after the documents changed.
        let previous = 0;
        for (let i = 0; i < 4; i++) {
          while ((await docs.estimatedDocumentCount()) < previous + 50) await new Promise((r) => setTimeout(r, 10));
          const file = path.join(parent, `backup-${i}.mdb`);
          const result = await backupDatabase(dir, file);
          expect(result).toMatchObject({ file, collections: 1 });
          expect(result.documents).toBeGreaterThan(previous);
          previous = result.documents;
          expect(fs.statSync(file).mode & 0o777).toBe(0o600);
          backups.push(file);
        }
      } finally {
        finish();
        // The writers stop before the client closes, whatever happened to the backups.
        await writers.catch(() => undefined);
      }
      for (const commands of await writers) expect(commands).toBeGreaterThan(0);
      // Nothing beside the backups: no temporary file was left behind.
      expect(fs.readdirSync(parent).sort()).toEqual([
        "backup-0.mdb",
        "backup-1.mdb",
        "backup-2.mdb",
        "backup-3.mdb",
        "db",
      ]);
    } finally {
      await client.close();
    }

    const counts: number[] = [];
    for (const [i, file] of backups.entries()) {
      const target = path.join(parent, `restored-${i}`);
      const restored = await restoreDatabase(file, target);
      expect(restored.replaced).toBe(false);
      expect(fs.statSync(target).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(target, "data.mdb")).mode & 0o777).toBe(0o600);
      const handle = await startEmbeddedMongo({ dir: target });
      const reader = await MongoClient.connect(handle.uri);
      try {
        const docs = reader.db("backup").collection<PairDoc>("pairs");
        const indexes = (await docs.listIndexes().toArray()).map((index) => index.name).sort();
        expect(indexes).toEqual(["_id_", "pair_1_n_1", "tag_1"]);
        const count = await checkConsistent(docs);
        expect(count).toBe(restored.documents);
        counts.push(count);
        // The restored database takes writes, its unique index still enforced.
        await docs.insertOne({ _id: "after", pair: -1, tag: "after", n: 0, payload: "" });
        await expect(docs.insertOne({ _id: "again", pair: -1, tag: "after", n: 0, payload: "" })).rejects.toMatchObject(
          { code: 11000 },
        );
      } finally {
        await reader.close();
        await handle.close();
      }
    }
    // Four different states, each whole.
    expect(new Set(counts).size).toBe(4);
  });

  it("refuses to restore into the directory a live process serves, and leaves it as it was", async () => {
    const file = path.join(parent, "served.mdb");
    await backupDatabase(dir, file);
    const before = fs.readdirSync(dir).sort();
    await expect(restoreDatabase(file, dir, { force: true })).rejects.toThrow(
      new BackupError(
        `${dir} is served by process ${server.child.pid} on port ${new URL(server.uri).port}: stop it before restoring into its directory.`,
      ),
    );
    expect(fs.readdirSync(dir).sort()).toEqual(before);
    expect(fs.readdirSync(parent).filter((name) => name.startsWith("."))).toEqual([]);
    // The server goes on serving.
    const client = await MongoClient.connect(server.uri);
    try {
      expect(await client.db("backup").command({ ping: 1 })).toMatchObject({ ok: 1 });
    } finally {
      await client.close();
    }
  });
});

describe("backup and restore refuse what they cannot do", { timeout: 60_000 }, () => {
  let parent: string;
  let source: string;
  let file: string;

  beforeAll(async () => {
    parent = await mkdtemp(path.join(tmpdir(), "embedded-mongo-restore-"));
    source = path.join(parent, "source");
    const handle = await startEmbeddedMongo({ dir: source });
    const client = await MongoClient.connect(handle.uri);
    await client
      .db("app")
      .collection("users")
      .insertMany([{ email: "a@example.com" }, { email: "b@example.com" }]);
    await client.close();
    await handle.close();
    file = path.join(parent, "source.mdb");
    await backupDatabase(source, file);
  });

  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it("a backup never replaces an existing file unless forced", async () => {
    const existing = path.join(parent, "existing.mdb");
    fs.writeFileSync(existing, "keep me");
    await expect(backupDatabase(source, existing)).rejects.toThrow(
      new BackupError(`${existing} already exists: add --force to replace it.`),
    );
    expect(fs.readFileSync(existing, "utf8")).toBe("keep me");
    const forced = await backupDatabase(source, existing, { force: true });
    expect(forced).toMatchObject({ collections: 1, documents: 2, bytes: fs.statSync(existing).size });
  });

  it("a backup is never written into the database's own directory", async () => {
    const before = fs.readFileSync(path.join(source, "data.mdb"));
    for (const target of [path.join(source, "data.mdb"), path.join(source, "backup.mdb")]) {
      await expect(backupDatabase(source, target, { force: true })).rejects.toThrow(
        new BackupError(`Write the backup outside the database directory ${source}.`),
      );
    }
    expect(fs.readFileSync(path.join(source, "data.mdb")).equals(before)).toBe(true);
    expect(fs.existsSync(path.join(source, "backup.mdb"))).toBe(false);
  });

  it("a directory without a database has nothing to back up", async () => {
    const empty = path.join(parent, "no-database");
    fs.mkdirSync(empty);
    const target = path.join(parent, "nothing.mdb");
    await expect(backupDatabase(empty, target)).rejects.toThrow(
      new BackupError(`There is no database in ${empty} (no data.mdb): name its directory with --dir.`),
    );
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.readdirSync(empty)).toEqual([]);
  });

  it("restores into a new directory, which then serves the documents", async () => {
    const target = path.join(parent, "new", "db");
    expect(await restoreDatabase(file, target)).toMatchObject({
      dir: target,
      replaced: false,
      collections: 1,
      documents: 2,
    });
    expect(fs.readdirSync(target)).toEqual(["data.mdb"]);
    const handle = await startEmbeddedMongo({ dir: target });
    const client = await MongoClient.connect(handle.uri);
    try {
      expect((await client.db("app").collection("users").find().toArray()).map((user) => user.email).sort()).toEqual([
        "a@example.com",
        "b@example.com",
      ]);
    } finally {
      await client.close();
      await handle.close();
    }
  });

  it("refuses a directory that holds a database or anything else, unless forced; forced, keeps its credentials", async () => {
    const target = path.join(parent, "occupied");
    const handle = await startEmbeddedMongo({ dir: target });
    const client = await MongoClient.connect(handle.uri);
    await client.db("app").collection("other").insertOne({ other: true });
    await client.close();
    await handle.close();
    const credentials = fs.readFileSync(path.join(target, CREDENTIALS_FILE), "utf8");
    const data = fs.readFileSync(path.join(target, "data.mdb"));

    await expect(restoreDatabase(file, target)).rejects.toThrow(
      new BackupError(`${target} already holds a database: add --force to replace it (its credentials are kept).`),
    );
    expect(fs.readFileSync(path.join(target, "data.mdb")).equals(data)).toBe(true);

    const notes = path.join(parent, "notes");
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, "README"), "mine");
    await expect(restoreDatabase(file, notes)).rejects.toThrow(
      new BackupError(`${notes} is not empty: add --force to restore into it anyway (only data.mdb is written).`),
    );
    expect(fs.readdirSync(notes)).toEqual(["README"]);

    expect(await restoreDatabase(file, target, { force: true })).toMatchObject({ replaced: true, documents: 2 });
    expect(fs.readFileSync(path.join(target, CREDENTIALS_FILE), "utf8")).toBe(credentials);
    const restarted = await startEmbeddedMongo({ dir: target });
    const reader = await MongoClient.connect(restarted.uri);
    try {
      expect(await reader.db("app").listCollections({}, { nameOnly: true }).toArray()).toEqual([
        expect.objectContaining({ name: "users" }),
      ]);
      expect(await reader.db("app").collection("users").countDocuments()).toBe(2);
    } finally {
      await reader.close();
      await restarted.close();
    }
  });

  it("refuses a file that is not a backup of this database without touching the directory", async () => {
    const target = path.join(parent, "kept");
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, "data.mdb"), "not replaced");
    const junk = path.join(parent, "junk.mdb");
    fs.writeFileSync(junk, "this is no database\n".repeat(500));
    const empty = path.join(parent, "empty.mdb");
    fs.writeFileSync(empty, "");
    // A real LMDB file, but of another program: no collection catalog in it.
    const foreignDir = path.join(parent, "foreign");
    const foreign = open({ path: foreignDir, noSubdir: false, maxDbs: 2 });
    await foreign.openDB<string, string>("things", {}).put("a", "b");
    await foreign.close();
    const cases = [
      [junk, "it is not an LMDB file."],
      [empty, "it is not an LMDB file."],
      [path.join(foreignDir, "data.mdb"), "it has no collection catalog"],
    ] as const;
    for (const [bad, why] of cases) {
      await expect(restoreDatabase(bad, target, { force: true })).rejects.toThrow(
        new BackupError(`${bad} is not a backup of the embedded database: ${why}`),
      );
      const fresh = path.join(parent, "never-created");
      await expect(restoreDatabase(bad, fresh)).rejects.toBeInstanceOf(BackupError);
      expect(fs.existsSync(fresh)).toBe(false);
    }
    expect(fs.readdirSync(target)).toEqual(["data.mdb"]);
    expect(fs.readFileSync(path.join(target, "data.mdb"), "utf8")).toBe("not replaced");
    expect(fs.readdirSync(parent).filter((name) => name.startsWith("."))).toEqual([]);
    await expect(restoreDatabase(path.join(parent, "missing.mdb"), target)).rejects.toThrow(
      new BackupError(`There is no backup file at ${path.join(parent, "missing.mdb")}.`),
    );
  });
});
