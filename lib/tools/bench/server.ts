/** What the benchmarks that start their own server (bench:api, bench:export, bench:import, bench:ui) share. */
import { startOrAttach } from "@/lib/embedded-mongo";
import { startDatabaseProcess } from "@/lib/platform/cli/database-process";
import { MongoClient, type Db } from "mongodb";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..", "..");
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** A port free on this machine now, chosen by the system. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` answers 2xx, asking every 250 ms; rejects after `timeoutMs`. */
export async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export interface BenchServerOptions {
  /** Names the data directory (`bench-<name>-…` in the system's temporary folder). */
  name: string;
  /** 0: a free one, so that another server on a fixed port is never benchmarked by mistake. */
  port: number;
  /** Runs `next build` even when a build exists. */
  build: boolean;
  /** Starts the embedded database inside the server process instead of in a process of its own. */
  dbInServer?: boolean;
  /** Added to the server's environment. */
  env?: Record<string, string>;
}

export interface BenchServer {
  base: string;
  dataDir: string;
  /** The server (the cluster's primary: its workers are its children) and, when it runs apart, the database process: for CPU and memory accounting. */
  pids: { server: number; database?: number };
  /** An access token of the admin that the bootstrap creates. */
  signIn(): Promise<string>;
  /** A client of this process attached to the server's database as the server is, and that database. */
  attach(): Promise<{ client: MongoClient; database: Db }>;
  /** Starts another server (lib/platform/cli/serve.ts) on the same database, with `env` added, on a free port. */
  another(env: Record<string, string>): Promise<{ base: string; pid: number }>;
  /** Ends the client, the servers and the database process, and removes the data. */
  stop(): Promise<void>;
}

const ADMIN = { email: "admin@example.com", password: "bench admin password" };

/**
 * The production build (built first when missing or asked for) started on a fresh embedded
 * database, as `npm start` runs it: by default the database is a process of its own
 * (`npm run db`) that the server attaches to.
 */
export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  if (options.build || !existsSync(path.join(root, ".next", "BUILD_ID"))) {
    err("Building the production build (next build)...");
    await exec(bin("next"), ["build"]);
  }
  const port = options.port || (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), `bench-${options.name}-`));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATA_DIR: dataDir,
    AUTH_SECRET: randomBytes(48).toString("base64url"),
    RATE_LIMIT_PER_MINUTE: "1000000000",
    LOG_LEVEL: "warn",
    MONGODB_URI: "",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    // One server process unless a benchmark asks for more (bench:api compares both).
    WEB_CONCURRENCY: "1",
    ...options.env,
  };
  const children: ChildProcess[] = [];
  let client: MongoClient | undefined;
  const stop = async () => {
    await client?.close().catch(() => undefined);
    // The server first: it holds connections to the database.
    for (const child of children.reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    let database: ChildProcess | undefined;
    if (!options.dbInServer) {
      err("Starting the embedded database in a process of its own (npm run db)...");
      // Started as `npm start` starts it: the same node flags, and the pid is the database's own.
      database = (await startDatabaseProcess(0, env)).child;
      children.push(database);
    }
    err(`Starting the production server on port ${port} (data in ${dataDir})...`);
    // As `npm start` serves: the cluster of server entries (lib/platform/cli/serve.ts), WEB_CONCURRENCY of them.
    const serve = async (serverPort: number, extra: Record<string, string> = {}) => {
      const server = spawn(
        process.execPath,
        ["--import", "tsx", path.join(root, "lib", "platform", "cli", "serve.ts")],
        { cwd: root, env: { ...env, ...extra, PORT: String(serverPort) }, stdio: ["ignore", "ignore", "inherit"] },
      );
      children.push(server);
      const exited = new Promise<never>((_, reject) =>
        server.once("exit", (code) => reject(new Error(`the server exited with ${code}`))),
      );
      exited.catch(() => undefined);
      await Promise.race([waitFor(`http://127.0.0.1:${serverPort}/api/health`, 120_000), exited]);
      return server;
    };
    const server = await serve(port);
    return {
      base,
      dataDir,
      pids: { server: server.pid!, ...(database ? { database: database.pid! } : {}) },
      signIn: () => signIn(base),
      another: async (extra) => {
        const anotherPort = await freePort();
        const started = await serve(anotherPort, extra);
        return { base: `http://127.0.0.1:${anotherPort}`, pid: started.pid! };
      },
      attach: async () => {
        client ??= await new MongoClient((await startOrAttach({ dir: path.join(dataDir, "db") })).localUri).connect();
        return { client, database: client.db("usersurveys") };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Signing in also bootstraps an empty database through the app itself. */
async function signIn(base: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ADMIN),
  });
  if (!response.ok) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

function exec(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", process.stderr, process.stderr] });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`)),
    );
  });
}
