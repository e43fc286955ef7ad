/**
 * A real embedded server on a fresh temporary directory, for tests: started in `beforeAll`,
 * closed and its directory removed in `afterAll`.
 */
import {
  MongoClient,
  type ChangeStream,
  type Db,
  type Document,
  type MongoClientOptions,
  type MongoServerError,
} from "mongodb";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startEmbeddedMongo, type EmbeddedMongoHandle, type EmbeddedMongoOptions } from "../index";

export interface TempServer {
  readonly dir: string;
  /** The TCP address, with the credentials it asks for. */
  readonly uri: string;
  readonly port: number;
  /** The TCP port of the replica set's secondary member. */
  readonly secondaryPort: number;
  /** The Unix socket, where connections need no authentication. */
  readonly socketPath: string;
}

export function tempServerForThisFile(prefix: string, options: Omit<EmbeddedMongoOptions, "dir"> = {}): TempServer {
  let dir: string | undefined;
  let handle: EmbeddedMongoHandle | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), `embedded-mongo-${prefix}-`));
    handle = await startEmbeddedMongo({ ...options, dir });
  });

  afterAll(async () => {
    await handle?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const started = () => {
    if (!handle || !dir) throw new Error("the temporary server starts in beforeAll");
    return { handle, dir };
  };
  return {
    get dir() {
      return started().dir;
    },
    get uri() {
      return started().handle.uri;
    },
    get port() {
      return started().handle.port;
    },
    get secondaryPort() {
      const { secondaryPort } = started().handle;
      if (secondaryPort === undefined) throw new Error("the temporary server has no secondary member");
      return secondaryPort;
    },
    get socketPath() {
      const { socketPath } = started().handle;
      if (!socketPath) throw new Error("the temporary server has no Unix socket");
      return socketPath;
    },
  };
}

export interface TempDatabase {
  readonly server: TempServer;
  /** A driver client connected to the server over TCP, with its credentials. */
  readonly client: MongoClient;
  readonly db: Db;
}

/** {@link tempServerForThisFile} with a driver client connected to it and one database of it. */
export function tempDatabaseForThisFile(prefix: string, dbName: string, options?: MongoClientOptions): TempDatabase {
  const server = tempServerForThisFile(prefix);
  let client: MongoClient | undefined;

  beforeAll(async () => {
    client = await MongoClient.connect(server.uri, options);
  });

  afterAll(async () => {
    await client?.close();
  });

  const connected = () => {
    if (!client) throw new Error("the client connects in beforeAll");
    return client;
  };
  return {
    server,
    get client() {
      return connected();
    },
    get db() {
      return connected().db(dbName);
    },
  };
}

/**
 * The server's refusal of an operation that must fail. Mongoose carries its own copy of the
 * driver, so its errors are matched by name rather than class.
 */
export async function serverFailure(promise: Promise<unknown>): Promise<MongoServerError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof Error && /^Mongo(Server|BulkWrite)Error$/.test(err.name)) return err as MongoServerError;
    throw err;
  }
  throw new Error("expected the operation to fail");
}

/** Whatever an operation that must fail rejects with, the driver's client-side errors included. */
export async function caught(promise: Promise<unknown>): Promise<MongoServerError> {
  try {
    await promise;
  } catch (err) {
    return err as MongoServerError;
  }
  throw new Error("expected the operation to fail");
}

/** The next `n` events of a change stream, waiting for each. */
export async function nextEvents(stream: ChangeStream, n: number): Promise<Document[]> {
  const events: Document[] = [];
  while (events.length < n) events.push(await stream.next());
  return events;
}
