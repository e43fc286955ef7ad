/**
 * Runs a task (lib/platform/startup/read-tasks.ts) on the process's read workers (`READ_WORKERS`,
 * lib/kernel/db/workers.ts), or in this thread when there are none or they cannot take it.
 */
import { loadConfig } from "@/lib/base/config";
import type { ErrorCode, ErrorDetail } from "@/lib/base/schemas/common";
import { workerPool } from "@/lib/kernel/db";
import { FROM_SOURCE, WorkerUnavailable, type TaskError, type WorkerTarget } from "@/lib/kernel/db/workers";
import { ServiceError } from "@/lib/kernel/errors";
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
 * passes both, so this kernel module needs no resource), or in this thread. A `ServiceError` the
 * task throws there is thrown here as one.
 *
 * `once`: the task writes, and must not run twice. A worker that ends while it holds the task may
 * have committed it, so the task is not run again here: the caller gets `503`, as when the
 * database went away in the middle of a write (docs/architecture.md#read-workers).
 */
export async function offThread<A, R>(
  task: string,
  run: (args: A) => Promise<R>,
  args: A,
  { once = false }: { once?: boolean } = {},
): Promise<R> {
  const pool = readWorkers();
  if (pool?.usable) {
    try {
      return (await pool.run(task, args as Document)) as R;
    } catch (error) {
      if (!(error instanceof WorkerUnavailable)) throw asServiceError(error);
      if (once && error.sent)
        throw new ServiceError(
          "service_unavailable",
          "The server lost the worker that was making this change; whether it was made is unknown. Read the record, then try again.",
          undefined,
          { "Retry-After": "1" },
        );
    }
  }
  return run(args);
}

/** A worker's `ServiceError` (its name, code, details and headers cross: lib/kernel/db/workers.ts) as one. */
function asServiceError(error: unknown): unknown {
  const failure = error as Partial<TaskError>;
  if (failure.name !== "ServiceError" || typeof failure.code !== "string") return error;
  return new ServiceError(
    failure.code as ErrorCode,
    failure.message ?? "",
    failure.details as ErrorDetail[] | undefined,
    failure.headers as Record<string, string> | undefined,
  );
}
