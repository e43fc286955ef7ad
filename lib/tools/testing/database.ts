import { startEmbeddedMongo, type EmbeddedMongoHandle } from "@/lib/embedded-mongo";
import { connect, disconnect } from "@/lib/kernel/db";
import type mongoose from "mongoose";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, vi } from "vitest";

export interface TestDatabase {
  /** The embedded server's local URI (its Unix socket, as the server attaches); also in `process.env.MONGODB_URI` while the tests run. */
  readonly uri: string;
  /** The connection `connect()` gives, open from `beforeAll` to `afterAll`. */
  readonly mongoose: typeof mongoose;
  /** Deletes every document of every collection, keeping collections and indexes. */
  clear(): Promise<void>;
}

/**
 * Gives the enclosing `describe` (or test file, at top level) its own embedded database in a fresh
 * temporary directory, and points `lib/kernel/db` at it by setting `process.env.MONGODB_URI`, so code
 * under test that calls `connect()` uses it. The variable is restored and the directory removed
 * afterwards. Every test file runs in its own process (`pool: "forks"`), so files never share one.
 *
 *   const db = useTestDatabase();
 *   beforeEach(() => db.clear());
 *
 * `testCommands: true` lets the tests use MongoDB's `failCommand` fail point;
 * `transactionLifetimeLimitSeconds` shortens how long a transaction a killed client left open holds its writes.
 */
export function useTestDatabase(
  options: { testCommands?: boolean; transactionLifetimeLimitSeconds?: number } = {},
): TestDatabase {
  let dir: string | undefined;
  let server: EmbeddedMongoHandle | undefined;
  let connection: typeof mongoose | undefined;
  let previousUri: string | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "usersurveys-test-"));
    server = await startEmbeddedMongo({
      dir,
      testCommands: options.testCommands,
      transactionLifetimeLimitSeconds: options.transactionLifetimeLimitSeconds,
    });
    previousUri = process.env.MONGODB_URI;
    process.env.MONGODB_URI = server.localUri;
    connection = await connect();
  });

  afterAll(async () => {
    await disconnect();
    await server?.close();
    if (previousUri === undefined) delete process.env.MONGODB_URI;
    else process.env.MONGODB_URI = previousUri;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`useTestDatabase: ${what} is only available inside tests`);
    return value;
  };

  return {
    get uri() {
      return ready(server, "uri").localUri;
    },
    get mongoose() {
      return ready(connection, "mongoose");
    },
    async clear() {
      const db = ready(connection, "clear()").connection.db;
      if (!db) throw new Error("useTestDatabase: the connection is not open");
      for (const collection of await db.collections()) await collection.deleteMany({});
    },
  };
}

/**
 * Raises DATABASE_TIMEOUT_MS (and so each request's deadline, twice it) for the enclosing
 * `describe`: tests of many writers retrying each other's conflicts hold correctness, and on two
 * busy cores they can take longer than the default allows. Speed is a benchmark's to measure.
 */
export function allowSlowDatabase(ms = 30_000): void {
  beforeAll(() => {
    vi.stubEnv("DATABASE_TIMEOUT_MS", String(ms));
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });
}
