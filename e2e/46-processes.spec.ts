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
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
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

/** One GET on a connection of its own (as a client that does not reuse them); its status, or the error. */
function get(port: number, target: string, token: string): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.get(
      { host: "127.0.0.1", port, path: target, agent: false, headers: { authorization: `Bearer ${token}` } },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
        response.on("error", (error) => resolve(error.message));
      },
    );
    request.on("error", (error) => resolve(error.message));
    request.setTimeout(30_000, () => request.destroy(new Error("timed out")));
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
    LOG_LEVEL: "warn",
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
      while (loading) answers.push(await get(port, "/v2/users?limit=5&count=true", accessToken));
    });
    await sleep(1_000);
    process.kill(primary, "SIGHUP");
    await expect.poll(() => workers().filter((pid) => !before.includes(pid)).length, { timeout: 120_000 }).toBe(2);
    await expect.poll(() => before.some(alive), { timeout: 30_000 }).toBe(false);
    await sleep(1_000);
    loading = false;
    await Promise.all(load);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((answer) => answer !== 200)).toEqual([]);
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
