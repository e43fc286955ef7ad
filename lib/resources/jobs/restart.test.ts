import * as importRoute from "@/app/v2/users/import/route";
import { oid } from "@/lib/kernel/ids";
import { Event } from "@/lib/resources/events/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Job, JobFileChunk, type JobDoc } from "./repository";
import { JobRunner, MAX_JOB_ATTEMPTS } from "./runner";
import { toJobRecord } from "./service";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const RUNNER = path.join(__dirname, "testing", "runner-process.ts");
/** How long any awaited condition may take on a busy machine: a bound, not an expectation. */
const BOUND_MS = 30_000;
const ROWS = 1000;
/** Every 100th row is bad. */
const BAD = ROWS / 100;

// The child is a Node process with tsx loading the app: seconds to start on a busy machine.
describe("an import survives its server process killed with SIGKILL", { timeout: 120_000 }, () => {
  // A runner killed inside a batch leaves its transaction open, holding the job's writes until the
  // database aborts it (transactionLifetimeLimitSeconds, 60 s on MongoDB): 10 s here, so the next
  // runner's wait for it stays well within BOUND_MS.
  const db = useTestDatabase({ transactionLifetimeLimitSeconds: 10 });
  let tenant: Tenant;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    tenant = await createTenant("Import restart");
  });
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  const startImport = async (csv: string) => {
    const started = await call(importRoute.POST, "/v2/users/import", {
      method: "POST",
      token: tenant.adminToken,
      admin: true,
      rawBody: csv,
      headers: { "content-type": "text/csv" },
    });
    expect(started.status).toBe(202);
    return oid(success(started)._id);
  };
  const job = async (id: ReturnType<typeof oid>) => (await Job.findById(id).lean<JobDoc>())!;

  it("resumes from the last committed batch in another runner, with the right totals and no duplicates", async () => {
    const lines = ["email,firstName,lastName,accessRoles"];
    for (let n = 1; n <= ROWS; n++)
      lines.push(n % 100 === 0 ? `bad-${n},B,R,Member` : `restart.${n}@import.test,First${n},Last,Member`);
    const id = await startImport(lines.join("\n"));

    const child = spawn(
      process.execPath,
      ["--import", "tsx", RUNNER, "--owner", "killed", "--lease-ms", "1500", "--batch-size", "50"],
      {
        cwd: ROOT,
        env: { ...process.env, MONGODB_URI: db.uri, LOG_LEVEL: "warn" },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    children.push(child);
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));

    // Killed in the middle: some batches committed, not all.
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`the runner process ended: ${output}`);
        expect((await job(id)).checkpoint).toBeGreaterThanOrEqual(200);
      },
      { timeout: BOUND_MS, interval: 10 },
    );
    child.kill("SIGKILL");
    await exited;
    expect(child.signalCode).toBe("SIGKILL");

    const killed = await job(id);
    expect(killed).toMatchObject({ status: "running", leaseOwner: "killed", total: ROWS });
    expect(killed.checkpoint).toBeLessThan(ROWS);
    expect(killed.checkpoint % 50).toBe(0);
    // What the checkpoint says was done is exactly what is stored: batch and checkpoint commit together.
    const stored = () => User.countDocuments({ email: /^restart\./ });
    expect(await stored()).toBe(killed.summary.created);
    expect(killed.summary.created + killed.summary.failed).toBe(killed.checkpoint);

    // Another server's runner takes the job once the dead one's lease has expired, and finishes it.
    const other = new JobRunner({ owner: "other", leaseMs: 30_000, batchSize: 200 });
    await vi.waitFor(
      async () => {
        await other.runOnce();
        expect((await job(id)).status).toBe("succeeded");
      },
      { timeout: BOUND_MS, interval: 200 },
    );

    const done = toJobRecord(await job(id));
    expect(done).toMatchObject({
      status: "succeeded",
      progress: { done: ROWS, total: ROWS },
      summary: { created: ROWS - BAD, updated: 0, unchanged: 0, failed: BAD },
    });
    expect(done.errors.map((error) => error.line)).toEqual(Array.from({ length: BAD }, (_, n) => (n + 1) * 100 + 1));
    expect(await stored()).toBe(ROWS - BAD);
    // One event per user created, none twice.
    const users = (await User.find({ email: /^restart\./ }, { _id: 1 }).lean()).map((user) => user._id.toHexString());
    const created = await Event.find(
      { company: oid(tenant.companyId), type: "user.created", "resource.id": { $in: users } },
      { resource: 1 },
    ).lean<{ resource: { id: string } }[]>();
    const ids = created.map((event) => event.resource.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(ROWS - BAD);
    expect(await JobFileChunk.countDocuments({ job: id })).toBe(0);
  });

  it("ends a job that keeps stopping its workers failed, saying what was done", async () => {
    const id = await startImport("email,accessRoles\nonce@import.test,Member\n");
    await Job.updateOne(
      { _id: id },
      {
        $set: {
          status: "running",
          attempts: MAX_JOB_ATTEMPTS,
          checkpoint: 0,
          leaseOwner: "gone",
          leaseUntil: new Date(Date.now() - 1000),
        },
      },
    );
    await new JobRunner({ owner: "last" }).runOnce();
    const record = toJobRecord(await job(id));
    expect(record.status).toBe("failed");
    expect(record.finishedAt).not.toBeNull();
    expect(record.message).toBe(
      `The import stopped after ${MAX_JOB_ATTEMPTS} attempts, each ended by its server process stopping; 0 of the rows were done before it stopped (0 created, 0 updated, 0 unchanged, 0 failed); the rest were not imported.`,
    );
    expect(await User.countDocuments({ email: "once@import.test" })).toBe(0);
  });

  it("gives its lease back at once when its process drains, so another runner goes on without waiting, and the stop is no failed attempt", async () => {
    const lines = ["email,firstName,lastName,accessRoles"];
    for (let n = 1; n <= ROWS; n++) lines.push(`drain.${n}@import.test,First${n},Last,Member`);
    const id = await startImport(lines.join("\n"));
    // A lease far longer than the test: only giving it back lets the other runner take the job.
    const draining = new JobRunner({ owner: "draining", leaseMs: 600_000, batchSize: 50, pollMs: 10 }).start();
    await vi.waitFor(async () => expect((await job(id)).checkpoint).toBeGreaterThanOrEqual(200), {
      timeout: BOUND_MS,
      interval: 10,
    });
    await draining.stop();

    const stopped = await job(id);
    expect(stopped).toMatchObject({ status: "running", leaseOwner: "draining", attempts: 0 });
    expect(stopped.leaseUntil!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(stopped.checkpoint).toBeLessThan(ROWS);
    expect(await User.countDocuments({ email: /^drain\./ })).toBe(stopped.checkpoint);

    await new JobRunner({ owner: "next", leaseMs: 600_000, batchSize: 200 }).runOnce();
    expect(toJobRecord(await job(id))).toMatchObject({
      status: "succeeded",
      progress: { done: ROWS, total: ROWS },
      summary: { created: ROWS },
    });
    expect(await User.countDocuments({ email: /^drain\./ })).toBe(ROWS);
  });
});
