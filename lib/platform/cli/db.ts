/**
 * `npm run db -- [--port P] [--dir D] [--host H]`: serves the embedded database stand-alone, so
 * `mongosh`, Compass or a server with MONGODB_URI can use it. Prints its URIs on stdout: first,
 * where the server lets the directory owner's own sockets in without a password (Linux), the one
 * without credentials for that user; then the one with the credentials other users need.
 *
 * `npm run db -- backup FILE` and `restore FILE` copy a database directory to one file and back
 * (lib/embedded-mongo/storage/backup.ts).
 */
import { ConfigError, loadConfig } from "@/lib/base/config";
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import { privateDirectory, startOrAttach } from "@/lib/embedded-mongo";
import {
  BackupError,
  backupDatabase,
  restoreDatabase,
  type DatabaseSummary,
} from "@/lib/embedded-mongo/storage/backup";
import path from "node:path";

const usage = `Usage: npm run db -- [--port PORT] [--dir DIR] [--host HOST] [--replSet NAME] [--secondary-port PORT]
                     [--no-peer-trust]
       npm run db -- backup FILE [--dir DIR] [--force]
       npm run db -- restore FILE [--dir DIR] [--force]

Serves the database directory DIR; or writes a consistent copy of it to FILE, also while
another process serves it (backup); or brings such a copy back into DIR, which no process may
be serving (restore).

  --port     TCP port (default 27017; 0 picks a free one)
  --dir      database directory (default DATA_DIR/db, as the server uses)
  --host     address to listen on (default 127.0.0.1)
  --replSet  name of the replica set it presents (default rs0)
  --secondary-port
             TCP port of the set's read-only secondary member, on the same host
             (default 0: a free one; clients find it in the primary's hello)
  --no-peer-trust
             ask the password also of TCP clients of the directory's owner on this machine
             (Linux lets them in without one, as the Unix socket, unless this is given)
  --force    backup: replace an existing FILE; restore: write into a DIR that is not empty,
             replacing the database it holds (its credentials are kept)`;

const SUBCOMMANDS = ["backup", "restore"] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

async function main(): Promise<void> {
  const { values, positionals } = parseCommandLine(usage, {
    allowPositionals: true,
    options: {
      port: { type: "string" },
      dir: { type: "string" },
      host: { type: "string" },
      force: { type: "boolean", default: false },
      replSet: { type: "string" },
      "no-peer-trust": { type: "boolean", default: false },
      "secondary-port": { type: "string" },
    },
  });
  if (positionals.length > 0) {
    const [command, file, ...rest] = positionals;
    if (!SUBCOMMANDS.includes(command as Subcommand))
      exitWithUsageError(`Unknown command ${JSON.stringify(command)}: backup or restore`);
    if (file === undefined)
      exitWithUsageError(`${command} needs the FILE to ${command === "backup" ? "write" : "read"}`);
    if (rest.length > 0) exitWithUsageError(`Unexpected argument ${JSON.stringify(rest[0])}`);
    const serving = [values.port, values.host, values.replSet, values["secondary-port"]];
    if (serving.some((value) => value !== undefined) || values["no-peer-trust"]) {
      exitWithUsageError(
        `--port, --host, --replSet, --secondary-port and --no-peer-trust are for serving, not for ${command}`,
      );
    }
    return copy(command as Subcommand, file, values.dir, values.force);
  }
  if (values.force) exitWithUsageError("--force is for backup and restore");
  const port = portOption("--port", values.port ?? "27017");
  const secondaryPort = portOption("--secondary-port", values["secondary-port"] ?? "0");
  if (values.dir === undefined) privateDirectory(loadConfig().dataDir);
  const dir = path.resolve(values.dir ?? path.join(loadConfig().dataDir, "db"));

  const server = await startOrAttach({
    dir,
    port,
    host: values.host,
    replicaSet: values.replSet,
    secondaryPort,
    peerTrust: !values["no-peer-trust"],
  });
  // Tools take the first line: the URI of this user, then the one other users need.
  if (server.ownerUri) console.log(server.ownerUri);
  console.log(server.uri);
  if (server.attached) {
    console.error(`${dir} is already served by another process at ${server.uri}; nothing to start.`);
    return;
  }
  console.error(
    `Embedded database for ${dir} listening (its read-only secondary on port ${server.secondaryPort}); stop with Ctrl+C.`,
  );

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

/** `backup` or `restore`; prints what was written on stdout. */
async function copy(command: Subcommand, file: string, dirOption: string | undefined, force: boolean): Promise<void> {
  const dir = path.resolve(dirOption ?? path.join(loadConfig().dataDir, "db"));
  try {
    await copyOrThrow(command, file, dir, force);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`The ${command} failed: ${reason(error)}`);
  }
}

async function copyOrThrow(command: Subcommand, file: string, dir: string, force: boolean): Promise<void> {
  if (command === "backup") {
    const result = await backupDatabase(dir, file, { force });
    console.log(`Backed up ${dir} to ${result.file}: ${describe(result)}, in ${result.seconds.toFixed(1)} s.`);
  } else {
    const result = await restoreDatabase(file, dir, { force });
    const what = result.replaced ? "replacing the database it held" : "a new database";
    console.log(
      `Restored ${path.resolve(file)} into ${result.dir} (${what}): ${describe(result)}, in ${result.seconds.toFixed(1)} s.`,
    );
  }
}

function describe({ bytes, collections, documents }: DatabaseSummary): string {
  const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB, ${plural(collections, "collection")}, ${plural(documents, "document")}`;
}

class UsageError extends Error {}

function portOption(flag: string, text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`${flag} must be an integer from 0 to 65535, not ${JSON.stringify(text)}`);
  }
  return port;
}

/** The message of an error and of its causes; `code` is not always a string (lmdb's are numbers). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const withCode =
    code === undefined || error.message.includes(String(code)) ? error.message : `${error.message} (${String(code)})`;
  return error.cause === undefined ? withCode : `${withCode}\n  caused by: ${reason(error.cause)}`;
}

main().catch((error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
    console.error(`${(error as Error).message}\n\n${usage}`);
  } else if (error instanceof ConfigError || error instanceof BackupError) {
    console.error(error.message);
  } else {
    console.error(`The embedded database could not start: ${reason(error)}`);
  }
  process.exit(1);
});
