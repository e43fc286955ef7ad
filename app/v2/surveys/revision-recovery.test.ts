/**
 * A PATCH whose survey update was written but whose revision was not (the process died, or the
 * database refused the second write): the revision is not lost (lib/surveys/repository.ts, sealRevisions).
 * The database's `failCommand` fail point makes that second write fail, as a crash between the two
 * would leave it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, type Json, type Tenant } from "@/lib/testing/http";
import { SurveyRevision } from "@/lib/surveys/parts";
import { oid } from "@/lib/server/ids";
import { SURVEY_FIELDS } from "@/lib/surveys/contract";
import { useTestDatabase } from "@/lib/testing/database";
import * as surveys from "./route";
import * as survey from "./[id]/route";
import * as revisions from "./[id]/revisions/route";

describe("survey revisions after an interrupted PATCH", () => {
  const db = useTestDatabase({ testCommands: true });
  let t: Tenant;
  let n = 0;

  beforeAll(async () => {
    t = await createTenant("Surveys recovery");
  });

  async function create(): Promise<Json> {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: { code: `recovery_${++n}`, name: `Survey ${n}`, version: 1 },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  const patch = (id: string, body: Json) =>
    call(survey.PATCH, `/v2/surveys/${id}`, { method: "PATCH", token: t.adminToken, admin: true, body, params: { id } });

  /** The next write of revisions (an `update` command) fails; the survey's own update does not (`findAndModify`). */
  const failNextRevisionWrite = () =>
    db.mongoose.connection.db!.admin().command({
      configureFailPoint: "failCommand",
      mode: { times: 1 },
      data: { failCommands: ["update"], errorCode: 8 },
    });

  const storedVersions = async (id: string) =>
    (await SurveyRevision.find({ survey: oid(id) }, { __v: 1 }).sort({ __v: 1 }).lean()).map((revision) => revision.__v);

  const listRevisions = (id: string) =>
    call(revisions.GET, `/v2/surveys/${id}/revisions?count=true`, { token: t.adminToken, admin: true, params: { id } });

  it("the next PATCH writes the revision the interrupted one missed", async () => {
    const created = await create();
    await failNextRevisionWrite();
    const failed = await patch(created._id, { name: "Interrupted" });
    expect(failed.status).toBe(500);
    expect(JSON.stringify(failed.body)).not.toMatch(/at .*\.ts/);
    // The update itself happened; its revision is missing for now.
    expect(await storedVersions(created._id)).toEqual([0]);

    const next = await patch(created._id, { name: "After" });
    expect(next.status).toBe(200);
    expect(next.body.__v).toBe(2);
    expect(await storedVersions(created._id)).toEqual([0, 1, 2]);

    const history: Json[] = (await listRevisions(created._id)).body.data.revisions;
    expect(history.map((revision) => [revision.__v, revision.snapshot.name, revision.modifiedBy])).toEqual([
      [2, "After", t.adminId],
      [1, "Interrupted", t.adminId],
      [0, created.name, t.adminId],
    ]);
    expect(history[1].createdAt).toBe(history[1].snapshot.modifiedAt);
  });

  it("listing the revisions writes the missed one too", async () => {
    const created = await create();
    await failNextRevisionWrite();
    expect((await patch(created._id, { isActive: false })).status).toBe(500);

    const list = await listRevisions(created._id);
    expect(list.status).toBe(200);
    expect(list.body.data.counter).toBe(2);
    expect(list.body.data.revisions.map((revision: Json) => [revision.__v, revision.snapshot.isActive])).toEqual([
      [1, false],
      [0, true],
    ]);
  });

  it("the bookkeeping fields are in no answer and no snapshot", async () => {
    const created = await create();
    const patched = await patch(created._id, { name: "Renamed" });
    const read = await call(survey.GET, `/v2/surveys/${created._id}`, { token: t.adminToken, admin: true, params: { id: created._id } });
    const list = await call(surveys.GET, "/v2/surveys", { token: t.adminToken });
    const history: Json[] = (await listRevisions(created._id)).body.data.revisions;
    const records = [created, patched.body, read.body, ...list.body.data.surveys, ...history.map((revision) => revision.snapshot)];
    for (const record of records) expect(Object.keys(record).sort()).toEqual([...SURVEY_FIELDS].sort());
    // Stored, though: the state the PATCH replaced and who made the current one.
    const stored = await db.mongoose.connection.db!.collection("surveys").findOne({ _id: oid(created._id) });
    expect(stored?.previous).toMatchObject({ name: created.name, __v: 0 });
    for (const field of ["previous", "searchPrefixes", "nameLower"]) expect(stored?.previous).not.toHaveProperty(field);
    expect(stored?.revisionBy?.toHexString()).toBe(t.adminId);
  });
});
