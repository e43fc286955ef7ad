/**
 * Acknowledged writes survive kill -9: a child process writes and prints what the server
 * acknowledged, is killed at a random moment, and the directory is reopened here, several
 * rounds on the same directory.
 */
import { MongoClient, MongoServerError } from "mongodb";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedMongo, startOrAttach, type EmbeddedMongoHandle } from "../index";

const CHILD = path.join(__dirname, "..", "testing", "durability-child.ts");
const ROOT = path.resolve(__dirname, "..", "..", "..");
const ROUNDS = 4;

interface Acknowledged {
  inserted: Set<string>;
  deleted: Set<string>;
  /** Deletes sent, acknowledged or not: an insert of these may be gone. */
  deleting: Set<string>;
  counter: number;
}

interface Killed extends Acknowledged {
  pid: number;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** How many insert lines had arrived when the kill was decided, and the delay after it. */
  killAfter: number;
  delayMs: number;
}

const randomInt = (lo: number, hi: number) => lo + Math.floor(Math.random() * (hi - lo + 1));

/** Runs the child on `dir` until it printed `killAfter` inserts, waits `delayMs`, kills it. */
function runAndKill(dir: string, round: number, killAfter: number, delayMs: number): Promise<Killed> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, dir, String(round)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const ack: Acknowledged = { inserted: new Set(), deleted: new Set(), deleting: new Set(), counter: 0 };
    let partial = "";
    let stderr = "";
    let killing = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the child printed ${ack.inserted.size} inserts in 40 s; stderr:\n${stderr}`));
    }, 40_000);

    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop()!;
      for (const line of lines) {
        const [kind, value] = line.split(" ");
        if (kind === "i") ack.inserted.add(value);
        else if (kind === "d") ack.deleted.add(value);
        else if (kind === "D") ack.deleting.add(value);
        else if (kind === "c") ack.counter = Math.max(ack.counter, Number(value));
        else {
          child.kill("SIGKILL");
          reject(new Error(`unexpected line from the child: ${line}`));
        }
      }
      if (!killing && ack.inserted.size >= killAfter) {
        killing = true;
        setTimeout(() => child.kill("SIGKILL"), delayMs);
      }
    });
    // "close" rather than "exit": every line already in the pipe has been read by then.
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (!killing) reject(new Error(`the child exited by itself (${signal ?? code}); stderr:\n${stderr}`));
      else resolve({ ...ack, pid: child.pid!, signal, stderr, killAfter, delayMs });
    });
    child.on("error", reject);
  });
}

describe("kill -9 while writing", () => {
  let dir: string;
  const everInserted = new Set<string>();
  const everDeleted = new Set<string>();
  const everDeleting = new Set<string>();
  let counterFloor = 0;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-durability-"));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (let round = 1; round <= ROUNDS; round++) {
    it(
      `round ${round}: every acknowledged write is there after the kill, and the directory opens cleanly`,
      { timeout: 60_000 },
      async () => {
        const killed = await runAndKill(dir, round, randomInt(5, 60), randomInt(0, 250));
        const context = `round ${round}, killed after ${killed.killAfter} inserts + ${killed.delayMs} ms`;
        expect(killed.signal, context).toBe("SIGKILL");
        expect(killed.inserted.size, context).toBeGreaterThanOrEqual(killed.killAfter);
        for (const id of killed.inserted) everInserted.add(id);
        for (const id of killed.deleted) everDeleted.add(id);
        for (const id of killed.deleting) everDeleting.add(id);
        counterFloor = Math.max(counterFloor, killed.counter);

        // The killed process could not remove its lock file; its pid is dead, so it must not block.
        const lock = JSON.parse(fs.readFileSync(path.join(dir, "mongod.lock"), "utf8")) as { pid: number };
        expect(lock.pid, context).toBe(killed.pid);

        // Alternate the two ways in: both must take over from the dead owner, not attach to it.
        const handle: EmbeddedMongoHandle =
          round % 2 ? await startEmbeddedMongo({ dir }) : await startOrAttach({ dir });
        expect(handle.attached).toBe(false);
        const client = await MongoClient.connect(handle.uri);
        try {
          const db = client.db("durability");
          const docs = db.collection<{ _id: string; tag: string; round: number }>("docs");

          const stored = new Set((await docs.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
          const missing = [...everInserted].filter((id) => !everDeleting.has(id) && !stored.has(id));
          expect(missing, `${context}: acknowledged inserts lost`).toEqual([]);
          const resurrected = [...everDeleted].filter((id) => stored.has(id));
          expect(resurrected, `${context}: acknowledged deletes undone`).toEqual([]);
          // Nothing appears that this round's writer had not at least started writing.
          for (const id of stored) expect(id, context).toMatch(/^r[1-4]-\d+(-[0-2])?$/);

          const counter = await db.collection<{ _id: string; n: number }>("counter").findOne({ _id: "counter" });
          expect(counter?.n ?? 0, `${context}: acknowledged $inc lost`).toBeGreaterThanOrEqual(counterFloor);

          // The catalog and the unique index came back consistent with the documents.
          const names = (await db.listCollections().toArray()).map((c) => c.name);
          expect(names).toContain("docs");
          if (counterFloor > 0) expect(names).toContain("counter");
          expect(names.filter((n) => n !== "docs" && n !== "counter")).toEqual([]);
          const indexes = await docs.listIndexes().toArray();
          expect(
            indexes.find((i) => i.name === "tag_1"),
            context,
          ).toMatchObject({ key: { tag: 1 }, unique: true });
          expect(await docs.countDocuments({}), context).toBe(stored.size);
          const viaIndex = await docs.find({}).hint("tag_1").project({ _id: 1 }).toArray();
          expect(viaIndex.length, `${context}: index entries vs documents`).toBe(stored.size);
          const sample = [...stored][randomInt(0, stored.size - 1)];
          expect(await docs.findOne({ tag: `t-${sample}` }), context).toMatchObject({ _id: sample });

          // It accepts writes, and still enforces the unique index.
          await docs.insertOne({ _id: `check-${round}`, tag: `t-check-${round}`, round: 0 });
          await expect(
            docs.insertOne({ _id: `dup-${round}`, tag: `t-check-${round}`, round: 0 }),
          ).rejects.toMatchObject({ code: 11000 });
          await expect(docs.insertOne({ _id: `check-${round}`, tag: "other", round: 0 })).rejects.toBeInstanceOf(
            MongoServerError,
          );
          expect(await docs.findOne({ _id: `check-${round}` })).toMatchObject({ tag: `t-check-${round}` });
          expect(await docs.countDocuments({ round })).toBe(
            [...stored].filter((id) => id.startsWith(`r${round}-`)).length,
          );
          await docs.deleteOne({ _id: `check-${round}` });
        } finally {
          await client.close();
          await handle.close();
        }
        expect(fs.existsSync(path.join(dir, "mongod.lock"))).toBe(false);
      },
    );
  }
});
