/**
 * `npm run bench:backup [-- --users 1000000 --rounds 3 --dir D]`: how long a backup and a restore
 * take for a database of user records (docs/benchmarks.md). Builds the database once, straight
 * through the store (no wire protocol: building is not what is measured), in `--dir`, and reuses
 * it on later runs; then times `--rounds` backups and restores and prints each and their median.
 * Prints figures only: these machines are shared, so nothing here passes or fails on a time.
 *
 * The documents have the shape and the indexes of the product's users: about 500 bytes of BSON,
 * a dozen indexes, the keyword array of the search among them.
 */
import { BSON, ObjectId, type Document } from "bson";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { exitWithUsageError, parseCommandLine } from "../base/shared/command-line";
import { FIRST_NAMES, LAST_NAMES } from "../base/shared/demo-names";
import { backupDatabase, restoreDatabase } from "./storage/backup";
import type { IndexSpec } from "./storage/index-spec";
import { privateDirectory } from "./storage/private-files";
import { Store } from "./storage/store";

const usage = `Usage: npm run bench:backup -- [--users N] [--rounds N] [--dir DIR]

Times npm run db -- backup and restore on a database of N user records, built once in DIR and
reused by later runs with the same DIR.

  --users N   user records (default 1000000)
  --rounds N  backups and restores timed (default 3)
  --dir DIR   database directory (default embedded-mongo-bench-backup-N in the temporary directory)`;

const { values } = parseCommandLine(usage, {
  options: {
    users: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "3" },
    dir: { type: "string" },
  },
});

function whole(name: "users" | "rounds", min: number): number {
  const text = String(values[name]);
  if (!/^\d+$/.test(text) || Number(text) < min)
    exitWithUsageError(`--${name} must be a whole number from ${min}, not ${JSON.stringify(text)}`);
  return Number(text);
}

const USERS = whole("users", 1);
const ROUNDS = whole("rounds", 1);
const DIR = path.resolve(values.dir ?? path.join(os.tmpdir(), `embedded-mongo-bench-backup-${USERS}`));
const DB = "usersurveys";
const COLLECTION = "users";
const BATCH = 5000;
const COMPANIES = 50;

/** The users collection's indexes, as the product's model declares them. */
const INDEXES: Array<Pick<IndexSpec, "key" | "unique">> = [
  { key: { email: 1 }, unique: true },
  { key: { "companies.companyId": 1, modifiedAt: 1, _id: 1 } },
  { key: { "companies.companyId": 1, createdAt: 1, _id: 1 } },
  { key: { search: 1 } },
  { key: { accessRoles: 1 } },
  { key: { properties: 1 } },
  { key: { job: 1 } },
  { key: { bot: 1 } },
  { key: { "companies.hierarchy.boss": 1 } },
  { key: { "companies.hierarchy.peers": 1 } },
  { key: { "companies.hierarchy.subordinate": 1 } },
];

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();

function user(i: number, companies: ObjectId[], roles: ObjectId[], now: number): Document {
  const names = FIRST_NAMES[i % FIRST_NAMES.length];
  const lastName = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length];
  const secondLastName = LAST_NAMES[Math.floor(i / 7) % LAST_NAMES.length];
  const email = `${fold(names)}.${fold(lastName)}.${i}@bench.example`;
  const companyId = companies[i % companies.length];
  return {
    _id: new ObjectId(),
    name: { displayName: `${names} ${lastName} ${secondLastName}`, names, lastName, secondLastName },
    email,
    accessRoles: [roles[i % roles.length]],
    properties: [],
    job: null,
    bot: null,
    phone: null,
    isOnline: false,
    termsConditions: true,
    search: [
      ...new Set([
        fold(names),
        fold(lastName),
        fold(secondLastName),
        ...email.split(/[^a-z0-9]+/),
        email.replace(/[^a-z0-9]/g, ""),
      ]),
    ],
    companies: [
      { _id: new ObjectId(), companyId, isActive: i % 20 !== 0, hierarchy: { boss: [], peers: [], subordinate: [] } },
    ],
    lastRequestDate: null,
    createdAt: new Date(now - (USERS - i) * 100),
    modifiedAt: new Date(now - Math.floor((USERS - i) / 10) * 1000),
    extensions: {},
    __v: 0,
  };
}

/** The database of `USERS` users in `DIR`, built unless a previous run left it there. */
async function ensureDatabase(): Promise<void> {
  privateDirectory(DIR);
  const store = Store.open(DIR);
  try {
    const existing = store.collection(DB, COLLECTION);
    if (existing && store.count(existing) === USERS) {
      console.error(`Reusing the database of ${USERS} users in ${DIR}.`);
      return;
    }
    if (existing)
      throw new Error(`${DIR} holds another number of users than ${USERS}: remove it or give another --dir`);
    const started = performance.now();
    const companies = Array.from({ length: COMPANIES }, () => new ObjectId());
    const roles = Array.from({ length: 5 }, () => new ObjectId());
    const now = Date.now();
    const meta = await store.write(() => {
      const { meta } = store.ensureCollection(DB, COLLECTION);
      for (const { key, unique } of INDEXES) {
        const name = Object.entries(key)
          .map(([field, direction]) => `${field}_${direction}`)
          .join("_");
        store.createIndex(meta, { v: 2, key, name, ...(unique ? { unique } : {}) });
      }
      return meta;
    });
    let bytes = 0;
    for (let start = 0; start < USERS; start += BATCH) {
      const docs = Array.from({ length: Math.min(BATCH, USERS - start) }, (_, j) =>
        user(start + j, companies, roles, now),
      );
      bytes += docs.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0);
      await store.write(() => {
        for (const doc of docs) store.insert(meta, doc);
      });
      if ((start / BATCH) % 20 === 0) console.error(`  ${start + docs.length} users...`);
    }
    const seconds = (performance.now() - started) / 1000;
    console.error(
      `Built ${USERS} users (${Math.round(bytes / USERS)} bytes of BSON each, ${INDEXES.length + 1} indexes) in ${seconds.toFixed(0)} s.`,
    );
  } finally {
    await store.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  await ensureDatabase();
  const file = `${DIR}.backup`;
  const restored = `${DIR}.restored`;
  const backups: number[] = [];
  const restores: number[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const backup = await backupDatabase(DIR, file, { force: true });
      backups.push(backup.seconds);
      fs.rmSync(restored, { recursive: true, force: true });
      const restore = await restoreDatabase(file, restored);
      restores.push(restore.seconds);
      console.log(
        `round ${round}: backup ${backup.seconds.toFixed(2)} s (${(backup.bytes / 1024 / 1024).toFixed(0)} MB, ${backup.documents} documents), restore ${restore.seconds.toFixed(2)} s`,
      );
    }
    console.log(
      `median of ${ROUNDS}: backup ${median(backups).toFixed(2)} s, restore ${median(restores).toFixed(2)} s`,
    );
  } finally {
    fs.rmSync(file, { force: true });
    fs.rmSync(restored, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
