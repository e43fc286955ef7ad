/**
 * Surveys stored without `nameLower`/`searchPrefixes` (by an earlier version, or straight into the
 * database) are found by `search` once the server has started on that database.
 */
import * as list from "@/app/v2/surveys/route";
import { oid } from "@/lib/kernel/ids";
import { Meta } from "@/lib/kernel/models";
import { backfillSurveySearch, Survey } from "@/lib/resources/surveys/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";

describe("backfill of survey search fields", () => {
  useTestDatabase();
  let t: Tenant;

  beforeAll(async () => {
    t = await createTenant("Backfill");
  });

  /** A survey as an earlier version stored it: created, then stripped of the search fields. */
  const insertOld = async (code: string, name: string) => {
    const created = await call(list.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: { code, name, version: 2 },
    });
    expect(created.status).toBe(201);
    await Survey.collection.updateOne(
      { _id: oid(success(created)._id) },
      { $unset: { nameLower: "", searchPrefixes: "" } },
    );
    return success(created)._id as string;
  };
  const search = async (text: string) =>
    success(await call(list.GET, `/v2/surveys?search=${encodeURIComponent(text)}&count=true`, { token: t.adminToken }))
      .data;

  it("fills every survey missing the fields once, then only reads its marker", async () => {
    const ids = [await insertOld("legacy_pulse", "Pulso Ánimo"), await insertOld("old_exit", "Exit Interview")];
    expect((await search("pulso")).counter).toBe(0);

    await Meta.deleteOne({ _id: "surveySearchPrefixes" });
    expect(await backfillSurveySearch()).toBe(2);

    const found = await search("pulso á");
    expect(found.surveys.map((s: { _id: string }) => s._id)).toEqual([ids[0]]);
    expect((await search("old_")).surveys.map((s: { _id: string }) => s._id)).toEqual([ids[1]]);
    const stored = await Survey.collection.findOne({ _id: oid(ids[0]) });
    expect(stored).toMatchObject({
      nameLower: "pulso ánimo",
      searchPrefixes: expect.arrayContaining(["l", "legacy_pulse", "pulso ánimo"]),
    });

    // The marker makes a later start skip the scan: a survey added the old way now stays as it is.
    await insertOld("later_one", "Later");
    expect(await backfillSurveySearch()).toBe(0);
    expect(await Survey.collection.findOne({ code: "later_one" })).not.toHaveProperty("searchPrefixes");
  });
});
