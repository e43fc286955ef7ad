/**
 * Nothing acknowledged is lost: `npm run db` serves a directory in its own process, many
 * connections write to it at once (inserts, ordered and unordered batches, `$inc` through update
 * and findAndModify), and the process is killed with SIGKILL at a random moment of the burst. It
 * then starts again on the directory the crash left (its lock file, socket and LMDB lock still
 * there), and every write it had acknowledged must be there, with indexes that agree with the
 * documents. Several rounds on one directory; the last restart is the server's own
 * `startOrAttach`. The seed is printed; DB_CRASH_SEED=<seed> replays the same choices.
 */
import { startOrAttach } from "@/lib/embedded-mongo";
import { generator, killDbProcesses, startDb, type DbProcess } from "@/lib/tools/testing/db-process";
import { MongoClient, type Collection } from "mongodb";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROUNDS = 3;
const WORKERS = 12;
const CLIENTS = 4;
const COUNTERS = 6;

interface Docs {
  _id: string;
  round: number;
  w: number;
  seq: number;
  tag: string;
  tags: string[];
  opt?: number;
  payload: string;
}

/** What the burst sent and what the server acknowledged, over every round. */
class Ledger {
  readonly sent = new Set<string>();
  readonly acknowledged = new Set<string>();
  readonly incSent = new Array<number>(COUNTERS).fill(0);
  readonly incAcknowledged = new Array<number>(COUNTERS).fill(0);
  acks = 0;
}

/** One writer: random writes, one at a time, until one fails (the server is gone). */
async function writer(
  rand: () => number,
  docs: Collection<Docs>,
  counters: Collection<{ _id: string; n: number }>,
  round: number,
  w: number,
  ledger: Ledger,
  onAck: () => void,
): Promise<void> {
  for (let seq = 0; ; seq++) {
    const pick = rand();
    const doc = (k: number): Docs => {
      const id = `r${round}-w${w}-${seq}-${k}`;
      return {
        _id: id,
        round,
        w,
        seq,
        tag: `t-${id}`,
        tags: [`a${seq % 5}`, `b${k}`],
        ...(seq % 3 ? { opt: seq } : {}),
        payload: "x".repeat(Math.floor(rand() * (rand() < 0.15 ? 400_000 : 3000))),
      };
    };
    if (pick < 0.4) {
      const one = doc(0);
      ledger.sent.add(one._id);
      await docs.insertOne(one);
      ledger.acknowledged.add(one._id);
    } else if (pick < 0.6) {
      const batch = Array.from({ length: 2 + Math.floor(rand() * 6) }, (_, k) => doc(k));
      for (const d of batch) ledger.sent.add(d._id);
      const result = await docs.insertMany(batch, { ordered: seq % 2 === 0 });
      expect(result.insertedCount).toBe(batch.length);
      for (const d of batch) ledger.acknowledged.add(d._id);
    } else {
      const k = Math.floor(rand() * COUNTERS);
      ledger.incSent[k] += 1;
      if (pick < 0.85) await counters.updateOne({ _id: `c${k}` }, { $inc: { n: 1 } }, { upsert: true });
      else
        await counters.findOneAndUpdate(
          { _id: `c${k}` },
          { $inc: { n: 1 } },
          { upsert: true, returnDocument: "after" },
        );
      ledger.incAcknowledged[k] += 1;
    }
    ledger.acks += 1;
    onAck();
  }
}

/** Connects, drives the burst, kills the process after `killAt` acknowledged writes; resolves once every writer stopped. */
async function burstAndKill(
  db: DbProcess,
  rand: () => number,
  round: number,
  killAt: number,
  ledger: Ledger,
): Promise<void> {
  const options = {
    retryWrites: false,
    retryReads: false,
    maxPoolSize: Math.ceil(WORKERS / CLIENTS),
    serverSelectionTimeoutMS: 1500,
    connectTimeoutMS: 10_000,
  };
  const clients = await Promise.all(Array.from({ length: CLIENTS }, () => MongoClient.connect(db.uri, options)));
  const start = ledger.acks;
  let killed = false;
  const onAck = () => {
    if (!killed && ledger.acks - start >= killAt) {
      killed = true;
      db.child.kill("SIGKILL");
    }
  };
  const writers = Array.from({ length: WORKERS }, (_, w) => {
    const database = clients[w % CLIENTS].db("crash");
    return writer(
      generator(Math.floor(rand() * 2 ** 32)),
      database.collection<Docs>("docs"),
      database.collection("counters"),
      round,
      w,
      ledger,
      onAck,
    );
  });
  const outcomes = await Promise.allSettled(writers);
  expect(killed, `round ${round}: the burst ended before ${killAt} acknowledged writes`).toBe(true);
  // Every writer stopped on the server's disappearance, not on an answer of the server.
  for (const outcome of outcomes) {
    expect(outcome.status).toBe("rejected");
    const reason = (outcome as PromiseRejectedResult).reason as Error & { writeErrors?: unknown };
    if (reason.name === "MongoBulkWriteError") {
      // insertMany reports the lost connection of its batch as a bulk write error without write errors.
      expect([reason.writeErrors ?? []].flat(), reason.message).toEqual([]);
      expect(reason.message).toMatch(/ECONNRESET|EPIPE|closed|connect/i);
    } else {
      expect(
        [
          "MongoNetworkError",
          "MongoServerSelectionError",
          "MongoPoolClearedError",
          "MongoNetworkTimeoutError",
          "MongoTopologyClosedError",
        ],
        reason.message,
      ).toContain(reason.name);
    }
  }
  expect(await db.exited).toBe("SIGKILL");
  await Promise.all(clients.map((client) => client.close(true)));
}

