/**
 * `npm run fuzz -- [--runs 100000] [--seed S]`: the API fuzzer (lib/tools/fuzz/fuzzer.ts) at length, on
 * a fresh embedded database in a temporary directory. Prints the figures — cases and statuses
 * per operation, the hostile values sent, every kind of failure with its first counterexample,
 * the time taken — and exits 1 when anything failed. Ctrl-C prints the figures so far.
 */
import { parseCommandLine } from "@/lib/base/shared/command-line";
import { connect, disconnect } from "@/lib/kernel/db";
import { runCommand, UsageError } from "@/lib/platform/cli/run-command";
import { edgeCases, edgeRoutes, formatEdgeFailure, runEdgeFuzz } from "@/lib/tools/fuzz/edge";
import { formatReport, Fuzzer, operationSpecs, runFuzz, seedWorld, type FuzzReport } from "@/lib/tools/fuzz/fuzzer";
import { FUZZ_WEBHOOK_HOST } from "@/lib/tools/fuzz/values";
import { Presets, SingleBar } from "cli-progress";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const usage = `Usage: npm run fuzz -- [--runs N] [--seed S] [--edge URL]

Sends N generated requests (valid, invalid and hostile) to every operation of the OpenAPI
document, through the real route handlers on a fresh embedded database, and fails on any 5xx,
any answer the document does not allow, or any record of one company seen by another.

With --edge, sends instead N hostile methods and raw, malformed request targets over sockets to
every route of the server running at URL (lib/tools/fuzz/edge.ts), and fails on any 5xx or any answer
without the security headers or X-Request-Id.

  --runs   how many requests (default 100000)
  --seed   fast-check's seed, to repeat a run (default: a new one, printed)
  --edge   the base URL of a running server (npm start) to fuzz at its edge
  --help   this text`;

runCommand(async () => {
  const { values } = parseCommandLine(usage, {
    options: { runs: { type: "string", default: "100000" }, seed: { type: "string" }, edge: { type: "string" } },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new UsageError("--runs must be a whole number above 0");
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(seed)) throw new UsageError("--seed must be a whole number");
  if (values.edge !== undefined) {
    if (!/^https?:\/\/[^/]+\/?$/.test(values.edge))
      throw new UsageError("--edge must be a base URL such as http://localhost:3000");
    await fuzzEdge(values.edge, runs, seed);
    return;
  }

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
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: "cases [{bar}] {value}/{total} {failures} failures, {eta_formatted} left",
      hideCursor: true,
    },
    Presets.shades_classic,
  );
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
          for (const failure of current.failures.slice(reported))
            console.error(`\nNew failure after ${current.runs} cases: ${failure.signature}\n${failure.exchange}\n`);
          reported = current.failures.length;
        }
        report = current;
        const failures = current.failures.reduce((sum, failure) => sum + failure.count, 0);
        if (process.stderr.isTTY) {
          if (current.runs % 50 === 0 || current.runs === runs) bar.update(current.runs, { failures });
        } else if (current.runs % 1000 === 0) {
          // No bar when stderr is a file: a line now and then instead.
          console.error(
            `${current.runs}/${runs} cases, ${failures} failures, ${(current.elapsedMs / 1000).toFixed(0)} s`,
          );
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

/** The edge fuzzer against a running server: the figures on stdout, exit 1 on any failure. */
async function fuzzEdge(base: string, runs: number, seed: number): Promise<void> {
  const cases = edgeCases(edgeRoutes(), { seed, runs });
  console.error(`Sending ${cases.length} hostile requests to ${base}, seed ${seed}`);
  const started = Date.now();
  let done = 0;
  const { failures, statuses } = await runEdgeFuzz(base, cases, {
    onCase: () => {
      if (++done % 1000 === 0) console.error(`${done}/${cases.length} cases`);
    },
  });
  console.log(
    `${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses: ${[...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status} × ${count}`)
      .join(", ")}`,
  );
  for (const failure of failures) console.log(formatEdgeFailure(failure));
  if (failures.length > 0) {
    console.error(
      `${failures.length} failures. Repeat this run with: npm run fuzz -- --edge ${base} --runs ${runs} --seed ${seed}`,
    );
    process.exit(1);
  }
}
