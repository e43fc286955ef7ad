/**
 * Runs a read task (lib/platform/startup/read-tasks.ts) on the process's read workers (`READ_WORKERS`,
 * lib/kernel/db/workers.ts), or in this thread when there are none or they cannot take it.
 */
import { loadConfig } from "@/lib/base/config";
import { workerPool } from "@/lib/kernel/db";
import { FROM_SOURCE, WorkerUnavailable, type WorkerTarget } from "@/lib/kernel/db/workers";
import { log } from "@/lib/kernel/log";
import type { Document } from "mongodb";
import { Worker } from "node:worker_threads";

// In Next.js (built or dev), the bundler turns the entry below into a JavaScript chunk of its
// own; run from source (tests, CLIs under tsx), it is TypeScript, which a worker loads through tsx.
const fromSource = !process.env.NEXT_RUNTIME;

function startReadWorker(target: WorkerTarget): Worker {
  return new Worker(new URL("../platform/startup/read-worker.ts", import.meta.url), {
    workerData: target,
    ...(fromSource ? FROM_SOURCE : {}),
  });
}

/** The process's read workers; `undefined` before the database is connected, or with `READ_WORKERS=0`. */
export const readWorkers = () =>
  workerPool("reads", {
    size: loadConfig().readWorkers,
    start: startReadWorker,
    onDisabled: (reason) => log().warn({ reason }, "read workers disabled; reads run on the HTTP thread"),
  });

/**
 * Runs `run` on a read worker as the task of that name in lib/platform/startup/read-tasks.ts (the caller
 * passes both, so this kernel module needs no resource), or in this thread.
 */
export async function offThread<A, R>(task: string, run: (args: A) => Promise<R>, args: A): Promise<R> {
  const pool = readWorkers();
  if (pool?.usable) {
    try {
      return (await pool.run(task, args as Document)) as R;
    } catch (error) {
      if (!(error instanceof WorkerUnavailable)) throw error;
    }
  }
  return run(args);
}
