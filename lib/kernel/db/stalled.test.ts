/**
 * A database that stops answering in the middle of requests (its process stopped with SIGSTOP:
 * the connection stays open, nothing comes back) must not leave a request waiting for ever: each
 * operation is bounded by DATABASE_TIMEOUT_MS, and the request answers 503 with Retry-After.
 */
import * as users from "@/app/v2/users/route";
import { startDatabaseProcess, type DatabaseProcess } from "@/lib/platform/cli/database-process";
import { call, createTenant, failure } from "@/lib/tools/testing/http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnect } from ".";

const TIMEOUT_MS = 1_500;

describe("a database that stops answering", { timeout: 60_000 }, () => {
  let dataDir: string;
  let database: DatabaseProcess;
  const saved = {
    uri: process.env.MONGODB_URI,
    dataDir: process.env.DATA_DIR,
    timeout: process.env.DATABASE_TIMEOUT_MS,
    workers: process.env.READ_WORKERS,
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "usersurveys-stalled-"));
    delete process.env.MONGODB_URI;
    process.env.DATA_DIR = dataDir;
    process.env.DATABASE_TIMEOUT_MS = String(TIMEOUT_MS);
    // The page is read on the request's own thread, so the bound shown is the one of this process.
    process.env.READ_WORKERS = "0";
    database = await startDatabaseProcess(0, { ...process.env, LOG_LEVEL: "silent" });
  });

  afterAll(async () => {
    database?.child.kill("SIGCONT");
    await disconnect();
    database?.child.kill("SIGKILL");
    for (const [key, value] of [
      ["MONGODB_URI", saved.uri],
      ["DATA_DIR", saved.dataDir],
      ["DATABASE_TIMEOUT_MS", saved.timeout],
      ["READ_WORKERS", saved.workers],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers 503 with Retry-After once the bound has passed, and 200 when it answers again", async () => {
    const tenant = await createTenant("Stalled");
    const list = (search: string) =>
      call(users.GET, `/v2/users?count=true&search=${search}`, { token: tenant.adminToken });
    expect((await list("before")).status).toBe(200);

    database.child.kill("SIGSTOP");
    // A search not asked before, so neither the page nor its counter can come from a cache; the
    // connection looks healthy, so only the bound can end it.
    const stalled = await list("during");
    expect(stalled.status).toBe(503);
    expect(stalled.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(failure(stalled)).toMatchObject({ status: 503, code: "service_unavailable" });

    database.child.kill("SIGCONT");
    let answer = await list("after");
    for (let attempt = 0; answer.status !== 200 && attempt < 50; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await list(`after-${attempt}`);
    }
    expect(answer.status).toBe(200);
  });
});
