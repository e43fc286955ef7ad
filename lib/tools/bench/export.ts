/**
 * `npm run bench:export [-- --users 1000000]`: the users CSV export (docs/api.md#export) of a whole
 * company, against the production build on a fresh embedded database (docs/benchmarks.md#export).
 * Prints rows per second and the peak growth of the resident memory of the server process (and,
 * apart, of the database process) while it streams; asserts nothing.
 *
 * As `npm start` runs it, the embedded database is a process of its own beside the server, so the
 * two are measured apart; `--db-in-server` starts it inside the server process instead, which then
 * holds both. The server's figure is the sum over `next start` and its child processes, sampled
 * every 50 ms from /proc/<pid>/status (VmRSS); its baseline is the highest sample of the second
 * before the download, after a small export has loaded the route's code.
 */
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import { ObjectId } from "mongodb";
import { target } from "./figures";
import { processTree, rssKb } from "./processes";
import { startBenchServer } from "./server";
import { insertBenchUsers } from "./users";
import { yardstickMs } from "./yardstick";

const usage = `Usage: npm run bench:export -- [options]

Exports every user of a company as CSV from the production build (built first when missing) and
prints rows per second and the server's peak memory growth.

  --users N          users in the company (default 1000000)
  --port P           port of the server (default 0: a free one)
  --build            run \`next build\` even when a build exists
  --db-in-server     run the embedded database inside the server process`;

const { values: opts } = parseCommandLine(usage, {
  options: {
    users: { type: "string", default: "1000000" },
    port: { type: "string", default: "0" },
    build: { type: "boolean", default: false },
    "db-in-server": { type: "boolean", default: false },
  },
});

function whole(name: "users" | "port", min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(opts[name]);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    exitWithUsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

const USERS = whole("users", 1);
const PORT = whole("port", 0, 65535);
const TARGET_MB = 100;
const err = (line: string) => process.stderr.write(`${line}\n`);
const mb = (kb: number) => (kb / 1024).toFixed(0);

async function main(): Promise<void> {
  const server = await startBenchServer({
    name: "export",
    port: PORT,
    build: opts.build,
    dbInServer: opts["db-in-server"],
  });
  try {
    const { base, pids } = server;
    const { database } = await server.attach();
    const headers = { authorization: `Bearer ${await server.signIn()}`, admin: "true" };
    const me = await (await fetch(`${base}/v2/users/me`, { headers })).json();
    const companyId = new ObjectId(me.companies[0].companyId as string);
    const memberRole = await database.collection("accessroles").findOne({ company: companyId, name: "Member" });
    if (!memberRole) throw new Error("no Member role after bootstrap");
    await insertBenchUsers(database, {
      companyId,
      roleId: memberRole._id,
      count: USERS,
      batch: 5000,
      // Cells the CSV must quote, and a phone on a third of the rows.
      vary: (i, { names, lastName }) => ({
        email: `user.${i}@bench.example`,
        name: {
          displayName: `${names} ${lastName}`,
          names,
          lastName,
          secondLastName: i % 7 === 0 ? 'de la Fuente, "Jr"' : "",
        },
        phone: i % 3 === 0 ? `+34 600 ${String(i).padStart(6, "0")}` : null,
      }),
    });
    // A million inserts outlast an access token: a fresh one for the downloads.
    headers.authorization = `Bearer ${await server.signIn()}`;

    // Loads the route's code and its first batch, so the baseline is a server that has exported.
    await download(`${base}/v2/users/export?search=ana&isActive=all`, headers);
    const sampler = new RssSampler({ server: pids.server, ...(pids.database ? { database: pids.database } : {}) });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const baseline = sampler.mark();
    err(`Downloading GET /v2/users/export?isActive=all (CSV) of ${USERS} users...`);
    const started = performance.now();
    // The server's memory as the rows arrive: a growth that levels off is the collector's
    // sawtooth, one that keeps climbing would be rows held.
    const trail: string[] = [];
    const result = await download(`${base}/v2/users/export?isActive=all`, headers, (rows) => {
      if (rows >= ((trail.length + 1) * (USERS + 1)) / 10)
        trail.push(`${Math.round((100 * rows) / (USERS + 1))}%: +${mb(sampler.latest().server - baseline.server)}`);
    });
    const seconds = (performance.now() - started) / 1000;
    const peak = sampler.stop();

    const growth = peak.server - baseline.server;
    const where = opts["db-in-server"]
      ? "the server process, with the embedded database inside it"
      : "the server process (the cluster's primary, its server process and their children); the embedded database runs in its own process";
    const lines = [
      "",
      `bench:export — GET /v2/users/export?isActive=all as CSV, ${USERS} users in one company, production build, embedded database ${opts["db-in-server"] ? "inside the server process" : "in its own process"}`,
      "",
      `  rows received         ${result.rows} (X-Total-Count ${result.total})`,
      `  bytes                 ${(result.bytes / 1024 / 1024).toFixed(1)} MiB`,
      `  time                  ${seconds.toFixed(1)} s`,
      `  rows per second       ${(result.rows / seconds).toFixed(0)}`,
      `  server RSS            ${mb(baseline.server)} MB before, ${mb(peak.server)} MB at peak: +${mb(growth)} MB (${where})`,
      `  server RSS growth     by rows received (MB): ${trail.join(", ")}`,
      ...(pids.database
        ? [
            `  database process RSS  ${mb(baseline.database ?? 0)} MB before, ${mb(peak.database ?? 0)} MB at peak: +${mb((peak.database ?? 0) - (baseline.database ?? 0))} MB`,
          ]
        : []),
      `  yardstick             ${yardstickMs().toFixed(0)} ms (the machine's speed right after: docs/benchmarks.md#the-yardstick)`,
      "",
      "Targets (figures, not assertions):",
      target(`every matching user exported (${USERS + 1} with the admin)`, result.rows === USERS + 1),
      target(`server RSS growth < ${TARGET_MB} MB`, growth < TARGET_MB * 1024),
      "",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await server.stop();
  }
}

/** Reads the whole body as it arrives, keeping none of it: the rows (lines after the header) and bytes. */
async function download(
  url: string,
  headers: Record<string, string>,
  onRows?: (rows: number) => void,
): Promise<{ rows: number; bytes: number; total: number }> {
  const response = await fetch(url, { headers });
  if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  const reader = response.body.getReader();
  let lines = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    // Bench names hold no line breaks: each LF ends a row.
    for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) lines++;
    onRows?.(lines - 1);
  }
  return { rows: lines - 1, bytes, total: Number(response.headers.get("x-total-count")) };
}

/** The highest resident memory (kB) of each process and its descendants, sampled every 50 ms. */
class RssSampler {
  private readonly timer: NodeJS.Timeout;
  private window: Record<string, number> = {};
  private last: Record<string, number> = {};

  constructor(private readonly pids: Record<string, number>) {
    this.timer = setInterval(() => this.sample(), 50);
    this.sample();
  }

  private sample(): void {
    for (const [name, pid] of Object.entries(this.pids)) {
      const kb = processTree(pid).reduce((sum, each) => sum + rssKb(each), 0);
      this.last[name] = kb;
      this.window[name] = Math.max(this.window[name] ?? 0, kb);
    }
  }

  /** The last sample of each process. */
  latest(): Record<string, number> {
    return { ...this.last };
  }

  /** The highest samples since the start, and a fresh start for {@link stop}. */
  mark(): Record<string, number> {
    const seen = { ...this.window };
    this.window = {};
    return seen;
  }

  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    return this.mark();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
