import { ListCount, storedCounts } from "@/lib/kernel/counts";
import { ServiceError } from "@/lib/kernel/errors";
import { oid } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import { offThread, readWorkers } from "@/lib/kernel/off-thread";
import { withRequestContext } from "@/lib/kernel/request-context";
import { readTasks } from "@/lib/platform/startup/read-tasks";
import { ensureIndexes } from "@/lib/platform/startup/ready";
import { Event } from "@/lib/resources/events/repository";
import { CreateSurveyBody } from "@/lib/resources/surveys/contract";
import {
  countSurveys,
  readPopulatedSurvey,
  readWrittenPopulatedSurvey,
  readWrittenSurveys,
  Survey,
  surveyAnswerTag,
  surveyCountKey,
  type SurveyRecordsQuery,
} from "@/lib/resources/surveys/repository";
import { createSurvey, getSurvey, updateSurvey } from "@/lib/resources/surveys/service";
import { CreateUserBody, type UserRecord } from "@/lib/resources/users/contract";
import {
  countUsers,
  readUserRecords,
  readWrittenUser,
  readWrittenUserPage,
  User,
  userCountKey,
  userTag,
  type UserRecordsQuery,
} from "@/lib/resources/users/repository";
import { createUser, userAnswer } from "@/lib/resources/users/service";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant } from "@/lib/tools/testing/http";
import mongoose from "mongoose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const pageOf = (companyId: string): UserRecordsQuery => ({
  companyId: oid(companyId),
  filter: { "companies.companyId": oid(companyId) },
  sort: { modifiedAt: -1, _id: -1 },
  skip: 0,
  limit: 10,
});

/** One read worker for the enclosing describe, whatever the default on this machine's cores (docs/architecture.md#read-workers). */
function oneReadWorker(): void {
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env.READ_WORKERS;
    process.env.READ_WORKERS = "1";
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.READ_WORKERS;
    else process.env.READ_WORKERS = previous;
  });
}

