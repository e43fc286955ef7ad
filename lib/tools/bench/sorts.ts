/**
 * `npm run bench:sorts [-- --users 1000000 --others 100000 --surveys 20000]`: every order of the
 * users and surveys lists (docs/api.md#sorting) explained on a first page at scale
 * (docs/benchmarks.md#sorting). Loads the users (and surveys) into a fresh embedded database (or
 * the MongoDB of `MONGODB_URI`, into a new database), beside another company's, then prints for
 * each order and direction the winning plan's stages, its index, and the keys and documents
 * examined for a page of 10 (one more read, as the list does). Asserts nothing; the small-scale
 * check is lib/resources/users/indexes.test.ts and lib/resources/surveys/indexes.test.ts.
 */
import { exitWithUsageError, parseCommandLine } from "@/lib/base/shared/command-line";
import { startEmbeddedMongo, type EmbeddedMongoHandle } from "@/lib/embedded-mongo";
import { connect, disconnect } from "@/lib/kernel/db";
import { Notes } from "@/lib/kernel/notes";
import { SURVEY_SORTS } from "@/lib/resources/surveys/contract";
import { newDoc as newSurveyDoc, Survey } from "@/lib/resources/surveys/repository";
import { ListUsersQuery, USER_SORTS } from "@/lib/resources/users/contract";
import { userListFilter } from "@/lib/resources/users/list-filter";
import { User } from "@/lib/resources/users/repository";
import { ObjectId, type Db, type Document } from "mongodb";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { insertBenchUsers } from "./users";

const usage = `Usage: npm run bench:sorts -- [options]

Explains the first page of every order of the users and surveys lists at scale.

  --users N      users of the benchmark company (default 1000000)
  --others N     users of another company, interleaved in every index (default 100000)
  --surveys N    surveys of the benchmark company (default 20000)`;

const { values: opts } = parseCommandLine(usage, {
  options: {
    users: { type: "string", default: "1000000" },
    others: { type: "string", default: "100000" },
    surveys: { type: "string", default: "20000" },
  },
});

function count(name: "users" | "others" | "surveys"): number {
  const value = Number(opts[name]);
  if (!Number.isSafeInteger(value) || value < 0 || value > 10_000_000)
    exitWithUsageError(`--${name} must be a whole number from 0 to 10000000`);
  return value;
}

const err = (line: string) => process.stderr.write(`${line}\n`);
const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();

/** The stages of a plan, outermost first, with the index of each IXSCAN. */
function stages(plan: Document): string[] {
  const own =
    plan.stage === "IXSCAN"
      ? `IXSCAN ${JSON.stringify(plan.keyPattern)} ${plan.direction ?? ""}`.trim()
      : String(plan.stage);
  const inner = [plan.inputStage, ...((plan.inputStages as Document[] | undefined) ?? [])].filter(
    Boolean,
  ) as Document[];
  return [own, ...inner.flatMap(stages)];
}

interface Explained {
  queryPlanner: { winningPlan: Document };
  executionStats: {
    nReturned: number;
    totalKeysExamined?: number;
    totalDocsExamined: number;
    executionTimeMillis: number;
  };
}

