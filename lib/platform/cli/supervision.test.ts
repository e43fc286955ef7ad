import * as health from "@/app/api/health/route";
import * as me from "@/app/v2/users/me/route";
import * as users from "@/app/v2/users/route";
import { disconnect } from "@/lib/kernel/db";
import { call, createTenant, failure, success } from "@/lib/tools/testing/http";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restartDatabaseProcess } from "./database-process";
import { Supervisor } from "./supervisor";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await sleep(50);
  }
}

/** A real process that serves (prints a line) until killed; `fail` makes one exit before serving. */
function startChild(fail = false): Promise<ChildProcess> {
  const script = fail ? "process.exit(3)" : "console.log('up'); setInterval(() => {}, 1000)";
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`exited with code ${code} before serving`)));
  });
}

describe("Supervisor", () => {
  it("restarts a killed process after a delay that doubles with each failure in a row, logging each", async () => {
    const lines: string[] = [];
    let starts = 0;
    const supervisor = new Supervisor({
      name: "the child",
      // The second and third starts fail, as a database that cannot start yet would.
      start: () => startChild(++starts === 2 || starts === 3),
      initialDelayMs: 20,
      maxDelayMs: 10_000,
      log: (line) => lines.push(line),
    });
    const first = await supervisor.start();
    first.kill("SIGKILL");
    const revived = await until(() =>
      supervisor.current && supervisor.current !== first ? supervisor.current : undefined,
    );
    expect(revived.pid).not.toBe(first.pid);
    expect(starts).toBe(4);
    expect(lines).toEqual([
      "The child killed by SIGKILL; restarting it in 20 ms (attempt 1).",
      "The child failed to start (exited with code 3 before serving); restarting it in 40 ms (attempt 2).",
      "The child failed to start (exited with code 3 before serving); restarting it in 80 ms (attempt 3).",
      `The child is serving again (process ${revived.pid}).`,
    ]);

    // Stopped on purpose: it exits and is not started again.
    await supervisor.stop();
    expect(revived.signalCode).toBe("SIGTERM");
    await sleep(200);
    expect(starts).toBe(4);
    expect(supervisor.current).toBeUndefined();
  });

  it("caps the delay, and leaves a process that exited cleanly alone", async () => {
    const supervisor = new Supervisor({
      name: "x",
      start: () => startChild(),
      initialDelayMs: 500,
      maxDelayMs: 30_000,
    });
    expect([1, 2, 3, 6, 7, 8, 20].map((failures) => supervisor.delayFor(failures))).toEqual([
      500, 1000, 2000, 16_000, 30_000, 30_000, 30_000,
    ]);

    const lines: string[] = [];
    const clean = new Supervisor({
      name: "the child",
      start: () => startChild(),
      initialDelayMs: 20,
      log: (line) => lines.push(line),
    });
    const child = await clean.start();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.stdin?.end();
    process.kill(child.pid!, "SIGTERM"); // a plain Node child exits with the signal, not cleanly
    await exited;
    await until(() => clean.current);
    await clean.stop();
    expect(lines[0]).toBe("The child killed by SIGTERM; restarting it in 20 ms (attempt 1).");
  });
});

// Real processes: the embedded database (`npm run db` through tsx) in a child, killed with SIGKILL.
describe("a database that dies while the server runs", { timeout: 120_000 }, () => {
  let dataDir: string;
  let supervisor: Supervisor;
  let port = 0;
  const lines: string[] = [];
  const saved = { uri: process.env.MONGODB_URI, dataDir: process.env.DATA_DIR };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "usersurveys-supervision-"));
    delete process.env.MONGODB_URI;
    process.env.DATA_DIR = dataDir;
    supervisor = new Supervisor({
      name: "the embedded database",
      start: async () => {
        const started = await restartDatabaseProcess(port, { ...process.env, LOG_LEVEL: "silent" });
        port = started.port;
        return started.child;
      },
      // Long enough for the requests below to find it down.
      initialDelayMs: 3_000,
      log: (line) => lines.push(line),
    });
    await supervisor.start();
  });

  afterAll(async () => {
    await disconnect();
    await supervisor?.stop();
    for (const [key, value] of [
      ["MONGODB_URI", saved.uri],
      ["DATA_DIR", saved.dataDir],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers 503 with Retry-After while it is down, and 200 once the supervisor has restarted it", async () => {
    const tenant = await createTenant("Supervised");
    expect((await call(me.GET, "/v2/users/me", { token: tenant.adminToken })).status).toBe(200);
    expect((await health.GET(new Request("http://localhost/api/health"))).status).toBe(200);

    const killed = supervisor.current!;
    const gone = new Promise((resolve) => killed.once("exit", resolve));
    killed.kill("SIGKILL");
    await gone;
    // Another process takes the port while the database is down: it comes back on another one.
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(port, "127.0.0.1", resolve));
    const takenPort = port;

    // Several requests that need the database while it is down (GET /v2/users/me may be answered
    // from the cache): the first finds the broken connection, the next ones the driver's
    // knowledge that the server is gone; each is a 503 in the contract's shape. On a busy machine
    // the first can still be in the driver's retry when the database is back: it is then answered.
    const servingAgain = () => supervisor.current !== undefined && supervisor.current.pid !== killed.pid;
    for (let attempt = 0; attempt < 3; attempt++) {
      const down = await call(users.GET, "/v2/users?count=true", { token: tenant.adminToken });
      if (down.status === 200 && servingAgain()) break;
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(failure(down)).toMatchObject({ status: 503, code: "service_unavailable" });
    }
    if (!servingAgain()) {
      const healthDown = await health.GET(new Request("http://localhost/api/health"));
      if (!servingAgain()) {
        expect(healthDown.status).toBe(503);
        expect(healthDown.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      }
    }
    expect(lines[0]).toBe("The embedded database killed by SIGKILL; restarting it in 3 s (attempt 1).");

    // Each attempt is bounded, so that one slow answer cannot keep the later ones from being made.
    const back = await until(async () => {
      const answer = await Promise.race([
        call(users.GET, "/v2/users?count=true", { token: tenant.adminToken }),
        sleep(5_000).then(() => undefined),
      ]);
      return answer?.status === 200 ? answer : undefined;
    });
    expect(success(back).data.counter).toBe(2);
    expect(supervisor.current?.pid).not.toBe(killed.pid);
    expect(lines.at(-1)).toMatch(/^The embedded database is serving again/);
    expect((await health.GET(new Request("http://localhost/api/health"))).status).toBe(200);
    expect(port).not.toBe(takenPort);
    await new Promise((resolve) => squatter.close(resolve));
  });
});
