import { loadConfig } from "@/lib/base/config";
import { recordCommand } from "@/lib/base/metrics";
import { onShutdown, shutdownOwned } from "@/lib/base/shared/shutdown";
import { privateDirectory, startOrAttach, type EmbeddedMongoHandle } from "@/lib/embedded-mongo";
import mongoose from "mongoose";
import path from "node:path";
import { WorkerPool, type CommandTiming, type WorkerPoolOptions, type WorkerTarget } from "./workers";

export type DatabaseKind = "embedded" | "mongodb";

/** The database used when the URI names none. */
export const DEFAULT_DATABASE_NAME = "usersurveys";

interface DbState {
  connecting: Promise<typeof mongoose> | null;
  kind: DatabaseKind | null;
  embedded: EmbeddedMongoHandle | null;
  /** Set once connected: where worker threads connect to reach the same database. */
  target: WorkerTarget | null;
  /** Worker pools by name, closed with the connection. */
  pools: Map<string, WorkerPool>;
  signalsHandled: boolean;
}

// On globalThis, so that Next's dev reloads, which re-evaluate this module, reuse the connection.
const holder = globalThis as typeof globalThis & { __usersurveysDb?: DbState };
const state: DbState = (holder.__usersurveysDb ??= {
  connecting: null,
  kind: null,
  embedded: null,
  target: null,
  pools: new Map(),
  signalsHandled: false,
});

/**
 * The process's one Mongoose connection: to `MONGODB_URI` when set, else to the embedded database
 * under `DATA_DIR/db` (started in this process, or attached to when another process serves it).
 * Concurrent and repeated calls share it; a failed attempt is forgotten so the next call retries.
 */
export function connect(): Promise<typeof mongoose> {
  state.connecting ??= open().catch((error: unknown) => {
    state.connecting = null;
    throw error;
  });
  return state.connecting;
}

async function open(): Promise<typeof mongoose> {
  const config = loadConfig();
  handleSignals();
  state.kind = config.mongodbUri ? "mongodb" : "embedded";
  let uri = config.mongodbUri;
  if (!uri) {
    // DATA_DIR holds the database, its credentials and the token secret: its owner's only.
    privateDirectory(config.dataDir);
    const embedded = await startOrAttach({ dir: path.join(config.dataDir, "db") });
    state.embedded = embedded;
    uri = embedded.localUri;
  }
  try {
    // A connection that stops answering mid-command, or a wait for a free connection, ends in an
    // error after DATABASE_TIMEOUT_MS rather than in a request that waits for ever
    // (docs/security.md#availability). The URI's own settings win.
    const bounds = Object.fromEntries(
      (["socketTimeoutMS", "waitQueueTimeoutMS"] as const)
        .filter((name) => !new RegExp(`[?&]${name}=`, "i").test(uri))
        .map((name) => [name, config.databaseTimeoutMs]),
    );
    // Command monitoring times every command for db_command_duration_seconds, unless
    // DB_COMMAND_METRICS=false spares its cost (docs/deployment.md#metrics); the read workers'
    // connections take the same options (workers.ts).
    const options = {
      dbName: databaseName(uri),
      serverSelectionTimeoutMS: 10_000,
      monitorCommands: config.dbCommandMetrics,
      ...bounds,
    };
    const connected = await mongoose.connect(uri, options);
    if (config.dbCommandMetrics) {
      const client = connected.connection.getClient();
      client.on("commandSucceeded", (event) => recordCommand(event, false));
      client.on("commandFailed", (event) => recordCommand(event, true));
    }
    state.target = { uri, options };
    return connected;
  } catch (error) {
    await closeEmbedded();
    throw error;
  }
}

/** The database a URI names (`mongodb://host/NAME?...`), else {@link DEFAULT_DATABASE_NAME}. */
export function databaseName(uri: string): string {
  // Credentials and hosts cannot contain "/" (they are percent-encoded), so the first "/" after
  // the scheme starts the database name.
  const afterScheme = uri.replace(/^mongodb(\+srv)?:\/\//, "");
  const slash = afterScheme.indexOf("/");
  if (slash < 0) return DEFAULT_DATABASE_NAME;
  const name = decodeURIComponent(afterScheme.slice(slash + 1).split("?")[0]);
  return name || DEFAULT_DATABASE_NAME;
}

/** Which database this process uses (or will use, before the first {@link connect}). */
export function databaseKind(): DatabaseKind {
  return state.kind ?? (loadConfig().mongodbUri ? "mongodb" : "embedded");
}

/** The database does not answer now (stopped, restarting, unreachable): worth retrying shortly. */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
  constructor(message = "The database does not answer.") {
    super(message);
  }
}

