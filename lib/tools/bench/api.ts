/**
 * `npm run bench:api [-- --users 100000 --duration 9 --rounds 3 --connections 10]`: the users API
 * under load, against the production build on the embedded database (docs/benchmarks.md). Prints figures
 * and ratios to two baselines measured in the same run; asserts nothing. Each case runs in
 * `--rounds` slices, each right after a slice of the floor (lib/tools/bench/figures.ts).
 *
 *   floor   GET /api/auth/token: an authenticated answer of the same build that touches no database
 *   driver  the default list query sent straight through the `mongodb` driver
 *
 * Then the surveys API (lib/tools/bench/surveys.ts) on `--surveys 10000` surveys and `--answers 200000`
 * answers (`--surveys 0` leaves it out), and the events (lib/tools/bench/events.ts): what an event adds to a
 * write, and webhook deliveries a second to a local receiver (`--deliveries 2000`).
 *
 * Then the whole server with one server process against the default WEB_CONCURRENCY (one per
 * core; lib/platform/cli/serve.ts), on the same database, with the CPU each side used (`--processes-only`
 * runs only that).
 *
 * By default the embedded database runs in a process of its own (`npm run db`) that the server
 * attaches to, as `npm start` does; `--db-in-server` starts it inside the server process instead.
 * The server listens on a free port unless `--port` names one.
 */
import { defaultReadWorkers, loadConfig } from "@/lib/base/config";
import { MAX_PAGE_DEPTH } from "@/lib/base/schemas/common";
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import { type LeaseStore, SharedRateLimiter } from "@/lib/platform/http/rate-limit";
import autocannon from "autocannon";
import { ObjectId } from "mongodb";
import { availableParallelism } from "node:os";
import { benchEvents } from "./events";
import { alternate, type BenchTable, type Figures, Floor, type Slice, table, target } from "./figures";
import { cpuSeconds } from "./processes";
import { benchScale, cursorAt } from "./scale";
import { type BenchServer, startBenchServer } from "./server";
import { benchSurveys } from "./surveys";
import { insertBenchUsers } from "./users";
import { yardstickMs } from "./yardstick";

const usage = `Usage: npm run bench:api -- [options]

The users and surveys API under load against the production build (built first when missing).

  --users N          users in the benchmark company (default 100000)
  --duration S       seconds of load per case (default 9)
  --rounds N         slices each case is split into, each after a slice of the floor (default 3)
  --connections N    concurrent connections (default 10)
  --port P           port of the server (default 0: a free one)
  --build            run \`next build\` even when a build exists
  --db-in-server     run the embedded database inside the server process
  --surveys N        surveys for the surveys API (default 10000; 0 leaves it out)
  --answers N        answers for the surveys API (default 200000)
  --deliveries N     events delivered to a local webhook receiver (default 2000)
  --processes-only   only the whole-server comparison: one server process against WEB_CONCURRENCY's default
  --scale            only the growth table: the users cases at each of --sizes users a company, two companies
  --sizes A,B,...    the sizes of --scale, ascending (default 10000,100000,1000000)`;