/** Every acknowledged write is there, nothing that was never sent is, and the indexes agree with the documents. */
async function checkAgainst(uri: string, ledger: Ledger, context: string): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    const db = client.db("crash");
    const stored = new Set(
      (
        await db
          .collection<Docs>("docs")
          .find({}, { projection: { _id: 1 } })
          .toArray()
      ).map((d) => d._id),
    );
    expect(
      [...ledger.acknowledged].filter((id) => !stored.has(id)),
      `${context}: acknowledged inserts lost`,
    ).toEqual([]);
    expect(
      [...stored].filter((id) => !ledger.sent.has(id)),
      `${context}: documents nobody sent`,
    ).toEqual([]);

    const counters = new Map(
      (await db.collection<{ _id: string; n: number }>("counters").find().toArray()).map((c) => [c._id, c.n]),
    );
    for (let k = 0; k < COUNTERS; k++) {
      const n = counters.get(`c${k}`) ?? 0;
      expect(n, `${context}: counter c${k} lost an acknowledged $inc`).toBeGreaterThanOrEqual(
        ledger.incAcknowledged[k],
      );
      expect(n, `${context}: counter c${k} counts more than was sent`).toBeLessThanOrEqual(ledger.incSent[k]);
    }

    for (const name of ["docs", "counters"]) {
      const report = await db.command({ validate: name, full: true });
      expect(report, `${context}: validate ${name}`).toMatchObject({
        valid: true,
        errors: [],
        missingIndexEntries: [],
        extraIndexEntries: [],
        nInvalidDocuments: 0,
      });
      if (name === "docs") {
        expect(report.nrecords).toBe(stored.size);
        expect(report.keysPerIndex).toMatchObject({ tag_1: stored.size, "w_1_seq_-1": stored.size });
      }
    }
  } finally {
    await client.close();
  }
}

/** The crash left its files behind: the lock names the dead process, the socket file is still there. */
function expectCrashLeftovers(dir: string, pid: number): void {
  const lock = JSON.parse(fs.readFileSync(path.join(dir, "mongod.lock"), "utf8")) as { pid: number };
  expect(lock.pid).toBe(pid);
  expect(fs.existsSync(path.join(dir, "mongod.sock"))).toBe(true);
  expect(fs.existsSync(path.join(dir, "lock.mdb"))).toBe(true);
}

