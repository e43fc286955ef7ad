/** The embedded database as `npm start` runs it: `npm run db` for DATA_DIR/db in a child process. */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const root = path.resolve(__dirname, "..", "..", "..");

export interface DatabaseProcess {
  child: ChildProcess;
  /** The TCP port it serves on. */
  port: number;
}

/**
 * Starts `npm run db` for DATA_DIR/db (of `env`) on `port` (0: a free one) and resolves once it
 * serves, with the port it took, so that a restart can come back at the same address.
 */
export function startDatabaseProcess(port: number, env: NodeJS.ProcessEnv = process.env): Promise<DatabaseProcess> {
  // Node with tsx's loader rather than the tsx command, which would run the database in a
  // grandchild: the process watched (and killed, and restarted) is then the database itself.
  const child = spawn(
    process.execPath,
    ["--import", "tsx", path.join(root, "lib", "platform", "cli", "db.ts"), "--port", String(port)],
    {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    // The first line is the URI; anything after it is drained so the pipe never fills.
    createInterface({ input: child.stdout! }).once("line", (uri) => {
      const served = /^mongodb:\/\/(?:[^@/]*@)?[^/]*:(\d+)/.exec(uri)?.[1];
      resolve({ child, port: served ? Number(served) : port });
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => reject(new Error(`it exited (${signal ?? `code ${code}`}) before serving`)));
  });
}

/**
 * Starts it again on `port` while that is free, else on a free one: another process may have
 * taken the port while the database was down, and the server finds the database through the lock
 * file and its Unix socket, whose path does not change.
 */
export async function restartDatabaseProcess(
  port: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<DatabaseProcess> {
  try {
    return await startDatabaseProcess(port, env);
  } catch (error) {
    if (port === 0) throw error;
    return startDatabaseProcess(0, env);
  }
}
