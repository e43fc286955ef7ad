/**
 * `npm run bench:results [-- --sizes 10000,100000,1000000 --runs 5]`: the time of
 * `GET /v2/surveys/{id}/results` and the memory it costs the server, on a survey of 10,000,
 * 100,000 and 1,000,000 answers (docs/benchmarks.md). The embedded database runs in a process of
 * its own (`npm run db`), as `npm start` has it; this process is the server: it calls the route
 * handler with real `Request`s, so its memory is the server's. Prints figures; asserts nothing.
 */
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import { Presets, SingleBar } from "cli-progress";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..", "..");
const usage = `Usage: npm run bench:results -- [options]

  --sizes N,N,...   answers in the survey at each step (default 10000,100000,1000000)
  --runs N          timed calls of the results at each step, after one warm-up (default 5)`;

const { values: opts } = parseCommandLine(usage, {
  options: { sizes: { type: "string", default: "10000,100000,1000000" }, runs: { type: "string", default: "5" } },
});
const SIZES = String(opts.sizes).split(",").map(Number);
const RUNS = Number(opts.runs);
if (SIZES.some((size) => !Number.isInteger(size) || size < 1) || !Number.isInteger(RUNS) || RUNS < 1)
  exitWithUsageError("--sizes takes whole numbers separated by commas, --runs a whole number");

const err = (line: string) => process.stderr.write(`${line}\n`);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const gc = () => (globalThis as { gc?: () => void }).gc?.();
/** A process's resident memory and its children's (`npm run db` runs the database in a child), from /proc (Linux). */
function rssOf(pid: number): number {
  const own = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return own + children.reduce((sum, child) => sum + rssOf(child), 0);
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "bench-results-"));
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    AUTH_SECRET: randomBytes(48).toString("base64url"),
    MONGODB_URI: "",
    LOG_LEVEL: "warn",
    RATE_LIMIT_PER_MINUTE: "1000000000",
  });
  let db: ChildProcess | undefined;
  try {
    err("Starting the embedded database in a process of its own (npm run db)...");
    db = spawn(
      path.join(root, "node_modules", ".bin", "tsx"),
      [path.join(root, "lib", "platform", "cli", "db.ts"), "--port", "0"],
      { cwd: root, env: process.env, stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve, reject) => {
      db!.stdout!.once("data", () => resolve());
      db!.once("exit", (code) => reject(new Error(`npm run db exited with ${code}`)));
    });
    // Loaded only now: the server's modules read the environment set above.
    const { createTenant } = await import("@/lib/tools/testing/http");
    const { seedAnswers } = await import("@/lib/tools/seed/answers");
    const results = await import("@/app/v2/surveys/[id]/results/route");
    const tenant = await createTenant("Bench results");

    const rows: string[] = [];
    for (const size of SIZES) {
      const bar = new SingleBar(
        { stream: process.stderr, format: `answers to ${size} [{bar}] {value}/{total}`, hideCursor: true },
        Presets.shades_classic,
      );
      const seeded = await seedAnswers({
        companyId: tenant.companyId,
        answers: size,
        onStart: (total) => bar.start(total, 0),
        onProgress: (done) => bar.update(done),
      });
      bar.stop();
      const id = seeded.surveyId;
      const ask = async () => {
        const request = new Request(`http://localhost/v2/surveys/${id}/results`, {
          headers: { authorization: `Bearer ${tenant.adminToken}`, admin: "true" },
        });
        const started = performance.now();
        const response = await results.GET(request, { params: Promise.resolve({ id }) });
        const body = (await response.json()) as { answers?: number; error?: unknown };
        const ms = performance.now() - started;
        if (response.status !== 200) throw new Error(`results answered ${response.status}: ${JSON.stringify(body)}`);
        return { ms, answers: body.answers };
      };
      await ask(); // warm-up
      gc();
      const before = process.memoryUsage();
      let peakHeap = before.heapUsed;
      let peakRss = before.rss;
      const sampler = setInterval(() => {
        const now = process.memoryUsage();
        peakHeap = Math.max(peakHeap, now.heapUsed);
        peakRss = Math.max(peakRss, now.rss);
      }, 5);
      const times: number[] = [];
      let counted = 0;
      for (let run = 0; run < RUNS; run++) {
        const { ms, answers } = await ask();
        times.push(ms);
        counted = answers ?? 0;
      }
      clearInterval(sampler);
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      const row = `| ${size.toLocaleString("en")} | ${counted.toLocaleString("en")} | ${median.toFixed(0)} ms | ${times[0].toFixed(0)}–${times[times.length - 1].toFixed(0)} ms | +${mb(peakHeap - before.heapUsed)} MB | +${mb(peakRss - before.rss)} MB | ${mb(rssOf(db.pid!))} MB |`;
      err(row);
      rows.push(row);
    }
    console.log(
      `GET /v2/surveys/{id}/results, ${RUNS} calls per size after a warm-up; the database in its own process`,
    );
    console.log(
      "| answers | counted | median | min–max | server heap growth (peak) | server RSS growth (peak) | database RSS |",
    );
    console.log("|---:|---:|---:|---:|---:|---:|---:|");
    for (const row of rows) console.log(row);
  } finally {
    const { disconnect } = await import("@/lib/kernel/db");
    await disconnect().catch(() => undefined);
    if (db && db.exitCode === null) {
      db.kill("SIGTERM");
      await new Promise((resolve) => db!.once("exit", resolve));
    }
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
