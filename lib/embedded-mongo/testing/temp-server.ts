/**
 * A real embedded server on a fresh temporary directory, for tests: started in `beforeAll`,
 * closed and its directory removed in `afterAll`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startEmbeddedMongo, type EmbeddedMongoHandle } from "../index";

export interface TempServer {
  readonly dir: string;
  /** The TCP address, with the credentials it asks for. */
  readonly uri: string;
  readonly port: number;
  /** The Unix socket, where connections need no authentication. */
  readonly socketPath: string;
}

export function tempServerForThisFile(prefix: string): TempServer {
  let dir: string | undefined;
  let handle: EmbeddedMongoHandle | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), `embedded-mongo-${prefix}-`));
    handle = await startEmbeddedMongo({ dir });
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
    get socketPath() {
      const { socketPath } = started().handle;
      if (!socketPath) throw new Error("the temporary server has no Unix socket");
      return socketPath;
    },
  };
}