const { values: opts } = parseCommandLine(usage, {
  options: {
    users: { type: "string", default: "100000" },
    duration: { type: "string", default: "9" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    port: { type: "string", default: "0" },
    build: { type: "boolean", default: false },
    "db-in-server": { type: "boolean", default: false },
    surveys: { type: "string", default: "10000" },
    answers: { type: "string", default: "200000" },
    deliveries: { type: "string", default: "2000" },
    "processes-only": { type: "boolean", default: false },
    scale: { type: "boolean", default: false },
    sizes: { type: "string", default: "10000,100000,1000000" },
  },
});
/** The option's value as a whole number from `min` to `max`, else a one-line usage error. */
function whole(name: keyof typeof opts, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = String(opts[name]);
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    exitWithUsageError(`--${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

const USERS = whole("users", 1);
/** Seconds of load per case, in `ROUNDS` slices, each after a slice of the floor as long. */
const DURATION = whole("duration", 1);
const ROUNDS = whole("rounds", 1);
const SLICE = DURATION / ROUNDS;
const CONNECTIONS = whole("connections", 1);
const SURVEYS = whole("surveys", 0);
const ANSWERS = whole("answers", 0);
const DELIVERIES = whole("deliveries", 1);
/** The sizes of `--scale`: whole numbers of at least 20 users, ascending. */
const SIZES = String(opts.sizes)
  .split(",")
  .map((text) => {
    const value = Number(text.trim());
    if (!/^\d+$/.test(text.trim()) || value < 20 || value > 10_000_000)
      exitWithUsageError(`--sizes must list whole numbers from 20 to 10000000, not ${JSON.stringify(text)}`);
    return value;
  });
if (SIZES.some((size, index) => index > 0 && size <= SIZES[index - 1])) exitWithUsageError("--sizes must be ascending");
let BASE = "";

const err = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const server = await startBenchServer({
    name: "api",
    port: whole("port", 0, 65535),
    build: opts.build,
    dbInServer: opts["db-in-server"],
    // The delivery run's receiver listens on loopback (docs/api.md#webhooks).
    env: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" },
  });
  BASE = server.base;
  try {
    // This process attaches to the embedded database as a plain client, the way the server does.
    const { client, database } = await server.attach();

    // Signing in bootstraps the database through the app itself; the admin is the one it creates.
    const accessToken = await server.signIn();
    const me = await json(await fetch(`${BASE}/v2/users/me`, { headers: { authorization: `Bearer ${accessToken}` } }));
    const companyId = new ObjectId(me.companies[0].companyId as string);
    const memberRole = await database.collection("accessroles").findOne({ company: companyId, name: "Member" });
    if (!memberRole) throw new Error("no Member role after bootstrap");

    const headers = { authorization: `Bearer ${accessToken}` };
    const floorOptions: autocannon.Options = { url: `${BASE}/api/auth/token`, headers };
    const show = (figures: Figures) => {
      err(
        `  ${figures.name}: ${figures.rps.toFixed(0)} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, ${(100 * figures.ofFloor).toFixed(0)}% of the floor${figures.errors ? `, ${figures.errors} failed` : ""}`,
      );
      return figures;
    };
    // A table of cases, each alternated with slices of the floor (lib/tools/bench/figures.ts).
    const newTable = (): BenchTable => {
      const floor = new Floor(FLOOR, () => load(floorOptions));
      return {
        floor,
        measure: async (name, options) => {
          await load(options, 2); // warm-up
          return show(await alternate(name, ROUNDS, floor, () => load(options)));
        },
        driver: async (name, query) => {
          for (let i = 0; i < 200; i++) await query(); // warm-up
          return show(await alternate(name, ROUNDS, floor, () => driverSlice(query)));
        },
      };
    };

    if (opts.scale) {
      await load(floorOptions, 2); // warm-up
      await benchScale({
        base: BASE,
        headers,
        renewToken: async () => {
          headers.authorization = `Bearer ${await server.signIn()}`;
        },
        database,
        companyId,
        roleId: memberRole._id,
        sizes: SIZES,
        newTable,
        setting: SETTING,
      });
      return;
    }
    const fold = (text: string) =>
      text
        .normalize("NFD")
        .replace(/\p{M}+/gu, "")
        .toLowerCase();
    const ids = await insertBenchUsers(database, {
      companyId,
      roleId: memberRole._id,
      count: USERS,
      batch: 1000,
      vary: (i, { names, lastName }) => ({ email: `${fold(names)}.${fold(lastName)}.${i}@bench.example` }),
    });

    if (opts["processes-only"]) {
      await benchProcesses(server, headers);
      return;
    }
    const users = newTable();
    const results: Figures[] = [];
    err(
      `Load: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SLICE.toFixed(1)} s per case, each round after a slice of the floor (after a 2 s warm-up).`,
    );
    await load(floorOptions, 2); // warm-up
    results.push(await users.measure(LIST, { url: `${BASE}/v2/users`, headers }));
    // The first answer of a filter counts every match; later ones reuse the counter (docs/api.md#counters).
    const coldStarted = performance.now();
    const cold = await fetch(`${BASE}/v2/users?search=ma&count=true`, { headers });
    const coldCounter = (await json(cold)).data?.counter;
    const coldMs = performance.now() - coldStarted;
    err(`  first GET /v2/users?search=ma&count=true (counting ${coldCounter} matches): ${coldMs.toFixed(0)} ms`);
    results.push(await users.measure(SEARCH, { url: `${BASE}/v2/users?search=ma&count=true`, headers }));
    let next = 0;
    results.push(
      await users.measure(BY_ID, {
        url: `${BASE}/v2/users`,
        headers,
        requests: [{ setupRequest: (request) => ({ ...request, path: `/v2/users/${ids[next++ % ids.length]}` }) }],
      }),
    );
    let serial = 0;
    const runId = Date.now().toString(36);
    results.push(
      await users.measure("POST /v2/users", {
        url: `${BASE}/v2/users`,
        method: "POST",
        headers: { ...headers, admin: "true", "content-type": "application/json" },
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({
                email: `load.${runId}.${serial++}@bench.example`,
                accessRoles: [memberRole._id.toHexString()],
                name: { displayName: "Load Test", names: "Load", lastName: "Test", secondLastName: "" },
              }),
            }),
          },
        ],
      }),
    );
    // The users made above are the company's newest and none matches `ma`: left in, every later
    // search page would first walk past them all (docs/benchmarks.md#growth says the same of --scale).
    const made = await database
      .collection("users")
      .deleteMany({ email: { $regex: `^load\\.${runId}\\.` }, "companies.companyId": companyId });
    err(`  removed the ${made.deletedCount} users the create case made`);
    // Not a target: what one database round trip costs inside the framework, to read the others by.
    results.push(await users.measure("GET /api/health (one database ping, no token)", { url: `${BASE}/api/health` }));
    results.push(
      await users.driver("driver: the default list query, no HTTP", () =>
        database
          .collection("users")
          .find({
            "companies.companyId": companyId,
            companies: { $elemMatch: { companyId, isActive: { $ne: false } } },
          })
          .sort({ modifiedAt: -1, _id: -1 })
          .limit(10)
          .toArray(),
      ),
    );
    // The per-caller rate limit (docs/security.md#rate-limits): every /v2 row above already pays it
    // (one lease per 100 requests at this budget); here it is alone, leased, and as a counter
    // written on every request would cost, over the same database.
    const counters = database.collection<{ _id: string; count: number; expiresAt: Date }>("rateLimits");
    const lease: LeaseStore = async (caller, windowStart, batch, expiresAt) =>
      (await counters.findOneAndUpdate(
        { _id: `${caller}|${windowStart}` },
        { $inc: { count: batch }, $setOnInsert: { expiresAt } },
        { upsert: true, returnDocument: "after" },
      ))!.count;
    const leased = new SharedRateLimiter(() => 1_000_000_000, lease);
    results.push(await users.driver(RATE_LEASED, () => leased.take("bench:leased")));
    results.push(
      await users.driver(RATE_EACH, () =>
        lease("bench:each", Date.now() - (Date.now() % 60_000), 1, new Date(Date.now() + 120_000)),
      ),
    );
    report(
      [users.floor.figures(), ...results],
      `first search+count request (counts ${coldCounter} matches, no counter kept yet): ${coldMs.toFixed(0)} ms`,
    );
    await benchProcesses(server, headers);
    await benchCursorDepth(headers, newTable());
    if (SURVEYS > 0) {
      await benchSurveys({
        database,
        companyId,
        headers,
        base: BASE,
        surveys: SURVEYS,
        answers: ANSWERS,
        table: newTable(),
        setting: SETTING(),
      });
    }
    await benchEvents({
      client,
      database,
      companyId,
      roleId: memberRole._id,
      headers,
      base: BASE,
      table: newTable(),
      setting: SETTING(),
      deliveries: DELIVERIES,
    });
  } finally {
    await server.stop();
  }
}

/**
 * The cost of a page by its depth (docs/api.md#cursor-paging): the first page, the deepest page
 * (the 10,000th of 10 at 100,000 users) by cursor, and the deepest page `page=` still serves
 * (docs/api.md#paging), which skips every record before it.
 */
async function benchCursorDepth(headers: Record<string, string>, depthTable: BenchTable): Promise<void> {
  const depth = Math.max(2, Math.min(10_000, Math.floor(USERS / 10)));
  const byNumber = Math.min(depth, Math.floor(MAX_PAGE_DEPTH / 10));
  const list = `${BASE}/v2/users?isActive=all&limit=10`;
  const cursor = await cursorAt(BASE, "/v2/users?isActive=all", (depth - 1) * 10, headers);
  err(`Cursor depth: page 1 and page ${depth} of 10 users by cursor, page ${byNumber} by page=.`);
  const rows = [
    await depthTable.measure("page 1 (the walk's first page)", { url: list, headers }),
    await depthTable.measure(`page ${depth} by cursor`, {
      url: `${list}&cursor=${encodeURIComponent(cursor)}`,
      headers,
    }),
    await depthTable.measure(`page ${byNumber} by page= (the deepest it serves)`, {
      url: `${list}&page=${byNumber}`,
      headers,
    }),
  ];
  const ratio = rows[1].rps / rows[0].rps;
  const lines = [
    "",
    `bench:api — cursor depth: GET /v2/users?isActive=all&limit=10, ${USERS} users, ${SETTING()}`,
    "",
    ...table([depthTable.floor.figures(), ...rows]),
    "",
    `page ${depth} by cursor runs at ${(100 * ratio).toFixed(0)}% of page 1's req/s; page ${byNumber} by page= at ${((100 * rows[2].rps) / rows[0].rps).toFixed(0)}%.`,
    "",
    "Targets (figures, not assertions):",
    target(`page ${depth} by cursor >= 80% of page 1's req/s`, ratio >= 0.8),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** Seconds of load each side of the whole-server table gets before it is measured. */
const WHOLE_SERVER_WARM_UP_S = 10;

/**
 * The whole server's req/s with one server process and with WEB_CONCURRENCY's default, on the same
 * database process, taking turns slice by slice, and the CPU each process used meanwhile (of the
 * machine's cores: the servers, the database, and this process, which generates the load).
 */
async function benchProcesses(server: BenchServer, headers: Record<string, string>): Promise<void> {
  const cores = availableParallelism();
  const many = await server.another({ WEB_CONCURRENCY: "" });
  // Each side with its own READ_WORKERS default unless the environment names one (lib/base/config).
  const workersOf = (processes: number) =>
    process.env.READ_WORKERS ? Number(process.env.READ_WORKERS) : defaultReadWorkers(cores, processes);
  const sides = [
    { label: "1 server process", base: BASE, pid: server.pids.server, processes: 1 },
    { label: `${cores} server processes (the default)`, base: many.base, pid: many.pid, processes: cores },
  ];
  err(
    `Whole server: 1 server process against ${cores} (the default WEB_CONCURRENCY on ${cores} cores), on one database process.`,
  );
  const lines = [
    "",
    `bench:api — whole server, 1 server process vs the default WEB_CONCURRENCY (${cores}), ${USERS} users, ${SETTING()}`,
    "",
  ];
  lines.push(
    "| case | server processes | read workers each | req/s | p50 ms | p99 ms | CPU: servers | CPU: database | CPU: load generator |",
    "|---|---|---|---|---|---|---|---|---|",
  );
  const ratios: string[] = [];
  for (const [name, path] of [
    [LIST, "/v2/users"],
    [SEARCH, "/v2/users?search=ma&count=true"],
  ] as const) {
    const totals = sides.map(() => ({
      requests: 0,
      seconds: 0,
      p50: [] as number[],
      p99: [] as number[],
      errors: 0,
      server: 0,
      database: 0,
      self: 0,
    }));
    // The second server starts cold while the first may have served every table before: each side
    // is warmed as long, so both run optimised code on grown heaps (docs/benchmarks.md, step 9).
    for (const side of sides) await load({ url: `${side.base}${path}`, headers }, WHOLE_SERVER_WARM_UP_S);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, side] of sides.entries()) {
        const before = {
          server: cpuSeconds(side.pid),
          database: cpuSeconds(server.pids.database),
          self: process.cpuUsage(),
          at: performance.now(),
        };
        const slice = await load({ url: `${side.base}${path}`, headers });
        const seconds = (performance.now() - before.at) / 1000;
        const self = process.cpuUsage(before.self);
        const total = totals[index];
        total.requests += slice.rps * SLICE;
        total.seconds += SLICE;
        total.p50.push(slice.p50);
        total.p99.push(slice.p99);
        total.errors += slice.errors;
        total.server += (cpuSeconds(side.pid) - before.server) / seconds;
        total.database += (cpuSeconds(server.pids.database) - before.database) / seconds;
        total.self += (self.user + self.system) / 1e6 / seconds;
      }
    }
    const rps = totals.map((total) => total.requests / total.seconds);
    totals.forEach((total, index) => {
      const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
      const share = (value: number) => `${((100 * value) / ROUNDS).toFixed(0)}% of a core`;
      const row = `| ${name} | ${sides[index].processes} | ${workersOf(sides[index].processes)} | ${rps[index].toFixed(0)} | ${median(total.p50)} | ${median(total.p99)} | ${share(total.server)} | ${share(total.database)} | ${share(total.self)} |${total.errors ? ` ${total.errors} failed` : ""}`;
      lines.push(row);
      err(
        `  ${name}, ${sides[index].label}: ${rps[index].toFixed(0)} req/s; CPU servers ${share(total.server)}, database ${share(total.database)}, load generator ${share(total.self)}`,
      );
    });
    ratios.push(`${name}: ${(rps[1] / rps[0]).toFixed(2)}× one process`);
  }
  lines.push(
    "",
    ...ratios,
    "",
    target(
      `the default >= 1.5x one process on the default page (${cores} cores)`,
      ratios.length > 0 && Number(/([\d.]+)×/.exec(ratios[0])![1]) >= 1.5,
    ),
    "",
  );
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** One slice of load through autocannon. */
async function load(options: autocannon.Options, duration = SLICE): Promise<Slice> {
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

/** One slice of the same concurrency as autocannon, through the driver, for the same duration. */
async function driverSlice(query: () => Promise<unknown>): Promise<Slice> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + SLICE * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const begun = performance.now();
        try {
          await query();
        } catch {
          errors++;
        }
        latencies.push(performance.now() - begun);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 10) / 10;
  return { rps: latencies.length / ((performance.now() - started) / 1000), p50: at(0.5), p99: at(0.99), errors };
}

