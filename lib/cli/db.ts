/**
 * `npm run db -- [--port P] [--dir D] [--host H]`: serves the embedded database stand-alone, so
 * `mongosh`, Compass or a server with MONGODB_URI can use it. Prints the URI on stdout, with the
 * credentials its TCP port asks for.
 */
import path from "node:path";
import { ConfigError, loadConfig } from "../config";
import { privateDirectory, startOrAttach } from "../embedded-mongo";
import { parseCommandLine } from "./args";

const usage = `Usage: npm run db -- [--port PORT] [--dir DIR] [--host HOST]

  --port  TCP port (default 27017; 0 picks a free one)
  --dir   database directory (default DATA_DIR/db, as the server uses)
  --host  address to listen on (default 127.0.0.1)`;

async function main(): Promise<void> {
  const { values } = parseCommandLine(usage, {
    options: {
      port: { type: "string", default: "27017" },
      dir: { type: "string" },
      host: { type: "string" },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, not ${JSON.stringify(values.port)}`);
  }
  if (values.dir === undefined) privateDirectory(loadConfig().dataDir);
  const dir = path.resolve(values.dir ?? path.join(loadConfig().dataDir, "db"));

  const server = await startOrAttach({ dir, port, host: values.host });
  console.log(server.uri);
  if (server.attached) {
    console.error(`${dir} is already served by another process at ${server.uri}; nothing to start.`);
    return;
  }
  console.error(`Embedded database for ${dir} listening; stop with Ctrl+C.`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: closing the database.`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

class UsageError extends Error {}

/** The message of an error and of its causes; `code` is not always a string (lmdb's are numbers). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const withCode = code === undefined || error.message.includes(String(code)) ? error.message : `${error.message} (${String(code)})`;
  return error.cause === undefined ? withCode : `${withCode}\n  caused by: ${reason(error.cause)}`;
}

main().catch((error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
    console.error(`${(error as Error).message}\n\n${usage}`);
  } else if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error(`The embedded database could not start: ${reason(error)}`);
  }
  process.exit(1);
});
