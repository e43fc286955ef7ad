/**
 * Database work on worker threads. In `next start` one thread serves every HTTP request, and for a
 * page of records that thread spent more on the driver (its command path, BSON decoding) and on
 * shaping the records than on everything the framework does for a request (docs/benchmarks.md). A
 * worker of this pool holds its own connection to the same database and runs named tasks there:
 * the calling thread only posts the task's arguments and receives the answer.
 *
 * Arguments travel as BSON, so that ObjectIds and Dates of a filter arrive as such; answers travel
 * by structured clone, so they must be plain data (records shaped for JSON). A worker that cannot
 * connect, or dies, fails its pending tasks with {@link WorkerUnavailable}, on which callers run
 * the task in their own thread instead (lib/kernel/off-thread.ts).
 *
 * This module imports no other module of the project: a worker must not load the embedded
 * database (its native store is opened once per process, by the main thread).
 */
import { BSON, type Document } from "mongodb";
import mongoose from "mongoose";
import { parentPort, workerData, type Worker } from "node:worker_threads";

/** A task: plain arguments in (BSON types allowed), plain data out. */
type Task = (args: never) => Promise<unknown>;
export type Tasks = Record<string, Task>;

/** Where and how a worker connects: as the process that starts it did (lib/kernel/db connect()). */
export interface WorkerTarget {
  uri: string;
  options: {
    dbName: string;
    serverSelectionTimeoutMS?: number;
    socketTimeoutMS?: number;
    waitQueueTimeoutMS?: number;
    monitorCommands?: boolean;
  };
}

/**
 * Worker options for an entry module run from TypeScript source (tests, CLIs under tsx): tsx's
 * CommonJS hook, which Node 20 applies to a worker's entry (`--import tsx` does not reach it).
 */
export const FROM_SOURCE = { execArgv: ["--require", "tsx/cjs"] };

interface Message {
  id: number;
  task: string;
  args: Uint8Array;
}

/** A command the worker's connection ran: its name, its milliseconds as the driver timed them, whether it failed. */
export type CommandTiming = [name: string, ms: number, failed: boolean];

/** What crosses back of an error: its name, message and code, and a `ServiceError`'s details and headers. */
export interface TaskError {
  name: string;
  message: string;
  code?: unknown;
  details?: unknown;
  headers?: unknown;
}

type Answer = ({ id: number; value: unknown } | { id: number; error: TaskError }) & {
  /** The commands that ended since the worker's previous answer, for the process's metrics. */
  commands?: CommandTiming[];
};

/**
 * The task could not run on a worker (none could start, or it exited): run it elsewhere. `sent`
 * says whether it had been handed to a worker, which may then have run it in part or whole.
 */
export class WorkerUnavailable extends Error {
  override name = "WorkerUnavailable";

