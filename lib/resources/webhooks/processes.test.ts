import { oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant, type Tenant } from "@/lib/tools/testing/http";
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Webhook as Verifier } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Delivery, Webhook } from "./repository";
import { createWebhook, listDeliveries } from "./service";
import { happen as commit, receiver } from "./testing/fixtures";

process.env.WEBHOOK_ALLOWED_HOSTS = "127.0.0.1";

const ROOT = path.resolve(__dirname, "..", "..", "..");
const RUNNER = path.join(__dirname, "testing", "delivery-process.ts");
/** How long any awaited condition may take on a busy machine: a bound, not an expectation. */
const BOUND_MS = 20_000;

interface Runner {
  child: ChildProcess;
  exited: Promise<unknown>;
  start(): Promise<void>;
}

// Each child is a Node process with tsx loading the app: seconds to start on a busy machine.
describe("webhook delivery across server processes", { timeout: 60_000 }, () => {
  const db = useTestDatabase();
  let tenant: Tenant;
  let auth: Principal;
  const runners: Runner[] = [];
  const receivers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    tenant = await createTenant("Delivery processes");
    auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
  });
  const killAll = async () => {
    await Promise.all(
      runners.splice(0).map(async ({ child, exited }) => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        await exited;
      }),
    );
  };
  afterEach(async () => {
    await killAll();
    await Promise.all(receivers.splice(0).map((each) => each.close()));
    await Promise.all([Webhook.deleteMany({}), Delivery.deleteMany({})]);
  });
  // The children are always gone before the database they use closes.
  afterAll(killAll);

  /**
   * Spawns a delivery process for the test database, loaded but not yet connected; `start` has it
   * connect and start its loop, and resolves once it has.
   */
  const spawnRunner = async (owner: string, args: string[] = []): Promise<Runner> => {
    // node --import tsx rather than the tsx binary: the pid is the process that delivers, so SIGKILL kills it.
    const child = spawn(
      process.execPath,
      ["--import", "tsx", RUNNER, "--on-stdin", "--owner", owner, "--poll-ms", "50", ...args],
      {
        cwd: ROOT,
        env: { ...process.env, MONGODB_URI: db.uri, WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", LOG_LEVEL: "warn" },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const printed = (line: string) =>
      vi.waitFor(
        () => {
          if (child.exitCode !== null || child.signalCode !== null)
            throw new Error(`the delivery process ended (${child.exitCode ?? child.signalCode}): ${output}`);
          expect(output).toContain(line);
        },
        { timeout: BOUND_MS, interval: 50 },
      );
    const runner: Runner = {
      child,
      exited,
      start: async () => {
        child.stdin!.write("go\n");
        await printed(`started ${owner}`);
      },
    };
    runners.push(runner);
    await printed("loaded");
    return runner;
  };
  const listen = async (answer?: (n: number) => number | null) => {
    const made = await receiver(answer);
    receivers.push(made);
    return made;
  };
  const happen = (type: string, id: string) => commit(tenant, type, id);
  const attempts = async (webhookId: string) =>
    (await listDeliveries(auth, webhookId, { limit: 100, count: false })).data.deliveries;

  it("delivers after a server killed with SIGKILL mid-delivery is started again", async () => {
    // The first request is never answered: the process dies waiting for it.
    const target = await listen((n) => (n === 1 ? null : 200));
    const hook = await createWebhook(auth, { url: target.url, events: ["user.updated"] });
    const event = await happen("user.updated", "killed");

    // A short lease, so the restarted process may take the attempt soon; a long timeout, so the first never gives up on its own.
    // The restarted server's own lease is the default's order of magnitude, so a slow answer never lets it lapse.
    const [first, restarted] = await Promise.all([
      spawnRunner("first", ["--lease-ms", "1500", "--timeout-ms", "60000"]),
      spawnRunner("restarted", ["--lease-ms", "30000"]),
    ]);
    await first.start();
    await vi.waitFor(() => expect(target.received).toHaveLength(1), { timeout: BOUND_MS, interval: 20 });
    first.child.kill("SIGKILL");
    await first.exited;
    expect(first.child.signalCode).toBe("SIGKILL");
    // Mid-delivery: the attempt is still pending, held by the dead process.
    const [held] = await Delivery.find({ webhook: oid(hook._id) }).lean();
    expect(held).toMatchObject({ status: "pending", leaseOwner: "first", attempt: 1 });

    // A process that has not touched the database before the kill connects and starts, as a restarted server does.
    await restarted.start();
    await vi.waitFor(async () => expect((await attempts(hook._id)).map((d) => d.status)).toEqual(["succeeded"]), {
      timeout: BOUND_MS,
      interval: 50,
    });

    // The same attempt, taken again once the dead process's lease expired, made again and succeeded (docs/architecture.md#webhook-delivery).
    expect(target.received).toHaveLength(2);
    const verifier = new Verifier(hook.secret!);
    for (const { headers, body } of target.received) {
      expect(headers["webhook-id"]).toBe(event._id.toHexString());
      expect(verifier.verify(body, headers as Record<string, string>)).toMatchObject({
        _id: event._id.toHexString(),
        type: "user.updated",
      });
    }
    expect(target.received[1].body).toBe(target.received[0].body);
    const [entry] = await attempts(hook._id);
    expect(entry).toMatchObject({
      _id: held._id.toHexString(),
      eventId: event._id.toHexString(),
      attempt: 1,
      status: "succeeded",
      responseStatus: 200,
      error: null,
      nextAttemptAt: null,
    });
    expect((await Delivery.findById(held._id).lean())!.leaseOwner).toBe("restarted");
  });

  it("delivers each event once with two server processes on one database", async () => {
    // Polling this often, both dispatchers often read the same new events at once: the race that the conditional move of `afterSeq` settles (docs/architecture.md#webhook-delivery).
    const both = Promise.all([spawnRunner("one", ["--poll-ms", "5"]), spawnRunner("two", ["--poll-ms", "5"])]);
    const target = await listen();
    const hook = await createWebhook(auth, { url: target.url, events: ["user.updated"] });
    const events = [];
    for (let n = 0; n < 10; n++) events.push(await happen("user.updated", `before-${n}`));
    // Not matching the webhook: followed in the feed, never delivered.
    await happen("user.created", "other");

    await Promise.all((await both).map((runner) => runner.start()));
    for (let n = 0; n < 10; n++) {
      events.push(await happen("user.updated", `during-${n}`));
      await sleep(20);
    }

    // At least: a duplicate fails below at once, not by running out of time here.
    await vi.waitFor(
      async () =>
        expect((await attempts(hook._id)).filter((d) => d.status === "succeeded").length).toBeGreaterThanOrEqual(20),
      { timeout: BOUND_MS, interval: 50 },
    );
    // Some rounds more of both processes' polls, for a duplicate to show.
    await sleep(500);

    const ids = events.map((event) => event._id.toHexString()).sort();
    expect(target.received.map(({ headers }) => headers["webhook-id"]).sort()).toEqual(ids);
    const stored = await Delivery.find({ webhook: oid(hook._id) }).lean();
    expect(stored.map((d) => d.eventId.toHexString()).sort()).toEqual(ids);
    expect(stored.every((d) => d.status === "succeeded" && d.attempt === 1)).toBe(true);
    expect(stored.every((d) => d.leaseOwner === "one" || d.leaseOwner === "two")).toBe(true);
  });
});
