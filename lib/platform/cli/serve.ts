/**
 * Serves the production build on PORT with WEB_CONCURRENCY server processes (docs/architecture.md#processes):
 * this process is the cluster's primary, and each worker is the server entry (lib/platform/cli/server.ts).
 * Node's cluster hands the connections of the one port to the workers in turn. `npm start` runs
 * it beside the database process; the benchmarks start it on a database of their own.
 *
 * - A worker that dies while not asked to is replaced (after a delay that grows while they keep dying).
 * - SIGTERM or SIGINT: every worker drains (lib/base/shared/shutdown.ts), then this process exits 0.
 * - SIGHUP: a rolling restart, one worker at a time: its replacement listens before it drains,
 *   so the port never lacks a server.
 */
import { loadConfig } from "@/lib/base/config";
import { serveClusterMetrics } from "@/lib/base/metrics/cluster";
import { log } from "@/lib/kernel/log";
import { answerServersClosed } from "@/lib/platform/http/drain";
import cluster, { type Worker } from "node:cluster";
import path from "node:path";

// The workers inherit it: React and Next.js take their production paths only under it, as `next start` sets it.
Object.assign(process.env, { NODE_ENV: process.env.NODE_ENV ?? "production" });
const config = loadConfig();
const count = config.webConcurrency;
let stopping = false;
let failures = 0;

cluster.setupPrimary({ exec: path.join(__dirname, "server.ts") });
// A scrape of /metrics reaches one worker; the primary gathers every worker's (docs/deployment.md#metrics).
serveClusterMetrics();
// A draining worker exits only once this has answered it, so no connection is handed to it too late
// (lib/platform/http/drain.ts).
answerServersClosed();

/** Starts a worker; resolves once it listens, rejects if it exits first. */
function fork(): Promise<Worker> {
  const worker = cluster.fork();
  const started = Date.now();
  worker.once("exit", (code, signal) => {
    if (stopping || replaced.has(worker)) return;
    if (Date.now() - started > 60_000) failures = 0;
    failures++;
    const delay = Math.min(30_000, 500 * 2 ** (failures - 1));
    log().error({ pid: worker.process.pid, code, signal, delay }, "a server process ended unasked; starting another");
    setTimeout(() => {
      if (!stopping) fork().catch(() => undefined);
    }, delay);
  });
  // Which process served when, for a failed request to be traced (e2e/46-processes.spec.ts prints these).
  worker.once("listening", () => log().info({ pid: worker.process.pid }, "a server process listens"));
  worker.once("exit", (code, signal) =>
    log().info({ pid: worker.process.pid, code, signal }, "a server process ended"),
  );
  return new Promise((resolve, reject) => {
    worker.once("listening", () => resolve(worker));
    worker.once("exit", (code) => reject(new Error(`a server process exited with ${code} before it listened`)));
  });
}

/** Workers being replaced by a rolling restart: their exit starts no other. */
const replaced = new WeakSet<Worker>();

function ended(worker: Worker): Promise<void> {
  return worker.isDead() ? Promise.resolve() : new Promise((resolve) => worker.once("exit", () => resolve()));
}

async function rollingRestart(): Promise<void> {
  for (const worker of Object.values(cluster.workers ?? {})) {
    if (!worker || stopping) continue;
    await fork();
    replaced.add(worker);
    worker.process.kill("SIGTERM");
    await ended(worker);
  }
  log().info({ workers: count }, "rolling restart done");
}

let restarting: Promise<void> | undefined;
process.on("SIGHUP", () => {
  restarting ??= rollingRestart().finally(() => (restarting = undefined));
});

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  for (const worker of workers) worker.process.kill(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
  await Promise.all(workers.map(ended));
  process.exit(0);
}
process.on("SIGTERM", (signal) => void stop(signal));
process.on("SIGINT", (signal) => void stop(signal));

Promise.all(Array.from({ length: count }, fork)).then(
  () => log().info({ port: config.port, workers: count }, "serving"),
  (error: unknown) => {
    console.error(`The server did not start: ${error instanceof Error ? error.message : String(error)}`);
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    process.exitCode = 1;
  },
);
