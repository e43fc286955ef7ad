/**
 * `npm run bench:db`: speed of the embedded database through the real `mongodb` driver.
 * Inserts 100,000 user-like documents, then times an indexed equality find, a page of 10 filtered
 * by company and sorted by an indexed date, and that same page after the index is dropped. Then,
 * in two companies of 100,000 users each, the users list's deepest page by number (page 1,000 of
 * 10: 9,990 skipped), with the filter the list sends for `isActive=all` and for the default
 * `isActive=true` (docs/api.md#paging).
 * The server runs in a child process of its own, as a database server does, so the client's
 * BSON work and the server's share the machine's cores rather than one event loop.
 * Prints figures only: these machines are shared, so nothing here passes or fails on a time.
 */
import { MongoClient, ObjectId, type Db, type Document } from "mongodb";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseCommandLine } from "../base/shared/command-line";
import { serve, startServerProcess } from "./bench-process";

const TOTAL = Number(process.env.BENCH_DOCS ?? 100_000);
const BATCH = 1000;
const COMPANIES = 20;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function time(label: string, runs: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, runs); i++) await fn(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const p50 = percentile(samples, 50);
  console.log(
    `${label.padEnd(52)} p50 ${p50.toFixed(3)} ms   p99 ${percentile(samples, 99).toFixed(3)} ms   (${runs} runs)`,
  );
  return p50;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-db-"));
  const server = await startServerProcess(__filename, dir);
  const client = await MongoClient.connect(server.uri);
  try {
    const users = client.db("bench").collection("users");
    await users.createIndex({ email: 1 }, { unique: true });
    await users.createIndex({ company: 1, modifiedAt: -1 });
    const companies = Array.from({ length: COMPANIES }, () => new ObjectId());
    const base = Date.UTC(2025, 0, 1);

    const insertStart = performance.now();
    for (let offset = 0; offset < TOTAL; offset += BATCH) {
      const docs = Array.from({ length: Math.min(BATCH, TOTAL - offset) }, (_, j) => {
        const i = offset + j;
        return {
          email: `user${i}@example.com`,
          name: { displayName: `User ${i}`, names: `User`, lastName: `N${i}`, secondLastName: "" },
          companies: [{ companyId: companies[i % COMPANIES], hierarchy: { boss: [], peers: [], subordinate: [] } }],
          company: companies[i % COMPANIES],
          search: [`user${i}`, "example", "com"],
          isActive: i % 10 !== 0,
          createdAt: new Date(base + i * 1000),
          modifiedAt: new Date(base + ((i * 7919) % TOTAL) * 1000),
        };
      });
      await users.insertMany(docs, { ordered: true });
    }
    const insertSeconds = (performance.now() - insertStart) / 1000;
    console.log(
      `embedded-mongo benchmark: ${TOTAL.toLocaleString("en")} documents, Node ${process.version}, ${os.cpus().length} cores`,
    );
    console.log(
      `${"insert (batches of 1,000)".padEnd(52)} ${Math.round(TOTAL / insertSeconds).toLocaleString("en")} documents/s`,
    );

    await time("find by indexed email (equality)", 2000, (i) =>
      users.findOne({ email: `user${(i * 37) % TOTAL}@example.com` }),
    );
    const page = (i: number) =>
      users
        .find({ company: companies[i % COMPANIES] })
        .sort({ modifiedAt: -1 })
        .limit(10)
        .toArray();
    const indexed = await time("page of 10 by company, sorted by modifiedAt (index)", 2000, page);
    await users.dropIndex("company_1_modifiedAt_-1");
    const scanned = await time("same page without the index (collection scan)", 30, page);
    console.log(`${"index speed-up (scan p50 / index p50)".padEnd(52)} ${(scanned / indexed).toFixed(1)}x`);
    await deepPage(client.db("bench"));
  } finally {
    await client.close();
    server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Page 1,000 of 10 of the users list in the first of two companies of TOTAL users each, with the
 * list's index, sort and skip (lib/resources/users, lib/kernel/cursor.ts).
 */
async function deepPage(db: Db): Promise<void> {
  const members = db.collection("members");
  await members.createIndex({ "companies.companyId": 1, modifiedAt: 1, _id: 1 });
  const companies = [new ObjectId(), new ObjectId()];
  const base = Date.UTC(2025, 0, 1);
  for (let offset = 0; offset < 2 * TOTAL; offset += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, 2 * TOTAL - offset) }, (_, j) => {
      const i = offset + j;
      const companyId = companies[i % 2];
      return {
        email: `member${i}@example.com`,
        name: { displayName: `User ${i}`, names: `User`, lastName: `N${i}`, secondLastName: "" },
        companies: [
          {
            _id: new ObjectId(),
            companyId,
            isActive: i % 10 !== 0,
            hierarchy: { boss: [], peers: [], subordinate: [] },
          },
        ],
        search: [`member${i}`, "example", "com"],
        createdAt: new Date(base + i * 1000),
        modifiedAt: new Date(base + ((i * 7919) % (2 * TOTAL)) * 1000),
      };
    });
    await members.insertMany(docs, { ordered: true });
  }
  const sort = { modifiedAt: -1, _id: -1 } as const;
  const all = { "companies.companyId": companies[0] };
  const active = { ...all, companies: { $elemMatch: { companyId: companies[0], isActive: { $ne: false } } } };
  for (const [label, filter] of [
    ["isActive=all", all],
    ["isActive=true", active],
  ] as const) {
    const read = () => members.find(filter, { sort, skip: 9990, limit: 11 }).toArray();
    await time(`users page 1,000 by page= (${label})`, 30, read);
    const explained = await db.command({
      explain: { find: "members", filter, sort, skip: 9990, limit: 11 },
      verbosity: "executionStats",
    });
    const { totalKeysExamined, totalDocsExamined } = explained.executionStats as Document;
    console.log(`${"".padEnd(4)}index entries read ${totalKeysExamined}, documents read ${totalDocsExamined}`);
  }
}

const usage = `Usage: npm run bench:db

Times the embedded database through the mongodb driver on BENCH_DOCS user-like documents
(default 100000) in a fresh temporary directory, then the users list's page 1,000 by page= in two
companies of BENCH_DOCS users each, and prints the figures. Takes no options.`;

// `--serve DIR` is how this script starts its own database process, not an option for users.
const serving = process.argv[2] === "--serve" && process.argv.length === 4;
if (!serving) parseCommandLine(usage, { options: {} });
(serving ? serve(process.argv[3]) : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
