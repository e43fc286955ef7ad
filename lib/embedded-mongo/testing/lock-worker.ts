/**
 * A worker thread of lib/embedded-mongo/lock.test.ts: on each round it waits for the shared start
 * signal, then races the other workers for the lock of the round's directory.
 */
import { parentPort, workerData } from "node:worker_threads";
import { acquireLock } from "../storage/lock";

const signal = new Int32Array(workerData.signal as SharedArrayBuffer);

parentPort?.on("message", ({ dir, round }: { dir: string; round: number }) => {
  parentPort?.postMessage({ ready: true });
  Atomics.wait(signal, 0, round - 1);
  const owner = acquireLock(dir, "127.0.0.1");
  parentPort?.postMessage({ won: owner === undefined });
});
