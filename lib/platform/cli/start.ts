/**
 * `npm start`: builds the app when there is no production build yet (showing Next's steps and
 * the elapsed time), then serves it on PORT with WEB_CONCURRENCY server processes (lib/platform/cli/serve.ts)
 * and prints the URL, the database, the admin e-mail and, on the start that created the first
 * admin without ADMIN_PASSWORD, its generated password. SIGTERM or SIGINT drains the servers, then
 * stops the database; `npm start` execs this process, so npm's signal reaches it
 * (docs/deployment.md#processes-restarts-and-health).
 *
 * Without MONGODB_URI, the embedded database runs in a process of its own beside the server
 * (`npm run db` on DATA_DIR/db); the server's lib/kernel/db finds it through the lock file and attaches.
 * The database then has a core of its own instead of sharing the server's event loop
 * (docs/benchmarks.md#where-the-time-goes). This process supervises it: a crash or kill is
 * followed by a restart on the same address, with a growing delay (lib/platform/cli/supervisor.ts);
 * meanwhile the server answers 503 with Retry-After.
 */
import { ConfigError, loadConfig } from "@/lib/base/config";
import { parseCommandLine } from "@/lib/base/shared/command-line";
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { restartDatabaseProcess } from "./database-process";
import { loadEnvFiles } from "./env";
import { formatElapsed, servingSummary } from "./summary";
import { Supervisor } from "./supervisor";

const root = path.resolve(__dirname, "..", "..", "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

const usage = `Usage: npm start

Serves the app on PORT (default 3000). The first start builds it (next build: a few minutes).
Without MONGODB_URI, the embedded database runs on DATA_DIR/db in a process of its own, restarted
when it crashes. Configuration: environment variables, and the .env files as Next.js reads them.`;

/** Quiet build output for this long prints a "still building" line, so the user sees it move. */
const QUIET_BUILD_MS = 10_000;

/** Runs a child with our signals forwarded to it; resolves with its exit code. */
function run(
  command: string,
  args: string[],
  options: SpawnOptions,
  onStart?: (child: ChildProcess) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, ...options });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolve(code ?? (signal === "SIGINT" ? 130 : signal === "SIGTERM" ? 143 : 1));
    });
    onStart?.(child);
  });
}

/** `next build`, its lines indented under ours, with an elapsed-time line whenever it is quiet. */
async function build(): Promise<number> {
  const started = Date.now();
  let lastLine = started;
  console.log(
    "No production build yet: building the app first (next build; this happens once and takes a few minutes).",
  );
  const ticker = setInterval(() => {
    if (Date.now() - lastLine < QUIET_BUILD_MS) return;
    lastLine = Date.now();
    console.log(`  ... still building (${formatElapsed(lastLine - started)} so far)`);
  }, 1000);
  const code = await run(bin("next"), ["build"], { stdio: ["ignore", "pipe", "pipe"] }, (child) => {
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => {
        lastLine = Date.now();
        if (line.trim()) console.log(`  [build ${formatElapsed(lastLine - started)}] ${line}`);
      });
    }
  });
  clearInterval(ticker);
  console.log(
    code === 0 ? `Built in ${formatElapsed(Date.now() - started)}.` : `The build failed (exit code ${code}).`,
  );
  return code;
}

/** Readies the database as the server would, in a process of its own; what to show the user. */
async function firstStart(): Promise<{ adminEmail: string; generatedPassword?: string }> {
  let output = "";
  const code = await run(
    bin("tsx"),
    [path.join(root, "lib", "platform", "cli", "first-start.ts")],
    { stdio: ["ignore", "pipe", "inherit"] },
    (child) => {
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    },
  );
  if (code !== 0) throw new Error(`preparing the database failed (exit code ${code})`);
  return JSON.parse(output.trim().split("\n").at(-1)!) as { adminEmail: string; generatedPassword?: string };
}

/** Resolves once the server answers HTTP on `url` (any status), or when `stopped` settles first. */
async function untilServing(url: string, stopped: Promise<unknown>): Promise<boolean> {
  let done = false;
  void stopped.then(() => (done = true));
  while (!done) {
    try {
      await fetch(new URL("/api/health", url), { signal: AbortSignal.timeout(2_000) });
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return false;
}

async function main(): Promise<number> {
  parseCommandLine(usage, { options: {} });
  // The server resolves DATA_DIR and reads .env files in the project folder: so does this process.
  process.chdir(root);
  loadEnvFiles(root);
  const config = loadConfig();

  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    const code = await build();
    if (code !== 0) return code;
  }

  let supervisor: Supervisor | undefined;
  if (!config.mongodbUri) {
    let port = 0;
    supervisor = new Supervisor({
      name: "the embedded database",
      start: async () => {
        const started = await restartDatabaseProcess(port);
        port = started.port;
        return started.child;
      },
    });
    await supervisor.start().catch((error: Error) => {
      throw new Error(`the embedded database did not start: ${error.message}`);
    });
  }

  try {
    const first = await firstStart();
    const url = `http://localhost:${config.port}`;
    // The server processes (lib/platform/cli/serve.ts, a cluster of the server entry) drain on SIGTERM and
    // SIGINT themselves; Next's own handler would race them to process.exit.
    const env = { ...process.env, NEXT_MANUAL_SIG_HANDLE: "true" };
    const exited = run(process.execPath, ["--import", "tsx", path.join(root, "lib", "platform", "cli", "serve.ts")], {
      stdio: "inherit",
      env,
    });
    if (await untilServing(url, exited)) {
      const summary = servingSummary({
        url,
        publicUrl: config.publicUrl,
        mongodbUri: config.mongodbUri,
        embeddedDir: path.join(config.dataDir, "db"),
        adminEmail: first.adminEmail,
        generatedPassword: first.generatedPassword,
      });
      console.log(summary.join("\n"));
    }
    return await exited;
  } finally {
    // The database closes its files on SIGTERM (a Ctrl+C reaches it through the process group).
    await supervisor?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError || error instanceof Error ? `npm start: ${error.message}` : error);
    process.exit(1);
  },
);
