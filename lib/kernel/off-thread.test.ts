import { storedCounts } from "@/lib/kernel/counts";
import { oid } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import { offThread, readWorkers } from "@/lib/kernel/off-thread";
import { readTasks } from "@/lib/platform/startup/read-tasks";
import { CreateSurveyBody } from "@/lib/resources/surveys/contract";
import {
  readPopulatedSurvey,
  readSurveyRecords,
  Survey,
  type SurveyRecordsQuery,
} from "@/lib/resources/surveys/repository";
import { createSurvey } from "@/lib/resources/surveys/service";
import {
  countUsers,
  readUserPage,
  readUserRecords,
  User,
  type UserRecordsQuery,
} from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant } from "@/lib/tools/testing/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pageOf = (companyId: string): UserRecordsQuery => ({
  companyId: oid(companyId),
  filter: { "companies.companyId": oid(companyId) },
  sort: { modifiedAt: -1, _id: -1 },
  skip: 0,
  limit: 10,
});

describe("reads on the read worker", () => {
  // One worker, whatever the default on this machine's cores (docs/architecture.md#read-workers).
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env.READ_WORKERS;
    process.env.READ_WORKERS = "1";
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.READ_WORKERS;
    else process.env.READ_WORKERS = previous;
  });
  useTestDatabase();

  it("run on the worker the task of the name the callers pass with their function", () => {
    expect(readTasks.userRecords).toBe(readUserRecords);
    expect(readTasks.surveyRecords).toBe(readSurveyRecords);
    expect(readTasks.populatedSurvey).toBe(readPopulatedSurvey);
  });

  it("answer a user page as the same read does in this thread, and run on the worker", async () => {
    const tenant = await createTenant();
    const before = readWorkers()?.answered ?? 0;
    const onWorker = await offThread("userRecords", readUserRecords, pageOf(tenant.companyId));
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(onWorker).toEqual(await readUserRecords(pageOf(tenant.companyId)));
    expect(onWorker.map((user) => user._id).sort()).toEqual([tenant.adminId, tenant.memberId].sort());
  });

  it("read a page's stored count beside it, as this thread reads it, so a current count sends no command here", async () => {
    const tenant = await createTenant();
    const filter = { "companies.companyId": oid(tenant.companyId) };
    // The first count stores it (docs/api.md#counters).
    expect(await countUsers(oid(tenant.companyId), filter)).toBe(2);
    const page = { ...pageOf(tenant.companyId), key: "modifiedAt", counted: filter };
    const onWorker = await offThread("userPage", readUserPage, page);
    expect(onWorker.counts).toEqual(await storedCounts("users", oid(tenant.companyId), filter));
    expect(onWorker.counts?.map((stored) => stored.count)).toContain(2);
    expect(await countUsers(oid(tenant.companyId), filter, onWorker.counts)).toBe(2);
  });

  it("show a user of two companies to each with only that company's references", async () => {
    const first = await createTenant();
    const second = await createTenant();
    // The member of the first company joins the second, with its role there.
    await User.collection.updateOne({ _id: oid(first.memberId) }, {
      $push: {
        companies: {
          _id: oid(first.memberId),
          companyId: oid(second.companyId),
          hierarchy: { boss: [], peers: [], subordinate: [] },
        },
      },
      $addToSet: { accessRoles: oid(second.memberRoleId) },
    } as never);
    const read = (companyId: string) =>
      offThread("userRecords", readUserRecords, {
        ...pageOf(companyId),
        filter: { _id: oid(first.memberId), "companies.companyId": oid(companyId) },
      });
    const [inFirst] = await read(first.companyId);
    const [inSecond] = await read(second.companyId);
    expect(inFirst.accessRoles).toEqual([first.memberRoleId]);
    expect(inFirst.companies.map((entry) => entry.companyId)).toEqual([first.companyId]);
    expect(inSecond.accessRoles).toEqual([second.memberRoleId]);
    expect(inSecond.companies.map((entry) => entry.companyId)).toEqual([second.companyId]);
  });

  it("read survey pages too, the same as in this thread", async () => {
    const tenant = await createTenant();
    const auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
    for (const code of ["one", "two", "three"])
      await createSurvey(auth, CreateSurveyBody.parse({ code, name: `Survey ${code}`, version: 2 }), new Notes());
    const page: SurveyRecordsQuery = {
      filter: { company: oid(tenant.companyId) },
      projection: { code: 1, name: 1 },
      fields: ["_id", "code", "name"],
      sort: { modifiedAt: -1, _id: -1 },
      limit: 2,
    };
    const before = readWorkers()?.answered ?? 0;
    const onWorker = await offThread("surveyRecords", readSurveyRecords, page);
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(onWorker).toEqual(await readSurveyRecords(page));
    expect(onWorker.map((survey) => survey.code)).toEqual(["three", "two"]);
    expect(Object.keys(onWorker[0]).sort()).toEqual(["_id", "code", "name"]);
  });

  it("read a survey with its chats as this thread does, say when its content write is pending, and never another company's", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
    const created = await createSurvey(
      auth,
      CreateSurveyBody.parse({ code: "chats", name: "With chats", version: 2 }),
      new Notes(),
    );
    const args = { companyId: oid(tenant.companyId), surveyId: oid(created._id) };
    const before = readWorkers()?.answered ?? 0;
    const onWorker = await offThread("populatedSurvey", readPopulatedSurvey, args);
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(onWorker).toEqual(await readPopulatedSurvey(args));
    expect(onWorker.survey?.code).toBe("chats");
    expect(onWorker.contentPending).toBe(false);
    expect(Object.keys(onWorker.survey ?? {})).not.toContain("contentPending");

    await Survey.collection.updateOne({ _id: args.surveyId }, { $set: { contentPending: true } });
    expect((await offThread("populatedSurvey", readPopulatedSurvey, args)).contentPending).toBe(true);
    const elsewhere = await offThread("populatedSurvey", readPopulatedSurvey, {
      ...args,
      companyId: oid(other.companyId),
    });
    expect(elsewhere).toEqual({ survey: null, chat: [], contentPending: false });
  });

  it("fail with the database's error, not a silent empty page", async () => {
    const tenant = await createTenant();
    const bad = { ...pageOf(tenant.companyId), filter: { $where: "1" } };
    const before = readWorkers()?.answered ?? 0;
    const error = await offThread("userRecords", readUserRecords, bad).catch((e: unknown) => e);
    expect(String(error)).toMatch(/\$where/);
    expect(readWorkers()?.answered).toBe(before + 1);
  });
});

describe("with READ_WORKERS=0", () => {
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env.READ_WORKERS;
    process.env.READ_WORKERS = "0";
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.READ_WORKERS;
    else process.env.READ_WORKERS = previous;
  });
  useTestDatabase();

  it("reads run in this thread", async () => {
    const tenant = await createTenant();
    expect(readWorkers()).toBeUndefined();
    const users = await offThread("userRecords", readUserRecords, pageOf(tenant.companyId));
    expect(users.map((user) => user._id).sort()).toEqual([tenant.adminId, tenant.memberId].sort());
  });
});