async function main(): Promise<void> {
  const users = count("users");
  const others = count("others");
  const surveys = count("surveys");
  let dir: string | undefined;
  let embedded: EmbeddedMongoHandle | undefined;
  if (!process.env.MONGODB_URI) {
    dir = await mkdtemp(path.join(tmpdir(), "bench-sorts-"));
    embedded = await startEmbeddedMongo({ dir });
    process.env.MONGODB_URI = embedded.localUri;
  }
  try {
    const mongoose = await connect();
    // Mongoose carries its own copy of the driver: one database, two declarations of its type.
    const database = mongoose.connection.db! as unknown as Db;
    await User.createIndexes();
    await Survey.createIndexes();
    const companyId = new ObjectId();
    const roleId = new ObjectId();
    const runId = Date.now().toString(36);
    await insertBenchUsers(database, {
      companyId,
      roleId,
      count: users,
      batch: 1000,
      vary: (i, { names, lastName }) => ({ email: `${fold(names)}.${fold(lastName)}.${i}.${runId}@sorts.example` }),
    });
    await insertBenchUsers(database, {
      companyId: new ObjectId(),
      roleId: new ObjectId(),
      count: others,
      batch: 1000,
      vary: (i, { names, lastName }) => ({ email: `${fold(names)}.${fold(lastName)}.${i}.${runId}@other.example` }),
    });
    const now = Date.now();
    for (let start = 0; start < surveys; start += 1000) {
      const docs = [];
      for (let i = start; i < Math.min(start + 1000, surveys); i++) {
        docs.push(
          newSurveyDoc({
            code: `s_${runId}_${i}`,
            name: `${["Onboarding", "Climate", "Exit", "Évaluation"][i % 4]} ${i}`,
            version: 2,
            company: companyId,
            isActive: i % 10 !== 0,
            createdAt: new Date(now - i * 1000),
          }),
        );
      }
      await database.collection("surveys").insertMany(docs, { ordered: false });
    }
    err(`Loaded ${users} users (and ${others} of another company) and ${surveys} surveys.`);

    const rows: string[][] = [];
    const explain = async (list: string, order: string, collection: string, filter: Document, sort: Document) => {
      const explained = (await database
        .collection(collection)
        .find(filter, { sort, limit: 11 })
        .explain("executionStats")) as unknown as Explained;
      const plan = stages(explained.queryPlanner.winningPlan);
      const stats = explained.executionStats;
      rows.push([
        list,
        order,
        plan.join(" ← "),
        plan.some((stage) => stage === "SORT") ? "yes" : "no",
        String(stats.nReturned),
        String(stats.totalKeysExamined ?? "–"),
        String(stats.totalDocsExamined),
        String(stats.executionTimeMillis),
      ]);
    };

    const activeUsers = await userListFilter(companyId, ListUsersQuery.parse({}), new Notes());
    const allUsers = await userListFilter(companyId, ListUsersQuery.parse({ isActive: "all" }), new Notes());
    const userKey = { modifiedAt: "modifiedAt", createdAt: "createdAt", name: "nameSort", email: "email" } as const;
    for (const sortBy of USER_SORTS) {
      for (const direction of [-1, 1]) {
        const sort = { [userKey[sortBy]]: direction, _id: direction };
        await explain(
          "users isActive=true",
          `${sortBy} ${direction === 1 ? "asc" : "desc"}`,
          "users",
          activeUsers as Document,
          sort,
        );
        await explain(
          "users isActive=all",
          `${sortBy} ${direction === 1 ? "asc" : "desc"}`,
          "users",
          allUsers as Document,
          sort,
        );
      }
    }
    const surveyKey = { modifiedAt: ["modifiedAt", "_id"], name: ["nameLower", "_id"], code: ["code"] } as const;
    for (const sortBy of SURVEY_SORTS) {
      for (const direction of [-1, 1]) {
        const sort = Object.fromEntries(surveyKey[sortBy].map((field) => [field, direction]));
        await explain(
          "surveys isActive=true",
          `${sortBy} ${direction === 1 ? "asc" : "desc"}`,
          "surveys",
          { company: companyId, isActive: true },
          sort,
        );
        await explain(
          "surveys isActive=all",
          `${sortBy} ${direction === 1 ? "asc" : "desc"}`,
          "surveys",
          { company: companyId },
          sort,
        );
      }
    }
    const header = [
      "list",
      "order",
      "winning plan",
      "blocking SORT",
      "nReturned",
      "keysExamined",
      "docsExamined",
      "ms",
    ];
    process.stdout.write(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|\n`);
    for (const row of rows) process.stdout.write(`| ${row.join(" | ")} |\n`);
  } finally {
    await disconnect();
    await embedded?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  err(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
