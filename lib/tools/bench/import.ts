/**
 * `npm run bench:import` (docs/benchmarks.md#import): the import of users against the production
 * build (built first when missing), on a fresh database in a process of its own, as `npm start`
 * runs it. It makes a CSV of `--rows` new users, POSTs it to `/v2/users/import` as a dry run, then
 * for real, then once more (every row unchanged), polls each job to its end, and prints the rows a
 * second and the seconds from the upload to the job's end, with the machine's load at that time.
 */
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import type { JobRecord } from "@/lib/resources/jobs/contract";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { cpuSeconds } from "./processes";
import { startBenchServer } from "./server";
import { yardstickMs } from "./yardstick";

const usage = `Usage: npm run bench:import -- [options]

The import of users (POST /v2/users/import) against the production build (built first when missing).

  --rows N      rows of the CSV file (default 100000)
  --port P      port of the server (default 0: a free one)
  --build       run \`next build\` even when a build exists`;

const { values: opts } = parseCommandLine(usage, {
  options: {
    rows: { type: "string", default: "100000" },
    port: { type: "string", default: "0" },
    build: { type: "boolean", default: false },
  },
});
const whole = (name: "rows" | "port", min: number): number => {
  const text = String(opts[name]);
  if (!/^\d+$/.test(text) || Number(text) < min)
    exitWithUsageError(`--${name} must be a whole number of at least ${min}, not ${JSON.stringify(text)}`);
  return Number(text);
};
const ROWS = whole("rows", 1);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** A CSV of `rows` users as the export writes them, each new (a run-unique e-mail). */
function makeCsv(rows: number): string {
  const run = Date.now().toString(36);
  const first = ["Ana", "María", "José", "Lucía", "Martín", "Sofía", "Mateo", "Camila", "Andrés", "Valentina"];
  const last = ["García", "Pérez", "López", "Sánchez", "Romero", "Torres", "Díaz", "Vega"];
  const lines = ["email,firstName,lastName,secondLastName,isActive,accessRoles,jobTitle"];
  for (let n = 0; n < rows; n++)
    lines.push(
      `user.${run}.${n}@bench.example,${first[n % first.length]},${last[n % last.length]},${last[(n >> 3) % last.length]},${n % 10 !== 0},Member,`,
    );
  return `${lines.join("\n")}\n`;
}

async function main(): Promise<void> {
  const server = await startBenchServer({ name: "import", port: whole("port", 0), build: opts.build });
  try {
    const { base, pids } = server;
    const headers = { authorization: `Bearer ${await server.signIn()}`, admin: "true" };

    // How fast this machine runs now (docs/benchmarks.md#the-yardstick), before and after the runs.
    const before = yardstickMs();
    const csv = makeCsv(ROWS);
    err(`The file: ${ROWS.toLocaleString("en-GB")} rows, ${(Buffer.byteLength(csv) / 1024 / 1024).toFixed(1)} MiB.`);
    const results: string[] = [];
    for (const [label, dryRun] of [
      ["dry run", true],
      ["import", false],
      ["again (unchanged)", false],
    ] as const) {
      const load = loadavg()[0];
      const cpuBefore = [cpuSeconds(pids.server), cpuSeconds(pids.database)];
      const started = performance.now();
      const answer = await fetch(`${base}/v2/users/import?dryRun=${dryRun}`, {
        method: "POST",
        headers: { ...headers, "content-type": "text/csv" },
        body: csv,
      });
      if (answer.status !== 202) throw new Error(`the import answered ${answer.status}: ${await answer.text()}`);
      const uploaded = performance.now();
      let job = (await answer.json()) as JobRecord;
      while (job.status === "queued" || job.status === "running") {
        await sleep(250);
        job = (await (await fetch(`${base}/v2/jobs/${job._id}`, { headers })).json()) as JobRecord;
      }
      const seconds = (performance.now() - started) / 1000;
      const { created, updated, unchanged, failed } = job.summary;
      const [serverCpu, dbCpu] = [cpuSeconds(pids.server) - cpuBefore[0], cpuSeconds(pids.database) - cpuBefore[1]];
      results.push(
        `${label.padEnd(18)} ${job.status.padEnd(9)} ${(ROWS / seconds).toFixed(0).padStart(7)} rows/s ${seconds.toFixed(1).padStart(7)} s (upload ${((uploaded - started) / 1000).toFixed(1)} s)  created ${created}, updated ${updated}, unchanged ${unchanged}, failed ${failed}; CPU: server ${serverCpu.toFixed(1)} s, database ${dbCpu.toFixed(1)} s; load average ${load.toFixed(2)} → ${loadavg()[0].toFixed(2)}`,
      );
      err(results[results.length - 1]);
    }
    const yardstick = `yardstick ${before.toFixed(0)} ms before, ${yardstickMs().toFixed(0)} ms after`;
    process.stdout.write(
      `\nbench:import, ${ROWS.toLocaleString("en-GB")} rows, ${new Date().toISOString()}, ${yardstick}\n${results.join("\n")}\n`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  err(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