const FLOOR = "floor: GET /api/auth/token (no database)";
const LIST = "GET /v2/users (default page)";
const SEARCH = "GET /v2/users?search=ma&count=true";
const BY_ID = "GET /v2/users/{id}";
const RATE_LEASED = "rate limit: take(), leased 100 at a time (no HTTP)";
const RATE_EACH = "rate limit: an $inc per request instead (no HTTP)";

/** How the load was run, for the titles of both tables. */
// The yardstick is timed as the figures are printed, right after their runs (docs/benchmarks.md#the-yardstick).
const SETTING = () =>
  `embedded database ${opts["db-in-server"] ? "inside the server process" : "in its own process"}, production build, one server process (WEB_CONCURRENCY=1) but where a table says otherwise, READ_WORKERS=${loadConfig({ ...process.env, WEB_CONCURRENCY: "1" }).readWorkers}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SLICE.toFixed(1)} s per case, each after as long a slice of the floor; yardstick ${yardstickMs().toFixed(0)} ms`;

function report(results: Figures[], note: string): void {
  const figure = (name: string) => results.find((r) => r.name === name)!;
  const lines = [
    "",
    `bench:api — ${USERS} users in one company, ${SETTING()}`,
    "",
    ...table(results),
    "",
    note,
    "",
    "Targets (figures, not assertions):",
    target("default page >= 70% of the floor's req/s", figure(LIST).ofFloor >= 0.7),
    target("search + count >= 50% of the floor's req/s", figure(SEARCH).ofFloor >= 0.5),
    target(
      "p50 < 15 ms at 10 connections (list, search, by id)",
      [LIST, SEARCH, BY_ID].every((name) => figure(name).p50 < 15),
    ),
    target(
      "the leased rate limit >= 10x the floor's req/s (it stays off the request's path)",
      figure(RATE_LEASED).ofFloor >= 10,
    ),
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (response: Response): Promise<any> => response.json();

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
