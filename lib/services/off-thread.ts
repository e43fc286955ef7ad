/**
 * Runs a read task (lib/services/read-tasks.ts) on the process's read workers (`READ_WORKERS`,
 * lib/db/workers.ts), or in this thread when there are none or they cannot take it.
 */
import { Worker } from "node:worker_threads";
import { loadConfig } from "@/lib/config";
import { workerPool } from "@/lib/db";
import { FROM_SOURCE, WorkerUnavailable, type WorkerTarget } from "@/lib/db/workers";
import { log } from "./log";
import { readTasks, type ReadTasks } from "./read-tasks";

// In Next.js (built or dev), the bundler turns the entry below into a JavaScript chunk of its
// own; run from source (tests, CLIs under tsx), it is TypeScript, which a worker loads through tsx.
const fromSource = !process.env.NEXT_RUNTIME;

function startReadWorker(target: WorkerTarget): Worker {
  return new Worker(new URL("./read-worker.ts", import.meta.url), { workerData: target, ...(fromSource ? FROM_SOURCE : {}) });
}

/** The process's read workers; `undefined` before the database is connected, or with `READ_WORKERS=0`. */
export const readWorkers = () =>
  workerPool("reads", {
    size: loadConfig().readWorkers,
    start: startReadWorker,
    onDisabled: (reason) => log().warn({ reason }, "read workers disabled; reads run on the HTTP thread"),
  });

type Args<K extends keyof ReadTasks> = Parameters<ReadTasks[K]>[0];
type Answer<K extends keyof ReadTasks> = Awaited<ReturnType<ReadTasks[K]>>;

export async function offThread<K extends keyof ReadTasks>(task: K, args: Args<K>): Promise<Answer<K>> {
  const pool = readWorkers();
  if (pool?.usable) {
    try {
      return (await pool.run(task, args)) as Answer<K>;
    } catch (error) {
      if (!(error instanceof WorkerUnavailable)) throw error;
    }
  }
  const run = readTasks[task] as (args: Args<K>) => Promise<Answer<K>>;
  return run(args);
}
