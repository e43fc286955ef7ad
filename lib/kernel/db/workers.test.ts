import { useTestDatabase } from "@/lib/tools/testing/database";
import { ObjectId } from "mongodb";
import { Worker } from "node:worker_threads";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { FROM_SOURCE, WorkerPool, WorkerUnavailable, type CommandTiming, type WorkerTarget } from "./workers";

const probe = (target: WorkerTarget) =>
  new Worker(new URL("../../tools/testing/probe-worker.ts", import.meta.url), { workerData: target, ...FROM_SOURCE });

describe("WorkerPool", () => {
  const db = useTestDatabase();
  let target: WorkerTarget;
  let pools: WorkerPool[] = [];
  const newPool = (options: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {}) => {
    const pool = new WorkerPool({ size: 1, target, start: probe, ...options });
    pools.push(pool);
    return pool;
  };

  beforeAll(async () => {
    target = { uri: db.uri, options: { dbName: "workers" } };
    await db.mongoose.connection
      .useDb("workers")
      .collection("items")
      .insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  afterEach(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
    pools = [];
  });

  it("runs a task on a worker thread, with ObjectIds and Dates arriving as such", async () => {
    const pool = newPool();
    expect(await pool.run("threadId", {})).not.toBe(0); // 0 is the main thread
    const id = new ObjectId();
    const at = new Date("2026-11-24T05:00:00.000Z");
    expect(await pool.run("describe", { id, at, text: "é" })).toEqual({
      id: ["ObjectId", id.toHexString()],
      at: ["Date", at.toString()],
      text: ["String", "é"],
    });
    expect(pool.answered).toBe(2);
  });

  it("connects its workers to the database of the target", async () => {
    expect(await newPool().run("count", { collection: "items" })).toBe(3);
  });

  it("tells the calling thread of the commands its workers ran, with their answers", async () => {
    const commands: CommandTiming[] = [];
    const pool = newPool({ onCommands: (list) => commands.push(...list) });
    expect(await pool.run("count", { collection: "items" })).toBe(3);
    // countDocuments is an aggregate on the wire.
    expect(commands).toContainEqual(["aggregate", expect.any(Number), false]);
    const [, ms] = commands.find(([name]) => name === "aggregate")!;
    expect(ms).toBeGreaterThanOrEqual(0);
    const seen = commands.length;
    expect(await pool.run("threadId", {})).not.toBe(0);
    // A task without a command brings none.
    expect(commands).toHaveLength(seen);
  });

  it("rejects with the task's error (name, message, code), and the worker goes on serving", async () => {
    const pool = newPool();
    const error = await pool.run("fail", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(WorkerUnavailable);
    expect(error).toMatchObject({ name: "RangeError", message: "no such thing", code: 42 });
    await expect(pool.run("nothing", {})).rejects.toThrow("No task named nothing.");
    await expect(pool.run("count", { collection: "items" })).resolves.toBe(3);
  });

  it("rejects with a ServiceError's code, details and headers, so the caller answers as the service said", async () => {
    const error = await newPool()
      .run("refuse", {})
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "ServiceError",
      message: "taken",
      code: "conflict",
      details: [{ path: "email", message: "is already in use" }],
      headers: { "X-Why": "test" },
    });
  });

  it("spreads concurrent tasks over its workers", async () => {
    const pool = newPool({ size: 2 });
    const threads = await Promise.all(Array.from({ length: 20 }, () => pool.run("threadId", {})));
    expect(new Set(threads).size).toBe(2);
  });

  it("posts a task's arguments in a buffer of their own, not in Node's shared pool that a posted view is cloned with", async () => {
    // A worker that answers with the size of the buffer the arguments arrived in, and their own.
    const echo = () =>
      new Worker(
        `require("node:worker_threads").parentPort.on("message", function (m) {
          this.postMessage({ id: m.id, value: [m.args.buffer.byteLength, m.args.byteLength] });
        });`,
        { eval: true },
      );
    const pool = newPool({ start: echo });
    for (const args of [{}, { text: "x".repeat(100) }, { text: "x".repeat(5000) }]) {
      const [buffer, own] = (await pool.run("any", args)) as [number, number];
      expect(own).toBeGreaterThan(0);
      expect(buffer).toBe(own);
    }
  });

  it("fails what a dying worker had pending with WorkerUnavailable, and starts another for the next task", async () => {
    const pool = newPool();
    const first = await pool.run("threadId", {});
    const [exited, alongside] = await Promise.allSettled([pool.run("exit", {}), pool.run("threadId", {})]);
    expect(exited.status).toBe("rejected");
    expect((exited as PromiseRejectedResult).reason).toBeInstanceOf(WorkerUnavailable);
    // It had been handed over: a write must not run again elsewhere (lib/kernel/off-thread.ts).
    expect((exited as PromiseRejectedResult).reason).toMatchObject({ sent: true });
    // The task queued behind it either ran before the exit or was failed with it.
    if (alongside.status === "rejected") expect(alongside.reason).toBeInstanceOf(WorkerUnavailable);
    const next = await pool.run("threadId", {});
    expect(next).not.toBe(first);
    expect(pool.usable).toBe(true);
  });

  it("gives up after three workers in a row exit before answering, and says why once", async () => {
    const reasons: string[] = [];
    const pool = newPool({
      start: () => new Worker('throw new Error("no entry")', { eval: true }),
      onDisabled: (reason) => reasons.push(reason),
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(pool.run("threadId", {})).rejects.toBeInstanceOf(WorkerUnavailable);
    }
    expect(pool.usable).toBe(false);
    expect(reasons).toEqual(["3 workers in a row exited before answering; the last exited with code 1 (no entry)"]);
    await expect(pool.run("threadId", {})).rejects.toThrow("No worker is available.");
    await expect(pool.run("threadId", {})).rejects.toMatchObject({ sent: false });
  });

  it("fails tasks with WorkerUnavailable, naming the cause, when a worker cannot connect", async () => {
    const pool = newPool({ target: { uri: "mongodb://", options: { dbName: "workers" } } });
    const error = await pool.run("threadId", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerUnavailable);
    expect((error as Error).message).toMatch(/^The worker exited with code 1 \(.+\)\.$/);
  });

  it("close() ends its workers and refuses later tasks", async () => {
    const pool = newPool();
    await pool.run("threadId", {});
    await pool.close();
    expect(pool.usable).toBe(false);
    await expect(pool.run("threadId", {})).rejects.toBeInstanceOf(WorkerUnavailable);
  });
});
