/**
 * Child process of processes.test.ts: a server's webhook delivery loop and nothing else, so the
 * test can run several on one database and kill one with SIGKILL (docs/architecture.md#webhook-delivery).
 * Connects to `MONGODB_URI` with the app's `connect()`, starts `WebhookDelivery`, prints
 * `started <owner>` on stdout, and runs until killed (SIGTERM closes the connection and exits) or
 * until its stdin closes.
 * With `--on-stdin` it loads the app, prints `loaded`, and connects and starts only once a line
 * arrives on stdin, so that a test restarting a server does not wait for tsx to load it again.
 * Usage: node --import tsx delivery-process.ts [--owner NAME] [--poll-ms N] [--lease-ms N]
 *   [--timeout-ms N] [--retry-base-ms N] [--on-stdin]
 */
import { connect } from "@/lib/kernel/db";
import { logToStderr } from "@/lib/kernel/log";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { WebhookDelivery } from "../delivery";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      owner: { type: "string" },
      "poll-ms": { type: "string" },
      "lease-ms": { type: "string" },
      "timeout-ms": { type: "string" },
      "retry-base-ms": { type: "string" },
      "on-stdin": { type: "boolean" },
    },
  });
  const number = (name: "poll-ms" | "lease-ms" | "timeout-ms" | "retry-base-ms"): number | undefined => {
    const text = values[name];
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} is not a number of milliseconds: ${text}`);
    return value;
  };
  if (!process.env.MONGODB_URI) throw new Error("MONGODB_URI is not set");
  // Stdout carries only the `started` line the parent waits for.
  logToStderr();
  const lines = createInterface({ input: process.stdin });
  // The parent holds stdin open, so a child it left behind (a test process that crashed) ends with it.
  lines.on("close", () => process.exit(0));
  if (values["on-stdin"]) {
    process.stdout.write("loaded\n");
    await once(lines, "line");
  }
  await connect();
  const delivery = new WebhookDelivery({
    owner: values.owner,
    pollMs: number("poll-ms"),
    leaseMs: number("lease-ms"),
    timeoutMs: number("timeout-ms"),
    retryBaseMs: number("retry-base-ms"),
  }).start();
  process.stdout.write(`started ${delivery.owner}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
