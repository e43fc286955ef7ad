/**
 * `npm start`: builds the app when there is no production build yet, then serves it on PORT.
 *
 * Without MONGODB_URI, the embedded database runs in a process of its own beside the server
 * (`npm run db` on DATA_DIR/db, a free port); the server's lib/db finds it through the lock file
 * and attaches. The database then has a core of its own instead of sharing the server's event
 * loop (docs/benchmarks.md#where-the-time-goes).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError, loadConfig } from "../config";

const root = path.resolve(__dirname, "..", "..");
const nextBin = path.join(root, "node_modules", ".bin", "next");

/** Runs `next <args>` with our stdio; resolves with its exit code, forwarding our signals to it. */
function runNext(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(nextBin, args, { cwd: root, stdio: "inherit", env });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolve(code ?? (signal === "SIGINT" ? 130 : signal === "SIGTERM" ? 143 : 1));
    });
  });
}

/** Starts `npm run db` for DATA_DIR/db and resolves once it serves (or another process does). */
function startDatabase(): Promise<ChildProcess> {
  const tsx = path.join(root, "node_modules", ".bin", "tsx");
  const child = spawn(tsx, [path.join(root, "lib", "cli", "db.ts"), "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve(child));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the embedded database exited with code ${code} before serving`)));
  });
}

async function main(): Promise<number> {
  const { port, mongodbUri } = loadConfig();

  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    console.log("No production build yet: running `next build` first (once).");
    const code = await runNext(["build"]);
    if (code !== 0) return code;
  }

  const database = mongodbUri ? undefined : await startDatabase();
  try {
    // lib/db closes its connection on SIGINT/SIGTERM and then exits; Next's own handler would race
    // it to process.exit and could cut that short.
    return await runNext(["start", "--port", String(port)], { ...process.env, NEXT_MANUAL_SIG_HANDLE: "true" });
  } finally {
    // The database closes its files on SIGTERM (a Ctrl+C reaches it through the process group).
    if (database && database.exitCode === null) {
      database.kill("SIGTERM");
      await new Promise((resolve) => database.once("exit", resolve));
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  },
);
