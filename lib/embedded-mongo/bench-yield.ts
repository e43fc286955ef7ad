/**
 * `npx tsx lib/embedded-mongo/bench-yield.ts`: how long a find by `_id` waits while a count that
 * reads every document runs on another connection (README "Long reads yield"). Inserts
 * BENCH_DOCS (200,000) user-like documents, times the count alone, then keeps such counts running
 * back to back on one client while another client times FINDS (20) finds by `_id`, one after
 * another, and prints their median and maximum. The server runs in a child process of its own, as
 * in bench.ts. Prints figures only: nothing here passes or fails on a time.
 */
import { MongoClient } from "mongodb";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { serve, startServerProcess } from "./bench-process";

const TOTAL = Number(process.env.BENCH_DOCS ?? 200_000);
const FINDS = Number(process.env.FINDS ?? 20);
/** No index serves a suffix: the count reads every document. */
const EVERY = { email: { $regex: "example$" } };

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-yield-"));
  const server = await startServerProcess(__filename, dir);
  const counting = await MongoClient.connect(server.uri);
  const finding = await MongoClient.connect(server.uri);
  try {
    const users = counting.db("bench").collection("users");
    for (let i = 0; i < TOTAL; i += 1000) {
      await users.insertMany(
        Array.from({ length: Math.min(1000, TOTAL - i) }, (_, k) => ({
          _id: i + k,
          name: `user ${i + k}`,
          email: `user${i + k}@company${(i + k) % 50}.example`,
          role: ["admin", "member", "viewer"][(i + k) % 3],
          createdAt: new Date(1_700_000_000_000 + (i + k) * 1000),
        })) as never,
      );
    }
    let started = performance.now();
    const n = await users.countDocuments(EVERY);
    console.log(`count alone: ${n} documents in ${(performance.now() - started).toFixed(0)} ms`);

    const byId = finding.db("bench").collection("users");
    await byId.findOne({ _id: 1 as never });
    let stop = false;
    let counts = 0;
    const background = (async () => {
      while (!stop) {
        await users.countDocuments(EVERY);
        counts += 1;
      }
    })();
    // Let the first count reach the server before the first find.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const samples: number[] = [];
    started = performance.now();
    for (let i = 0; i < FINDS; i++) {
      const at = performance.now();
      const doc = await byId.findOne({ _id: ((i * 7919) % TOTAL) as never });
      if (!doc) throw new Error("a find by _id found nothing");
      samples.push(performance.now() - at);
    }
    const elapsed = performance.now() - started;
    stop = true;
    await background;
    samples.sort((a, b) => a - b);
    const median = (samples[(samples.length - 1) >> 1] + samples[samples.length >> 1]) / 2;
    console.log(
      `find by _id during counts (${TOTAL} documents, ${FINDS} finds in ${(elapsed / 1000).toFixed(1)} s, ${counts} counts): median ${median.toFixed(1)} ms, max ${samples[samples.length - 1].toFixed(1)} ms`,
    );
  } finally {
    await counting.close();
    await finding.close();
    server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--serve") void serve(process.argv[3]);
else
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