  constructor(
    message: string,
    readonly sent = false,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Inside a worker

/** The body of a worker's entry module: connects to the database of `workerData`, then serves. */
export function serveTasks(tasks: Tasks): void {
  const port = parentPort;
  if (!port) throw new Error("serveTasks() runs in a worker thread.");
  const { uri, options } = workerData as WorkerTarget;
  // The commands' times travel with the answers to the calling thread, which records them as its
  // own connection's (lib/base/metrics, docs/deployment.md#metrics).
  // Monitored unless the calling thread's options say otherwise (DB_COMMAND_METRICS=false).
  const connected = mongoose.connect(uri, { monitorCommands: true, ...options });
  let commands: CommandTiming[] = [];
  // Before any task runs: each awaits the connection after this.
  void connected.then(
    ({ connection }) => {
      const client = connection.getClient();
      client.on("commandSucceeded", (event) => commands.push([event.commandName, event.duration, false]));
      client.on("commandFailed", (event) => commands.push([event.commandName, event.duration, true]));
    },
    () => undefined,
  );
  // A worker without a database is of no use: the error, uncaught, ends it and reaches the pool,
  // and its tasks run in the calling thread.
  connected.catch((error: unknown) => {
    throw error;
  });

  port.on("message", async ({ id, task, args }: Message) => {
    try {
      await connected;
    } catch {
      return; // not answered: the pool fails the task with WorkerUnavailable when this worker ends
    }
    let answer: Answer;
    try {
      const run = Object.hasOwn(tasks, task) ? tasks[task] : undefined;
      if (!run) throw new Error(`No task named ${task}.`);
      answer = { id, value: await run(BSON.deserialize(args) as never) };
    } catch (error) {
      const {
        name = "Error",
        message = String(error),
        code,
        details,
        headers,
      } = error instanceof Error ? (error as Error & Omit<TaskError, "name" | "message">) : {};
      // A service's refusal keeps what the caller answers with (lib/kernel/off-thread.ts).
      const extra = name === "ServiceError" ? { details, headers } : {};
      answer = { id, error: { name, message, ...(code === undefined ? {} : { code }), ...extra } };
    }
    if (commands.length > 0) {
      answer.commands = commands;
      commands = [];
    }
    port.postMessage(answer);
  });
}

// ---------------------------------------------------------------------------------------------
// In the calling thread

export interface WorkerPoolOptions {
  size: number;
  target: WorkerTarget;
  /** Starts one worker of the pool's entry module with this `workerData`. */
  start: (target: WorkerTarget) => Worker;
  /** Told when the pool gives up on workers (they kept failing to start). */
  onDisabled?: (reason: string) => void;
  /** Told of the commands a worker's connection ran, with each of its answers. */
  onCommands?: (commands: CommandTiming[]) => void;
}

/** Starts that failed in a row before the pool stops trying for the rest of the process. */
const MAX_FAILED_STARTS = 3;

interface Running {
  worker: Worker;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>;
  /** Whether it ever answered: a worker that exits before that counts as a failed start. */
  answered: boolean;
  /** The uncaught error that ended it, if one did. */
  error?: Error;
}

export class WorkerPool {
  private readonly running: (Running | undefined)[];
  private nextId = 1;
  private failedStarts = 0;
  private closed = false;
  private answers = 0;

  constructor(private readonly options: WorkerPoolOptions) {
    this.running = Array.from({ length: Math.max(0, options.size) }, () => undefined);
  }

  /** Whether tasks can be sent here (false once closed, or once workers kept failing). */
  get usable(): boolean {
    return !this.closed && this.running.length > 0 && this.failedStarts < MAX_FAILED_STARTS;
  }

  /** Tasks that workers have answered (with a value or an error) since the pool started. */
  get answered(): number {
    return this.answers;
  }

  /** Runs `task` on the least busy worker; rejects with {@link WorkerUnavailable} when none can. */
  run(task: string, args: Document): Promise<unknown> {
    if (!this.usable) return Promise.reject(new WorkerUnavailable("No worker is available."));
    const slot = this.leastBusy();
    const running = (this.running[slot] ??= this.startWorker(slot));
    const id = this.nextId++;
    // A copy of its own: a small serialization is a slice of Node's shared 8 KB buffer pool, and
    // a posted view is cloned with its whole buffer, 13-24 µs a message against 2-3 for its own
    // (docs/benchmarks.md#a-tasks-arguments-in-a-buffer-of-their-own-2026-12-01-0619-utc).
    const bytes = new Uint8Array(BSON.serialize(args, { ignoreUndefined: true }));
    return new Promise((resolve, reject) => {
      // A worker with work keeps the process alive; an idle one does not (CLIs exit when done).
      if (running.pending.size === 0) running.worker.ref();
      running.pending.set(id, { resolve, reject });
      running.worker.postMessage({ id, task, args: bytes } satisfies Message);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.running.map((running, slot) => {
        this.running[slot] = undefined;
        return running?.worker.terminate();
      }),
    );
  }

  private leastBusy(): number {
    let best = 0;
    for (let slot = 0; slot < this.running.length; slot++) {
      const running = this.running[slot];
      if (!running) return slot;
      if (running.pending.size < this.running[best]!.pending.size) best = slot;
    }
    return best;
  }

  private startWorker(slot: number): Running {
    const worker = this.options.start(this.options.target);
    worker.unref();
    const running: Running = { worker, pending: new Map(), answered: false };
    worker.on("message", ({ id, commands, ...answer }: Answer) => {
      if (commands) this.options.onCommands?.(commands);
      const waiting = running.pending.get(id);
      if (!waiting) return;
      running.pending.delete(id);
      if (running.pending.size === 0) worker.unref();
      running.answered = true;
      this.failedStarts = 0;
      this.answers += 1;
      if ("error" in answer) waiting.reject(Object.assign(new Error(answer.error.message), answer.error));
      else waiting.resolve(answer.value);
    });
    // An uncaught error ends the worker; the "exit" that follows settles what it had pending.
    worker.on("error", (error) => {
      running.error = error;
    });
    worker.on("exit", (code) => {
      if (this.running[slot] === running) this.running[slot] = undefined;
      const why = `exited with code ${code}${running.error ? ` (${running.error.message})` : ""}`;
      if (!running.answered && !this.closed && ++this.failedStarts === MAX_FAILED_STARTS) {
        this.options.onDisabled?.(`${MAX_FAILED_STARTS} workers in a row exited before answering; the last ${why}`);
      }
      for (const waiting of running.pending.values()) waiting.reject(new WorkerUnavailable(`The worker ${why}.`, true));
      running.pending.clear();
    });
    return running;
  }
}
