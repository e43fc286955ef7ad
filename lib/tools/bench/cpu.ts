/**
 * `npm run bench:cpu [-- --requests 10000]`: CPU time per request of each `/v2` case of bench:api,
 * in the server process (its main thread apart from its other threads: the read worker, libuv's
 * pool, the garbage collector) and in the database process, against the floor
 * (`GET /api/auth/token`), on the production build started as `npm start` runs it with one server
 * process (docs/benchmarks.md#where-the-time-goes). CPU per request holds on a shared machine where
 * requests a second do not: it is read from /proc before and after a fixed number of requests. The
 * floor is measured again right before each case, and each case's ratios are to that floor.
 * Prints figures; asserts nothing.
 */
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import autocannon from "autocannon";
import { ObjectId } from "mongodb";
import { readFileSync } from "node:fs";
import { processTree } from "./processes";
import { startBenchServer } from "./server";
import { insertSurveys } from "./surveys";
import { insertBenchUsers } from "./users";
import { yardstickMs } from "./yardstick";

const usage = `Usage: npm run bench:cpu -- [options]

CPU time per request of the server's main thread, its other threads and the database process,
for the floor and each /v2 case of bench:api, one server process (WEB_CONCURRENCY=1). The floor
is measured again (a third as many requests) right before each case, and the case's ratios are to
that floor: a shared machine's speed drifts within minutes.

  --users N         users in the benchmark company (default 20000)
  --surveys N       surveys (default 2000)
  --answers N       answers (default 20000)
  --requests N      requests measured per case (default 10000), after a quarter as many to warm up;
                    runs of a few thousand overstate the main thread's CPU (docs/benchmarks.md)
  --connections N   concurrent connections (default 10)
  --cases A,B       only the cases whose names contain one of these (the floor always runs)
  --profile FILE    preload FILE (NODE_OPTIONS=--require) in the server and database processes, e.g.
                    a script that starts V8's profiler through node:inspector and writes it at exit`;

const { values: opts } = parseCommandLine(usage, {
  options: {
    users: { type: "string", default: "20000" },
    surveys: { type: "string", default: "2000" },
    answers: { type: "string", default: "20000" },
    requests: { type: "string", default: "10000" },
    connections: { type: "string", default: "10" },
    cases: { type: "string", default: "" },
    profile: { type: "string", default: "" },
  },
});
const count = (name: keyof typeof opts) => {
  const value = Number(opts[name]);
  if (!Number.isInteger(value) || value < 1) exitWithUsageError(`--${name} must be a positive integer`);
  return value;
};
const USERS = count("users");
const SURVEYS = count("surveys");
const ANSWERS = count("answers");
const REQUESTS = count("requests");
const CONNECTIONS = count("connections");
const ONLY = (opts.cases as string).split(",").filter(Boolean);
const err = (line: string) => process.stderr.write(`${line}\n`);

