/**
 * A PATCH whose revision cannot be written (the database refuses it, as a crash between the two
 * writes would): the survey update, its revision and its event are one transaction, so nothing is
 * changed. A survey left by an earlier version with a missed revision still gets it back
 * (lib/resources/surveys/repository.ts, sealRevisions). The database's `failCommand` fail point makes the
 * revision's write fail.
 */
import { oid } from "@/lib/kernel/ids";
import { Event } from "@/lib/resources/events/repository";
import { SURVEY_FIELDS } from "@/lib/resources/surveys/contract";
import { SurveyRevision } from "@/lib/resources/surveys/parts";
import { KEEP_PREVIOUS } from "@/lib/resources/surveys/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as revisions from "./[id]/revisions/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("survey revisions after an interrupted PATCH", () => {
  const db = useTestDatabase({ testCommands: true });
  let t: Tenant;
  let n = 0;

  beforeAll(async () => {
    t = await createTenant("Surveys recovery");
  });

  async function create() {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: { code: `recovery_${++n}`, name: `Survey ${n}`, version: 1 },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response);
  }

  const patch = (id: string, body: Record<string, unknown>) =>
    call(survey.PATCH, `/v2/surveys/${id}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      body,
      params: { id },
    });

  /** The next write of revisions (an `update` command) fails; the survey's own update does not (`findAndModify`). */
  const failNextRevisionWrite = () =>
    db.mongoose.connection.db!.admin().command({
      configureFailPoint: "failCommand",
      mode: { times: 1 },
      data: { failCommands: ["update"], errorCode: 8 },
    });

  const storedVersions = async (id: string) =>
    (
      await SurveyRevision.find({ survey: oid(id) }, { __v: 1 })
        .sort({ __v: 1 })
        .lean()
    ).map((revision) => revision.__v);

  const listRevisions = (id: string) =>
    call(revisions.GET, `/v2/surveys/${id}/revisions?count=true`, { token: t.adminToken, admin: true, params: { id } });

  it("a PATCH whose revision cannot be written changes nothing: no update, no revision, no event", async () => {
    const created = await create();
    await failNextRevisionWrite();
    const failed = await patch(created._id, { name: "Interrupted" });
    expect(failed.status).toBe(500);
    expect(JSON.stringify(failed.body)).not.toMatch(/at .*\.ts/);
    // The update, its revision and its event are one transaction (docs/architecture.md#events).
    const stored = await db.mongoose.connection.db!.collection("surveys").findOne({ _id: oid(created._id) });
    expect(stored).toMatchObject({ name: created.name, __v: 0 });
    expect(await storedVersions(created._id)).toEqual([0]);
    expect(await Event.countDocuments({ "resource.id": created._id, type: "survey.updated" })).toBe(0);

    const next = await patch(created._id, { name: "After" });
    expect(next.status).toBe(200);
    expect(success(next).__v).toBe(1);
    expect(await storedVersions(created._id)).toEqual([0, 1]);
    expect(await Event.countDocuments({ "resource.id": created._id, type: "survey.updated" })).toBe(1);
  });

  it("listing the revisions writes one that a write of an earlier version missed", async () => {
    const created = await create();
    // As a write without a transaction left it: the survey updated, its revision not written.
    await db.mongoose.connection
      .db!.collection("surveys")
      .updateOne({ _id: oid(created._id) }, [...KEEP_PREVIOUS, { $set: { isActive: false, __v: 1 } }]);
    expect(await storedVersions(created._id)).toEqual([0]);

    const list = await listRevisions(created._id);
    expect(list.status).toBe(200);
    expect(success(list).data.counter).toBe(2);
    expect(success(list).data.revisions.map((revision) => [revision.__v, revision.snapshot.isActive])).toEqual([
      [1, false],
      [0, true],
    ]);
  });

  it("the bookkeeping fields are in no answer and no snapshot", async () => {
    const created = await create();
    const patched = await patch(created._id, { name: "Renamed" });
    const read = await call(survey.GET, `/v2/surveys/${created._id}`, {
      token: t.adminToken,
      admin: true,
      params: { id: created._id },
    });
    const list = await call(surveys.GET, "/v2/surveys", { token: t.adminToken });
    const history = success(await listRevisions(created._id)).data.revisions;
    const records = [
      created,
      success(patched),
      success(read),
      ...success(list).data.surveys,
      ...history.map((revision) => revision.snapshot),
    ];
    for (const record of records) expect(Object.keys(record).sort()).toEqual([...SURVEY_FIELDS].sort());
    // Stored, though: the state the PATCH replaced and who made the current one.
    const stored = await db.mongoose.connection.db!.collection("surveys").findOne({ _id: oid(created._id) });
    expect(stored?.previous).toMatchObject({ name: created.name, __v: 0 });
    for (const field of ["previous", "searchPrefixes", "nameLower"]) expect(stored?.previous).not.toHaveProperty(field);
    expect(stored?.revisionBy?.toHexString()).toBe(t.adminId);
  });
});