/** Driver errors that mean "no server to talk to", not "the request was wrong". */
const UNAVAILABLE = new Set([
  "DatabaseUnavailableError",
  "MongoServerSelectionError",
  "MongooseServerSelectionError",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoNotConnectedError",
  "MongoPoolClearedError",
  "MongoServerClosedError",
  "MongoTopologyClosedError",
  // No connection of the pool became free within the bound.
  "MongoWaitQueueTimeoutError",
]);

/**
 * Socket errors of a connection to the database that went away under it. The driver wraps most in
 * a MongoNetworkError, but one written while the socket was waiting to drain reaches the caller
 * as it is (`write EPIPE`), and a read worker's answer keeps only its name, message and code.
 */
const SOCKET_GONE = new Set([
  "EPIPE",
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ENOTCONN",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
]);

/**
 * Whether an error (of the driver, of Mongoose or answered by a read worker, which keeps only the
 * name, message and code) says the database cannot be reached, looking through its causes.
 * Classified by name and code: Mongoose carries its own copy of the driver, so `instanceof` would
 * miss half of them.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== "object" || error === null || depth > 5) return false;
  const { name, message, code, cause } = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    cause?: unknown;
  };
  if (typeof name === "string" && UNAVAILABLE.has(name)) return true;
  if (typeof code === "string" && SOCKET_GONE.has(code)) return true;
  // Mongoose queues operations while disconnected, and gives up with this after bufferTimeoutMS.
  if (name === "MongooseError" && typeof message === "string" && message.includes("buffering timed out")) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

let probing: Promise<unknown> | undefined;

/**
 * Throws {@link DatabaseUnavailableError} at once when the driver has lost the server it was
 * connected to, instead of letting the operation wait for a server (or in Mongoose's buffer)
 * until a timeout. Meanwhile one background ping at a time asks the driver to look for the
 * server, which makes it check every half second rather than at its usual heartbeat.
 */
export function assertDatabaseReachable(): void {
  const connection = mongoose.connection;
  if (!state.target || connection.readyState === mongoose.ConnectionStates.connected) return;
  probing ??= (connection.db?.command({ ping: 1 }) ?? Promise.resolve())
    .catch(() => undefined)
    .finally(() => {
      probing = undefined;
    });
  throw new DatabaseUnavailableError();
}

/**
 * Connects when needed and asks the database for a `ping`. Rejects when it does not answer within
 * `timeoutMs`; the connection attempt itself goes on in the background.
 */
export async function ping(timeoutMs = 3_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const answer = (async () => {
    const m = await connect();
    assertDatabaseReachable();
    const db = m.connection.db;
    if (!db) throw new Error("database connection is not open");
    await db.command({ ping: 1 });
  })();
  answer.catch(() => undefined); // it may settle after the timeout has won
  try {
    await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The pool of worker threads named `name` (lib/kernel/db/workers.ts), connected to this process's
 * database; started with the first call after {@link connect} has settled, closed by
 * {@link disconnect}. `undefined` before that, and when `options.size` is 0.
 */
export function workerPool(name: string, options: Omit<WorkerPoolOptions, "target">): WorkerPool | undefined {
  if (!state.target || options.size <= 0) return undefined;
  let pool = state.pools.get(name);
  if (!pool) {
    // The workers' commands count as this process's (docs/deployment.md#metrics).
    const onCommands = (commands: CommandTiming[]) => {
      for (const [commandName, duration, failed] of commands) recordCommand({ commandName, duration }, failed);
    };
    pool = new WorkerPool({ ...options, target: state.target, onCommands });
    state.pools.set(name, pool);
  }
  return pool;
}

/** Closes the worker pools and the Mongoose connection, then the embedded server when this process runs it. */
export async function disconnect(): Promise<void> {
  const pending = state.connecting;
  state.connecting = null;
  state.target = null;
  const pools = [...state.pools.values()];
  state.pools.clear();
  await Promise.all(pools.map((pool) => pool.close()));
  if (pending) await pending.catch(() => undefined);
  await mongoose.disconnect();
  await closeEmbedded();
  state.kind = null;
}

async function closeEmbedded(): Promise<void> {
  const embedded = state.embedded;
  state.embedded = null;
  await embedded?.close();
}

function handleSignals(): void {
  if (state.signalsHandled) return;
  state.signalsHandled = true;
  // Under the server entry the connection closes after the requests in flight have ended
  // (lib/base/shared/shutdown.ts), not at the signal.
  if (shutdownOwned()) {
    onShutdown("connections", disconnect);
    return;
  }
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A shell's Ctrl+C reaches both `npm start` and its child, which forwards it: act once.
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error(`Database did not close within 5 s of ${signal}; exiting anyway.`);
      process.exit(1);
    }, 5_000).unref();
    disconnect().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`Unclean database shutdown on ${signal}:`, error instanceof Error ? error.message : error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
