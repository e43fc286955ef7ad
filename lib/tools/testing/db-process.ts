/**
 * Test support for crash tests: `npm run db` on a directory in its own process, to be killed with
 * SIGKILL and started again on what the crash left, and a seeded generator so a failing run can be
 * replayed from its seed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";

const root = path.resolve(__dirname, "..", "..", "..");

/** mulberry32: a small seeded generator, so a failing run can be replayed from its seed. */
export function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface DbProcess {
  child: ChildProcess;
  uri: string;
  /** The TCP port it serves on, so a restart can come back at the same address. */
  port: number;
  exited: Promise<NodeJS.Signals | number | null>;
}

/** Database processes still running, for {@link killDbProcesses} (a failed assertion must not leave one behind). */
const running = new Set<ChildProcess>();

/**
 * Starts `npm run db -- --dir D --port P` (0: a free port) as the project starts it: Node with
 * tsx's loader, no wrapper process, so the process killed is the database itself.
 */
export function startDb(dir: string, options: { port?: number; env?: NodeJS.ProcessEnv } = {}): Promise<DbProcess> {
  const args = [
    "--import",
    "tsx",
    path.join(root, "lib", "platform", "cli", "db.ts"),
    "--dir",
    dir,
    "--port",
    String(options.port ?? 0),
  ];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code)),
  );
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (uri) => {
      const port = Number(/^mongodb:\/\/(?:[^@/]*@)?[^/]*:(\d+)/.exec(uri)?.[1] ?? options.port ?? 0);
      resolve({ child, uri, port, exited });
    });
    child.once("error", reject);
    void exited.then((how) => reject(new Error(`npm run db exited (${how}) before serving: ${stderr}`)));
  });
}

/** Kills every database process {@link startDb} started that still runs. */
export function killDbProcesses(): void {
  for (const child of running) child.kill("SIGKILL");
}
