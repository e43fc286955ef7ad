/**
 * The lock of a data directory left by a crash: when several starters race for it at once, exactly
 * one takes it; a lock file left half written by a crash does not keep the directory locked.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireLock, liveOwner, LOCK_FILE, releaseLock } from "./lock";

let dir: string;
const lockFile = () => path.join(dir, LOCK_FILE);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "embedded-mongo-lock-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid;
}

function nextMessage<T>(worker: Worker): Promise<T> {
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

describe("a lock left by a dead process", () => {
  it("is taken by exactly one of several starters racing for it", async () => {
    const signal = new SharedArrayBuffer(4);
    const flag = new Int32Array(signal);
    const workers = Array.from(
      { length: 4 },
      () =>
        new Worker(new URL("../testing/lock-worker.ts", import.meta.url), {
          execArgv: ["--require", "tsx/cjs"],
          workerData: { signal },
        }),
    );
    const pid = deadPid();
    try {
      const rounds = 400;
      const winners: number[] = [];
      for (let round = 1; round <= rounds; round++) {
        fs.writeFileSync(lockFile(), JSON.stringify({ pid, port: 1234, host: "127.0.0.1", started: "gone" }));
        await Promise.all(
          workers.map((worker) => {
            const ready = nextMessage(worker);
            worker.postMessage({ dir, round });
            return ready;
          }),
        );
        const results = workers.map((worker) => nextMessage<{ won: boolean }>(worker));
        Atomics.store(flag, 0, round);
        Atomics.notify(flag, 0);
        winners.push((await Promise.all(results)).filter((result) => result.won).length);
        releaseLock(dir);
      }
      // Each round a number of winners other than one: none when the race is safe.
      expect(winners.filter((count) => count !== 1)).toEqual([]);
    } finally {
      await Promise.all(workers.map((worker) => worker.terminate()));
    }
  });

  it("is taken over when it was left unreadable, once it is older than writing one takes", () => {
    fs.writeFileSync(lockFile(), "");
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(lockFile(), past, past);
    expect(acquireLock(dir, "127.0.0.1")).toBeUndefined();
    expect(liveOwner(dir)?.pid).toBe(process.pid);
    releaseLock(dir);
  });

  it("is not taken while its owner runs", () => {
    fs.writeFileSync(lockFile(), JSON.stringify({ pid: process.ppid, port: 4321, host: "127.0.0.1" }));
    expect(acquireLock(dir, "127.0.0.1")).toMatchObject({ pid: process.ppid, port: 4321 });
    fs.rmSync(lockFile());
  });
});