describe("npm run db killed with SIGKILL in the middle of a burst of writes", () => {
  const seed = Number(process.env.DB_CRASH_SEED) || Math.floor(Math.random() * 2 ** 31);
  const rand = generator(seed);
  const ledger = new Ledger();
  let parent: string;
  let dir: string;

  beforeAll(async () => {
    console.log(`db-crash seed ${seed} (replay with DB_CRASH_SEED=${seed})`);
    parent = await mkdtemp(path.join(tmpdir(), "db-crash-"));
    dir = path.join(parent, "db");
  });

  afterAll(async () => {
    killDbProcesses();
    if (parent) await rm(parent, { recursive: true, force: true });
  });

  it(
    `keeps every acknowledged write over ${ROUNDS} kills, and starts again on the crashed directory`,
    { timeout: 120_000 },
    async () => {
      let db = await startDb(dir);
      const setup = await MongoClient.connect(db.uri);
      const docs = setup.db("crash").collection<Docs>("docs");
      await docs.createIndexes([
        { key: { tag: 1 }, unique: true },
        { key: { w: 1, seq: -1 } },
        { key: { tags: 1 } },
        { key: { opt: 1 }, sparse: true },
      ]);
      await setup.close();

      for (let round = 1; round <= ROUNDS; round++) {
        const killAt = 40 + Math.floor(rand() * 400);
        const context = `seed ${seed}, round ${round}, killed after ${killAt} acknowledged writes`;
        const pid = db.child.pid!;
        await burstAndKill(db, rand, round, killAt, ledger);
        expectCrashLeftovers(dir, pid);

        if (round < ROUNDS) {
          db = await startDb(dir);
          await checkAgainst(db.uri, ledger, context);
        } else {
          // The server's own way in takes over from the dead owner rather than attach to it.
          const handle = await startOrAttach({ dir });
          try {
            expect(handle.attached).toBe(false);
            await checkAgainst(handle.uri, ledger, context);
          } finally {
            await handle.close();
          }
          expect(fs.existsSync(path.join(dir, "mongod.lock"))).toBe(false);
        }
      }
      // Every round wrote something that had to survive.
      expect(ledger.acknowledged.size).toBeGreaterThan(ROUNDS * 10);
    },
  );

  it(
    "starts on a crashed directory whose dead owner's pid now belongs to another process",
    { timeout: 60_000 },
    async () => {
      const reused = path.join(parent, "reused");
      /** After a restart of the machine or container, the dead owner's pid is often someone else's: here, this test's own. */
      const giveDeadPidToLiveProcess = () => {
        const lockFile = path.join(reused, "mongod.lock");
        const lock = JSON.parse(fs.readFileSync(lockFile, "utf8")) as { pid: number };
        fs.writeFileSync(lockFile, JSON.stringify({ ...lock, pid: process.pid }));
      };
      const crash = async (db: DbProcess) => {
        db.child.kill("SIGKILL");
        expect(await db.exited).toBe("SIGKILL");
      };

      let db = await startDb(reused);
      let client = await MongoClient.connect(db.uri);
      await client
        .db("crash")
        .collection("kept")
        .insertOne({ _id: "before" as never });
      await client.close(true);
      await crash(db);
      giveDeadPidToLiveProcess();

      db = await startDb(reused);
      client = await MongoClient.connect(db.uri);
      expect(
        await client
          .db("crash")
          .collection("kept")
          .countDocuments({ _id: "before" as never }),
      ).toBe(1);
      await client.close(true);
      await crash(db);
      giveDeadPidToLiveProcess();

      const handle = await startOrAttach({ dir: reused });
      try {
        expect(handle.attached).toBe(false);
        client = await MongoClient.connect(handle.uri);
        expect(
          await client
            .db("crash")
            .collection("kept")
            .countDocuments({ _id: "before" as never }),
        ).toBe(1);
        await client.close();
      } finally {
        await handle.close();
      }
    },
  );

  it(
    "keeps a write acknowledged with j: true or w: majority even when what was not synced to the disk is lost",
    { timeout: 60_000 },
    async () => {
      const journaled = path.join(parent, "journaled");
      let db = await startDb(journaled);
      const client = await MongoClient.connect(db.uri, { retryWrites: false, serverSelectionTimeoutMS: 1500 });
      const docs = client.db("crash").collection<{ _id: string; w: number; payload: string }>("journaled");
      const acknowledged: string[] = [];
      let killed = false;
      const writers = Array.from({ length: 6 }, async (_, w) => {
        for (let seq = 0; ; seq++) {
          const id = `w${w}-${seq}`;
          await docs.insertOne(
            { _id: id, w, payload: "x".repeat(seq % 4 ? 100 : 200_000) },
            { writeConcern: w % 2 ? { w: 1, j: true } : { w: "majority" } },
          );
          acknowledged.push(id);
          if (!killed && acknowledged.length >= 60) {
            killed = true;
            db.child.kill("SIGKILL");
          }
        }
      });
      await Promise.allSettled(writers);
      expect(await db.exited).toBe("SIGKILL");
      await client.close(true);

      // As after a power loss: LMDB opens at the last transaction synced to the disk, not the last committed.
      db = await startDb(journaled, { env: { ...process.env, LMDB_RESTORE: "safe" } });
      try {
        const check = await MongoClient.connect(db.uri);
        const stored = new Set(
          (
            await check
              .db("crash")
              .collection<{ _id: string }>("journaled")
              .find({}, { projection: { _id: 1 } })
              .toArray()
          ).map((d) => d._id),
        );
        expect(
          acknowledged.filter((id) => !stored.has(id)),
          "writes acknowledged with j: true or w: majority, lost",
        ).toEqual([]);
        await check.close();
      } finally {
        db.child.kill("SIGTERM");
        await db.exited;
      }
    },
  );
});