/** user+system CPU seconds of one thread or (tid omitted) the whole process. */
function ticks(pid: number, tid?: number): number {
  try {
    const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
    const fields = readFileSync(file, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

interface Sample {
  main: number;
  others: number;
  database: number;
}

async function main() {
  const profile = opts.profile as string;
  const server = await startBenchServer({
    name: "cpu",
    port: 0,
    build: false,
    // Node refuses --cpu-prof in NODE_OPTIONS; a preloaded script can profile through node:inspector.
    env: profile ? { NODE_OPTIONS: `--require ${profile}` } : {},
  });
  try {
    const { database } = await server.attach();
    const accessToken = await server.signIn();
    const headers = { authorization: `Bearer ${accessToken}` };
    const me = await (await fetch(`${server.base}/v2/users/me`, { headers })).json();
    const companyId = new ObjectId(me.companies[0].companyId as string);
    const memberRole = await database.collection("accessroles").findOne({ company: companyId, name: "Member" });
    if (!memberRole) throw new Error("no Member role after bootstrap");
    const ids = await insertBenchUsers(database, {
      companyId,
      roleId: memberRole._id,
      count: USERS,
      batch: 1000,
      vary: (i) => ({ email: `cpu.${i}@bench.example` }),
    });
    const roles = (await database.collection("accessroles").find({ company: companyId }).toArray()).map((r) => r._id);
    const surveys = await insertSurveys({ database, companyId, surveys: SURVEYS, answers: ANSWERS }, roles);

    // The server entry is the cluster primary's one child (WEB_CONCURRENCY=1); its main thread's id is its pid.
    const entry = processTree(server.pids.server).find((pid) => pid !== server.pids.server);
    if (!entry) throw new Error("no server entry under the cluster's primary");
    const dbPid = server.pids.database!;
    const sample = (): Sample => {
      const main = ticks(entry, entry);
      return { main, others: ticks(entry) - main, database: ticks(dbPid) };
    };
    const admin = { ...headers, admin: "true" };
    const json = { ...admin, "content-type": "application/json" };
    let serial = 0;
    const runId = Date.now().toString(36);
    const cases: { name: string; options: autocannon.Options }[] = [
      { name: "floor: GET /api/auth/token", options: { url: `${server.base}/api/auth/token`, headers } },
      { name: "GET /v2/users (default page)", options: { url: `${server.base}/v2/users`, headers } },
      {
        name: "GET /v2/users?search=ma&count=true",
        options: { url: `${server.base}/v2/users?search=ma&count=true`, headers },
      },
      {
        name: "GET /v2/users/{id}",
        options: {
          url: `${server.base}/v2/users`,
          headers,
          requests: [{ setupRequest: (r) => ({ ...r, path: `/v2/users/${ids[serial++ % ids.length]}` }) }],
        },
      },
      {
        name: "POST /v2/users",
        options: {
          url: `${server.base}/v2/users`,
          method: "POST",
          headers: json,
          requests: [
            {
              setupRequest: (r) => ({
                ...r,
                body: JSON.stringify({
                  email: `load.${runId}.${serial++}@bench.example`,
                  accessRoles: [memberRole._id.toHexString()],
                  name: { displayName: "Load Test", names: "Load", lastName: "Test", secondLastName: "" },
                }),
              }),
            },
          ],
        },
      },
      { name: "GET /v2/surveys (default page)", options: { url: `${server.base}/v2/surveys`, headers } },
      {
        name: "GET /v2/surveys/{id}?populate=true",
        options: {
          url: `${server.base}/v2/surveys`,
          headers: admin,
          requests: [
            {
              setupRequest: (r) => ({
                ...r,
                path: `/v2/surveys/${surveys.surveys[serial++ % surveys.surveys.length]}?populate=true`,
              }),
            },
          ],
        },
      },
      {
        name: "PATCH /v2/surveys/{id}",
        options: {
          url: `${server.base}/v2/surveys`,
          method: "PATCH",
          headers: json,
          requests: [
            {
              setupRequest: (r) => {
                const n = serial++;
                return {
                  ...r,
                  path: `/v2/surveys/${surveys.surveys[n % surveys.surveys.length]}`,
                  body: JSON.stringify({ name: `Renamed ${n}`, permissions: roles[n % roles.length].toHexString() }),
                };
              },
            },
          ],
        },
      },
    ];
    const run = (options: autocannon.Options, amount: number) =>
      autocannon({ ...options, connections: CONNECTIONS, amount });

    err(`The server entry ${entry}, the database process ${dbPid}; ${REQUESTS} requests a case.`);
    const idle = sample();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idleAfter = sample();
    err(
      `Idle for 3 s: main ${((idleAfter.main - idle.main) * 1000).toFixed(0)} ms, others ${((idleAfter.others - idle.others) * 1000).toFixed(0)} ms, database ${((idleAfter.database - idle.database) * 1000).toFixed(0)} ms of CPU.`,
    );
    const rows: string[] = [];
    /** `amount` requests of `options`, after `warm` more: CPU per request of each side, and req/s. */
    const measure = async (options: autocannon.Options, amount: number, warm: number) => {
      await run(options, warm);
      const before = sample();
      const started = performance.now();
      const result = await run(options, amount);
      const seconds = (performance.now() - started) / 1000;
      const after = sample();
      const done = result.requests.total;
      const per = (key: keyof Sample) => ((after[key] - before[key]) * 1000) / done;
      return {
        main: per("main"),
        others: per("others"),
        database: per("database"),
        rps: done / seconds,
        failed: result.errors + result.non2xx,
      };
    };
    const [floor, ...measured] = cases;
    const first = await measure(floor.options, REQUESTS, Math.ceil(REQUESTS / 4));
    const row = (name: string, at: Awaited<ReturnType<typeof measure>>, beside: Awaited<ReturnType<typeof measure>>) =>
      `| ${name} | ${at.main.toFixed(2)} | ${at.others.toFixed(2)} | ${at.database.toFixed(2)} | ${((100 * beside.main) / at.main).toFixed(0)}% | ${at.rps.toFixed(0)} | ${((100 * at.rps) / beside.rps).toFixed(0)}% | ${at.failed} |`;
    rows.push(row(floor.name, first, first));
    err(rows[0]);
    for (const { name, options } of measured) {
      if (ONLY.length > 0 && !ONLY.some((part) => name.includes(part))) continue;
      // The floor again right before each case, warm: a shared machine's speed drifts within
      // minutes, and a ratio to a floor measured long before says more of the drift than of the case.
      const beside = await measure(floor.options, Math.ceil(REQUESTS / 3), Math.ceil(REQUESTS / 20));
      const at = await measure(options, REQUESTS, Math.ceil(REQUESTS / 4));
      rows.push(row(name, at, beside));
      err(rows[rows.length - 1]);
    }
    console.log(
      `\nCPU ms per request (${REQUESTS} requests a case, ${CONNECTIONS} connections; ${USERS} users, ${SURVEYS} surveys; yardstick ${yardstickMs().toFixed(0)} ms right after: docs/benchmarks.md#the-yardstick)\n`,
    );
    console.log(
      "| case | server main thread | server other threads | database process | floor main ÷ case main | req/s | req/s ÷ floor's | failed |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const row of rows) console.log(row);
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
