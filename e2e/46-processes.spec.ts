/**
 * The processes of `npm start` (docs/deployment.md#processes-restarts-and-health), run as a process
 * manager runs it: `npm start` itself, with two server processes. A rolling restart (SIGHUP to the
 * cluster's primary) under a steady load fails no request, and SIGTERM to the npm process ends
 * every process of the product, npm's child, the database and the servers included, with exit 0.
 */
import { processTree } from "@/lib/tools/bench/processes";
import { freePort } from "@/lib/tools/bench/server";
import { expect, test } from "@playwright/test";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const ADMIN = { email: "processes.admin@example.com", password: "processes admin password" };

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The processes of `tree` holding the server's side of the connection from `clientPort` to `port`
 * (from /proc/net/tcp*), with their command lines: the cluster's primary holds a connection it has
 * handed to a server process until that process takes it.
 */
function holdersOf(port: number, clientPort: number, tree: number[]): string[] {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const portOf = (address: string) => parseInt(address.split(":").at(-1)!, 16);
      if (portOf(fields[1]) === port && portOf(fields[2]) === clientPort) inodes.add(fields[9]);
    }
  }
  const holders: string[] = [];
  for (const pid of tree) {
    try {
      const fds = readdirSync(`/proc/${pid}/fd`);
      if (fds.some((fd) => inodes.has(/^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`))?.[1] ?? "")))
        holders.push(`${pid} (${commandOf(pid)})`);
    } catch {
      // The process ended meanwhile.
    }
  }
  return holders;
}
const safeReadlink = (file: string) => {
  try {
    return readlinkSync(file);
  } catch {
    return "";
  }
};

/**
 * One GET on a connection of its own (as a client that does not reuse them); its status, or the
 * error with when it started and, for one that times out, which process held the connection.
 */
function get(port: number, target: string, token: string, tree: () => number[]): Promise<number | string> {
  const started = new Date();
  return new Promise((resolve) => {
    const request = http.get(
      { host: "127.0.0.1", port, path: target, agent: false, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", (error) => resolve(error.message));
      },
    );
    const failed = (message: string) => `${message} (sent at ${started.toISOString()})`;
    request.on("error", (error) => resolve(failed(error.message)));
    request.setTimeout(30_000, () => {
      const clientPort = request.socket?.localPort;
      const holders = clientPort === undefined ? [] : holdersOf(port, clientPort, tree());
      request.destroy(new Error(`timed out; the connection was held by ${holders.join(", ") || "no process"}`));
    });
  });
}

test("a rolling restart under load fails no request, and SIGTERM to npm start ends every process", async () => {
  test.setTimeout(300_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), "e2e-processes-"));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    MONGODB_URI: "",
    WEB_CONCURRENCY: "2",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_PER_MINUTE: "1000000",
    // The server processes' drain and start lines explain a failed request (printed on failure).
    LOG_LEVEL: "info",
    NEXT_TELEMETRY_DISABLED: "1",
  };
  const npm = spawn("npm", ["start"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  npm.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
  try {
    await expect.poll(() => output, { timeout: 180_000 }).toContain("Stop with Ctrl+C.");
    const tree = processTree(npm.pid!);
    const primary = tree.find((pid) => commandOf(pid).includes("lib/platform/cli/serve.ts"))!;
    const workers = () => processTree(primary).filter((pid) => commandOf(pid).includes("lib/platform/cli/server.ts"));
    const before = workers();
    expect(before).toHaveLength(2);
    expect(tree.some((pid) => commandOf(pid).includes("lib/platform/cli/db.ts"))).toBe(true);

    const signIn = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    expect(signIn.status).toBe(200);
    const { accessToken } = (await signIn.json()) as { accessToken: string };

    // A steady load on both servers while each is replaced in turn.
    const answers: (number | string)[] = [];
    let loading = true;
    const load = Array.from({ length: 4 }, async () => {
      while (loading)
        answers.push(await get(port, "/v2/users?limit=5&count=true", accessToken, () => processTree(npm.pid!)));
    });
    await sleep(1_000);
    process.kill(primary, "SIGHUP");
    await expect.poll(() => workers().filter((pid) => !before.includes(pid)).length, { timeout: 120_000 }).toBe(2);
    await expect.poll(() => before.some(alive), { timeout: 30_000 }).toBe(false);
    await sleep(1_000);
    loading = false;
    await Promise.all(load);
    expect(answers.length).toBeGreaterThan(20);
    const failures = answers.filter((answer) => answer !== 200);
    if (failures.length > 0) {
      // Everything the processes said but their successful answers, to tell where each failure went.
      const said = output
        .split("\n")
        .filter((line) => !/"msg":"(request|answer)"/.test(line) || !/"status":200\b/.test(line));
      console.log(`Failed requests:\n${failures.join("\n")}\nServer output:\n${said.join("\n")}`);
    }
    expect(failures).toEqual([]);
    expect(workers()).toHaveLength(2);

    // SIGTERM to the process a process manager started: npm, and through it every process.
    const all = processTree(npm.pid!);
    npm.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect.poll(() => all.filter(alive), { timeout: 30_000 }).toEqual([]);
  } finally {
    if (npm.exitCode === null) npm.kill("SIGKILL");
    for (const pid of processTree(npm.pid!)) if (alive(pid)) process.kill(pid, "SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
});
