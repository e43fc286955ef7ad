/**
 * `npm run fuzz -- [--runs 100000] [--seed S]`: the API fuzzer (lib/fuzz/fuzzer.ts) at length, on
 * a fresh embedded database in a temporary directory. Prints the figures — cases and statuses
 * per operation, the hostile values sent, every kind of failure with its first counterexample,
 * the time taken — and exits 1 when anything failed. Ctrl-C prints the figures so far.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Presets, SingleBar } from "cli-progress";
import { connect, disconnect } from "@/lib/db";
import { formatReport, type FuzzReport, Fuzzer, operationSpecs, runFuzz, seedWorld } from "@/lib/fuzz/fuzzer";
import { FUZZ_WEBHOOK_HOST } from "@/lib/fuzz/values";
import { parseCommandLine } from "@/lib/shared/command-line";
import { runCommand, UsageError } from "./run-command";

const usage = `Usage: npm run fuzz -- [--runs N] [--seed S]

Sends N generated requests (valid, invalid and hostile) to every operation of the OpenAPI
document, through the real route handlers on a fresh embedded database, and fails on any 5xx,
any answer the document does not allow, or any record of one company seen by another.

  --runs   how many requests (default 100000)
  --seed   fast-check's seed, to repeat a run (default: a new one, printed)
  --help   this text`;

runCommand(async () => {
  const { values } = parseCommandLine(usage, { options: { runs: { type: "string", default: "100000" }, seed: { type: "string" } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new UsageError("--runs must be a whole number above 0");
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(seed)) throw new UsageError("--seed must be a whole number");

  const dir = await mkdtemp(path.join(tmpdir(), "api-fuzz-"));
  Object.assign(process.env, {
    DATA_DIR: dir,
    MONGODB_URI: "",
    // The fuzzer sends far more than a client may per minute; the limit has tests of its own.
    RATE_LIMIT_PER_MINUTE: "1000000000",
    LOG_LEVEL: process.env.LOG_LEVEL || "silent",
    // The webhooks it creates point at this host, which would otherwise be refused as loopback.
    WEBHOOK_ALLOWED_HOSTS: FUZZ_WEBHOOK_HOST,
    // Set, so that the bootstrap admin's generated password is not printed among the figures.
    ADMIN_PASSWORD: randomBytes(18).toString("base64url"),
  });
  let report: FuzzReport | undefined;
  let reported = 0;
  const bar = new SingleBar({ stream: process.stderr, format: "cases [{bar}] {value}/{total} {failures} failures, {eta_formatted} left", hideCursor: true }, Presets.shades_classic);
  process.once("SIGINT", () => {
    bar.stop();
    if (report) console.log(`Interrupted.\n${formatReport(report)}`);
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
  try {
    await connect();
    const specs = await operationSpecs();
    const world = await seedWorld(specs);
    console.error(`Fuzzing ${specs.length} operations with ${runs} cases, seed ${seed} (data in ${dir})`);
    if (process.stderr.isTTY) bar.start(runs, 0, { failures: 0 });
    report = await runFuzz(new Fuzzer(specs, world), {
      seed,
      runs,
      onCase: (current) => {
        // Each new kind of failure at once, so a long run shows them before it ends.
        if (current.failures.length > reported) {
          for (const failure of current.failures.slice(reported)) console.error(`\nNew failure after ${current.runs} cases: ${failure.signature}\n${failure.exchange}\n`);
          reported = current.failures.length;
        }
        report = current;
        const failures = current.failures.reduce((sum, failure) => sum + failure.count, 0);
        if (process.stderr.isTTY) {
          if (current.runs % 50 === 0 || current.runs === runs) bar.update(current.runs, { failures });
        } else if (current.runs % 1000 === 0) {
          // No bar when stderr is a file: a line now and then instead.
          console.error(`${current.runs}/${runs} cases, ${failures} failures, ${(current.elapsedMs / 1000).toFixed(0)} s`);
        }
      },
    });
    bar.stop();
    console.log(formatReport(report));
  } finally {
    await disconnect().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
  if (report.failures.length > 0) {
    console.error(`Repeat this run with: npm run fuzz -- --runs ${runs} --seed ${seed}`);
    process.exit(1);
  }
});
