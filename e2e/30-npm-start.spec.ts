/**
 * `npm start` as a user runs it (lib/platform/cli/start.ts, on the production build the run has made), on a
 * fresh DATA_DIR without ADMIN_PASSWORD: what it prints, the generated password that signs in,
 * the embedded database revived after a SIGKILL, and a second start that shows no password.
 */
import { freePort } from "@/lib/tools/bench/server";
import { expect, test } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const ADMIN = "start.admin@example.com";

interface Started {
  child: ChildProcess;
  /** Everything printed on stderr so far (the supervisor's lines among it). */
  errors: () => string;
  summary: Record<string, string>;
}

/** Runs `npm start`'s script and resolves with the summary it prints once serving. */
function npmStart(dataDir: string, port: number): Promise<Started> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    MONGODB_URI: "",
    ADMIN_EMAIL: ADMIN,
    LOG_LEVEL: "warn",
    NEXT_TELEMETRY_DISABLED: "1",
    // A request caught by the kill ends within this bound (docs/security.md#availability), well
    // inside the time the test waits for the database to come back.
    DATABASE_TIMEOUT_MS: "5000",
  };
  delete env.ADMIN_PASSWORD;
  const child = spawn(path.join(root, "node_modules", ".bin", "tsx"), ["lib/platform/cli/start.ts"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes("Stop with Ctrl+C.")) return;
      const summary: Record<string, string> = {};
      for (const match of stdout.matchAll(/^ {2}(Serving|Database|Admin|Password) +(\S.*)$/gm))
        summary[match[1]] = match[2];
      resolve({ child, errors: () => stderr, summary });
    });
    child.once("exit", (code) =>
      reject(new Error(`npm start exited with ${code} before serving:\n${stdout}\n${stderr}`)),
    );
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGINT");
  return exited;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const databasePid = (dataDir: string) =>
  (JSON.parse(readFileSync(path.join(dataDir, "db", "mongod.lock"), "utf8")) as { pid: number }).pid;

test("npm start prints where it serves, revives its database, and shows the generated password once", async () => {
  test.setTimeout(240_000);
  const dataDir = mkdtempSync(path.join(tmpdir(), "e2e-npm-start-"));
  const port = await freePort();
  const base = `http://localhost:${port}`;
  try {
    const first = await npmStart(dataDir, port);
    expect(first.summary.Serving).toBe(base);
    expect(first.summary.Database).toBe(`embedded, in ${path.join(dataDir, "db")}`);
    expect(first.summary.Admin).toBe(ADMIN);
    const password = first.summary.Password?.split(" ")[0];
    expect(password).toMatch(/^[\w-]{12,}$/);

    const signIn = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password }),
    });
    expect(signIn.status).toBe(200);
    const { accessToken } = (await signIn.json()) as { accessToken: string };
    const list = (signal?: AbortSignal) =>
      fetch(`${base}/v2/users?count=true`, { headers: { authorization: `Bearer ${accessToken}` }, signal });
    expect((await list()).status).toBe(200);

    // The database dies: every answer meanwhile is a 503 (never a 500), until it is back.
    const killed = databasePid(dataDir);
    process.kill(killed, "SIGKILL");
    // Each answer, or why there was none: a request caught by the kill must end within the
    // database's bound (5 s here), so one still open after 10 s is a failure, named as one.
    const statuses: (number | string)[] = [];
    const seen = () =>
      `answers seen: ${statuses.join(", ") || "none"}\nthe server's stderr, last lines:\n${first.errors().slice(-2000)}`;
    await expect
      .poll(
        async () => {
          const answer = await list(AbortSignal.timeout(10_000)).catch((error: Error) => error);
          if (answer instanceof Error) {
            statuses.push(`${answer.name}: ${answer.message}`);
            return answer.name;
          }
          statuses.push(answer.status);
          if (answer.status === 503) expect(answer.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
          return answer.status;
        },
        { timeout: 60_000, intervals: [100], message: "the database is back, and the list answers 200" },
      )
      .toBe(200)
      .catch((error: Error) => {
        throw new Error(`${error.message}\n${seen()}`);
      });
    expect(
      statuses.filter((status) => status !== 200 && status !== 503),
      seen(),
    ).toEqual([]);
    expect(first.errors()).toMatch(/The embedded database killed by SIGKILL; restarting it in \S+ \S+ \(attempt 1\)\./);
    const revived = databasePid(dataDir);
    expect(revived).not.toBe(killed);

    // Ctrl+C stops the server and the database with it.
    expect(await stop(first.child)).toBe(0);
    expect(alive(revived)).toBe(false);

    // The second start: the same admin, no password shown, and the generated one still signs in.
    const second = await npmStart(dataDir, port);
    expect(second.summary.Admin).toBe(ADMIN);
    expect(second.summary.Password).toBeUndefined();
    const again = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password }),
    });
    expect(again.status).toBe(200);
    expect(await stop(second.child)).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
