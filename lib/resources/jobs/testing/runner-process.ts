/**
 * Child process of restart.test.ts: a server's job runner and nothing else, so the test can kill
 * it with SIGKILL in the middle of an import (docs/architecture.md#jobs). Connects to
 * `MONGODB_URI`, starts `JobRunner`, prints `started <owner>` on stdout, and runs until killed or
 * until its stdin closes.
 * Usage: node --import tsx runner-process.ts [--owner NAME] [--lease-ms N] [--batch-size N]
 */
import { connect } from "@/lib/kernel/db";
import { logToStderr } from "@/lib/kernel/log";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { JobRunner } from "../runner";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { owner: { type: "string" }, "lease-ms": { type: "string" }, "batch-size": { type: "string" } },
  });
  if (!process.env.MONGODB_URI) throw new Error("MONGODB_URI is not set");
  logToStderr();
  // The parent holds stdin open, so a child it left behind ends with it.
  createInterface({ input: process.stdin }).on("close", () => process.exit(0));
  await connect();
  const runner = new JobRunner({
    owner: values.owner,
    pollMs: 50,
    leaseMs: values["lease-ms"] ? Number(values["lease-ms"]) : undefined,
    batchSize: values["batch-size"] ? Number(values["batch-size"]) : undefined,
  }).start();
  process.stdout.write(`started ${runner.owner}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