describe("reads on the read worker", () => {
  oneReadWorker();
  useTestDatabase();

  it("run on the worker the task of the name the callers pass with their function", () => {
    expect(readTasks.userPage).toBe(readWrittenUserPage);
    expect(readTasks.surveyPage).toBe(readWrittenSurveys);
    expect(readTasks.populatedSurvey).toBe(readWrittenPopulatedSurvey);
    expect(readTasks.writtenUser).toBe(readWrittenUser);
  });

  it("answer a user page as the same read does in this thread, and run on the worker", async () => {
    const tenant = await createTenant();
    const before = readWorkers()?.answered ?? 0;
    const page = { ...pageOf(tenant.companyId), key: "modifiedAt" };
    const onWorker = await offThread("userPage", readWrittenUserPage, page);
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(onWorker).toEqual(await readWrittenUserPage(page));
    expect(onWorker.positions.map((at) => at.id).sort()).toEqual([tenant.adminId, tenant.memberId].sort());
  });

  it("read a page's stored count beside it, as this thread reads it, so a current count sends no command here", async () => {
    const tenant = await createTenant();
    const filter = { "companies.companyId": oid(tenant.companyId) };
    // The first count stores it (docs/api.md#counters).
    expect(await countUsers(oid(tenant.companyId), filter)).toBe(2);
    const key = userCountKey(oid(tenant.companyId), filter);
    const page = { ...pageOf(tenant.companyId), key: "modifiedAt", counted: key };
    const onWorker = await offThread("userPage", readWrittenUserPage, page);
    expect(onWorker).toEqual(await readWrittenUserPage(page));
    expect(onWorker.texts.map((text) => JSON.parse(text)._id)).toEqual(onWorker.positions.map((at) => at.id));
    expect(onWorker.counts).toEqual(await storedCounts(key));
    expect(onWorker.counts?.map((stored) => stored.count)).toContain(2);
    expect(await countUsers(oid(tenant.companyId), filter, { key, stored: onWorker.counts })).toBe(2);
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
    const written = (companyId: string, userId: string) =>
      offThread("writtenUser", readWrittenUser, {
        companyId: oid(companyId),
        filter: { _id: oid(userId), "companies.companyId": oid(companyId) },
      });
    const inFirstWritten = await written(first.companyId, first.memberId);
    const inSecondWritten = await written(second.companyId, first.memberId);
    const [inFirst, inSecond]: UserRecord[] = [JSON.parse(inFirstWritten.text!), JSON.parse(inSecondWritten.text!)];
    expect(inFirst.accessRoles).toEqual([first.memberRoleId]);
    expect(inFirst.companies.map((entry) => entry.companyId)).toEqual([first.companyId]);
    expect(inSecond.accessRoles).toEqual([second.memberRoleId]);
    expect(inSecond.companies.map((entry) => entry.companyId)).toEqual([second.companyId]);
    // The record as this thread reads it, its tag, and none of another company's user.
    const [inThread] = await readUserRecords({
      companyId: oid(second.companyId),
      filter: { _id: oid(first.memberId), "companies.companyId": oid(second.companyId) },
    });
    expect(inSecond).toEqual(JSON.parse(JSON.stringify(inThread)));
    expect(inSecondWritten.tag).toBe(userTag(inThread));
    expect(await written(second.companyId, first.adminId)).toEqual({ text: null, tag: "" });
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
    const onWorker = await offThread("surveyPage", readWrittenSurveys, page);
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(onWorker).toEqual(await readWrittenSurveys(page));
    const records = onWorker.texts.map((text) => JSON.parse(text));
    expect(records.map((survey) => survey.code)).toEqual(["three", "two"]);
    expect(Object.keys(records[0]).sort()).toEqual(["_id", "code", "name"]);
    expect(onWorker.positions.map((survey) => survey._id)).toEqual(records.map((survey) => survey._id));
    // A field the cursor reads but the answer leaves out (`select` without the sort field).
    const [withoutName] = (await offThread("surveyPage", readWrittenSurveys, { ...page, omit: "name" })).texts;
    expect(Object.keys(JSON.parse(withoutName)).sort()).toEqual(["_id", "code"]);
    // With `count=true`, the stored count beside the page, as for users.
    const filter = { company: oid(tenant.companyId) };
    expect(await countSurveys(oid(tenant.companyId), filter)).toBe(3);
    const key = surveyCountKey(oid(tenant.companyId), filter);
    const counted = await offThread("surveyPage", readWrittenSurveys, { ...page, counted: key });
    expect(counted.counts).toEqual(await storedCounts(key));
    expect(await countSurveys(oid(tenant.companyId), filter, { key, stored: counted.counts })).toBe(3);
    expect(onWorker.counts).toBeUndefined();
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
    const onWorker = await offThread("populatedSurvey", readWrittenPopulatedSurvey, args);
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(onWorker).toEqual(await readWrittenPopulatedSurvey(args));
    const here = await readPopulatedSurvey(args);
    const record = { ...here.survey, chat: here.chat };
    expect(JSON.parse(onWorker.text ?? "null")).toEqual(record);
    expect(onWorker.tag).toBe(surveyAnswerTag(record as Parameters<typeof surveyAnswerTag>[0]));
    expect(JSON.parse(onWorker.text ?? "null").code).toBe("chats");
    expect(onWorker.contentPending).toBe(false);
    expect(Object.keys(JSON.parse(onWorker.text ?? "{}"))).not.toContain("contentPending");

    await Survey.collection.updateOne({ _id: args.surveyId }, { $set: { contentPending: true } });
    expect((await offThread("populatedSurvey", readWrittenPopulatedSurvey, args)).contentPending).toBe(true);
    const elsewhere = await offThread("populatedSurvey", readWrittenPopulatedSurvey, {
      ...args,
      companyId: oid(other.companyId),
    });
    expect(elsewhere).toEqual({ text: null, tag: "", contentPending: false });
  });

  it("fail with the database's error, not a silent empty page", async () => {
    const tenant = await createTenant();
    const bad = { ...pageOf(tenant.companyId), filter: { $where: "1" } };
    const before = readWorkers()?.answered ?? 0;
    const error = await offThread("userPage", readWrittenUserPage, { ...bad, key: "modifiedAt" }).catch(
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(/\$where/);
    expect(readWorkers()?.answered).toBe(before + 1);
  });
});

describe("writes on the read worker", () => {
  oneReadWorker();
  useTestDatabase();
  // `ready()` built the indexes once, on the first describe's database: the unique e-mail needs them here.
  beforeAll(() => ensureIndexes());

  const as = async <T>(tenant: { adminId: string; companyId: string }, work: () => Promise<T>) => {
    const principal = {
      userId: tenant.adminId,
      companyId: tenant.companyId,
      sessionId: "",
      accessRoles: [],
      name: "Ada",
    };
    return withRequestContext({ requestId: "req-worker", principal, ip: "203.0.113.9" }, work);
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it("create a user there with its event and audit entry naming the request, and raise the company's count mark", async () => {
    const tenant = await createTenant();
    const companyId = oid(tenant.companyId);
    const auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
    const mark = async () =>
      (await ListCount.collection.findOne({ _id: `users|${tenant.companyId}` } as never))?.version ?? 0;
    const markBefore = await mark();
    const before = readWorkers()?.answered ?? 0;
    const body = CreateUserBody.parse({ email: "worker@example.test", accessRoles: [tenant.memberRoleId] });
    const created = await as(tenant, () => createUser(auth, body, { notifyEmail: false, notes: new Notes() }));
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(JSON.parse(JSON.stringify(created))).toEqual(JSON.parse((await userAnswer(auth, created._id)).body.text));
    const event = await Event.collection.findOne({
      company: companyId,
      type: "user.created",
      "resource.id": created._id,
    });
    expect(event).toMatchObject({ actor: { type: "user", id: tenant.adminId }, requestId: "req-worker" });
    const audit = await mongoose.connection
      .collection("auditLog")
      .findOne({ company: companyId, action: "user.created", "resource.id": created._id });
    expect(audit).toMatchObject({ actor: { name: "Ada" }, requestId: "req-worker", ip: "203.0.113.9" });
    expect(await mark()).toBeGreaterThan(markBefore);
  });

  it("answer the service's refusals from there as this thread does: a duplicate e-mail, an unknown reference", async () => {
    const tenant = await createTenant();
    const auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
    const create = (fields: object) =>
      createUser(auth, CreateUserBody.parse({ accessRoles: [tenant.memberRoleId], ...fields }), {
        notifyEmail: false,
        notes: new Notes(),
      });
    await create({ email: "twice@example.test" });
    const before = readWorkers()?.answered ?? 0;
    const duplicate = await refusal(create({ email: "twice@example.test" }));
    expect(duplicate).toBeInstanceOf(ServiceError);
    expect(duplicate).toMatchObject({ status: 409, code: "conflict", details: [{ path: "email" }] });
    const unknown = await refusal(create({ email: "other@example.test", properties: ["0123456789abcdef01234567"] }));
    expect(unknown).toBeInstanceOf(ServiceError);
    expect(unknown).toMatchObject({ status: 400, code: "unknown_reference", details: [{ path: "properties.0" }] });
    expect(readWorkers()?.answered).toBe(before + 2);
    expect(await User.collection.countDocuments({ email: "other@example.test" })).toBe(0);
  });

  it("apply a survey's PATCH there with its event, its migration's notes, and its refusals", async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
    const created = await createSurvey(
      auth,
      CreateSurveyBody.parse({ code: "patched", name: "Before", version: 1, permissions: [tenant.memberRoleId] }),
      new Notes(),
    );
    const before = readWorkers()?.answered ?? 0;
    const notes = new Notes();
    const updated = await as(tenant, () => updateSurvey(auth, created._id, { name: "After", version: 2 }, notes));
    expect(readWorkers()?.answered).toBe(before + 1);
    expect(updated).toEqual(await getSurvey(auth, created._id, { populate: false }));
    expect(updated).toMatchObject({ name: "After", version: 2 });
    expect(updated.permissionsV2.map((entry) => entry.accessRole)).toEqual([tenant.memberRoleId]);
    expect(notes.list.length).toBeGreaterThan(0);
    const event = await Event.collection.findOne({ type: "survey.updated", "resource.id": created._id });
    expect(event).toMatchObject({ requestId: "req-worker", changes: expect.arrayContaining(["name", "version"]) });

    const elsewhere = { ...auth, userId: other.adminId, companyId: other.companyId };
    const missing = await refusal(updateSurvey(elsewhere, created._id, { name: "Theirs" }, new Notes()));
    expect(missing).toBeInstanceOf(ServiceError);
    expect(missing).toMatchObject({ status: 404, code: "not_found" });
    const stale = await refusal(updateSurvey(auth, created._id, { name: "Late" }, new Notes(), '"stale"'));
    expect(stale).toBeInstanceOf(ServiceError);
    expect(stale).toMatchObject({ status: 412, headers: { ETag: expect.any(String) } });
    expect((await getSurvey(auth, created._id, { populate: false })).name).toBe("After");
  });

  it("run a write in this thread when no worker can take it", async () => {
    const tenant = await createTenant();
    const auth = { userId: tenant.adminId, companyId: tenant.companyId, sessionId: "", accessRoles: [] };
    const pool = readWorkers();
    await pool?.close();
    expect(pool?.usable).toBe(false);
    const answered = pool?.answered;
    const body = CreateUserBody.parse({ email: "here@example.test", accessRoles: [tenant.memberRoleId] });
    const created = await createUser(auth, body, { notifyEmail: false, notes: new Notes() });
    expect(pool?.answered).toBe(answered);
    expect(await User.collection.countDocuments({ _id: oid(created._id) })).toBe(1);
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
    const users = await offThread("userPage", readWrittenUserPage, { ...pageOf(tenant.companyId), key: "modifiedAt" });
    expect(users.positions.map((at) => at.id).sort()).toEqual([tenant.adminId, tenant.memberId].sort());
  });
});
