/**
 * GET /v2/surveys/export (docs/api.md#export): every match of the list's filters streamed as CSV or
 * NDJSON, the Admin rule, bad parameters, and nothing of another company.
 */
import { oid } from "@/lib/kernel/ids";
import { SURVEY_COLUMNS } from "@/lib/resources/surveys/columns";
import { SurveyRecord } from "@/lib/resources/surveys/contract";
import { newDoc, Survey } from "@/lib/resources/surveys/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { csvRows, downloader } from "@/lib/tools/testing/export";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as survey from "./[id]/route";
import * as exported from "./export/route";
import * as surveys from "./route";

describe("GET /v2/surveys/export", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  const ids: Record<string, string> = {};

  async function create(tenant: Tenant, body: Record<string, unknown>): Promise<string> {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: tenant.adminToken,
      admin: true,
      body: { version: 1, ...body },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response, SurveyRecord)._id;
  }

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Surveys export"), createTenant("Surveys export other")]);
    ids.onboarding = await create(t, {
      code: "onboarding",
      name: 'Welcome, "new" colleagues — ñandú',
      permissions: [t.memberRoleId, t.adminRoleId],
    });
    ids.formula = await create(t, { code: "formula", name: "=1+1 @home", group: "HR" });
    ids.retired = await create(t, { code: "retired", name: "Old survey", isActive: false });
    ids.theirs = await create(other, { code: "onboarding", name: "Their onboarding" });
  });

  const download = downloader(exported.GET, "/v2/surveys/export");

  it("streams the company's surveys as CSV, newest first, with the list's filters", async () => {
    const response = await download(t);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="surveys-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(response.headers.get("x-total-count")).toBe("2");
    expect(response.text.split("\r\n")[0]).toBe(SURVEY_COLUMNS.join(","));
    const rows = csvRows(response.text);
    expect(rows.map((row) => row.code)).toEqual(["formula", "onboarding"]);
    expect(rows[1]).toMatchObject({
      _id: ids.onboarding,
      name: 'Welcome, "new" colleagues — ñandú',
      version: "1",
      isActive: "true",
      group: "",
      permissions: "Member;Admin",
      responders: "0",
      __v: "0",
    });
    expect(response.text).toContain("'=1+1 @home");
    expect(rows[0]).toMatchObject({ name: "=1+1 @home", group: "HR", permissions: "" });

    expect(csvRows((await download(t, "?isActive=all")).text).map((row) => row.code)).toEqual([
      "retired",
      "formula",
      "onboarding",
    ]);
    expect(csvRows((await download(t, "?isActive=false")).text).map((row) => row.code)).toEqual(["retired"]);
    expect(csvRows((await download(t, "?search=onb")).text).map((row) => row._id)).toEqual([ids.onboarding]);
  });

  it("streams NDJSON: one survey per line, as a read by id answers it", async () => {
    const response = await download(t, "?format=ndjson&isActive=all");
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const records = response.text
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as SurveyRecord);
    expect(records.map((record) => record.code)).toEqual(["retired", "formula", "onboarding"]);
    for (const record of records) {
      const read = await call(survey.GET, `/v2/surveys/${record._id}`, {
        token: t.adminToken,
        admin: true,
        params: { id: record._id },
      });
      expect(record).toEqual(read.body);
    }
  });

  it("streams every survey of a set larger than a batch, each once", async () => {
    const company = oid(other.companyId);
    const at = new Date("2026-02-01T00:00:00.000Z");
    await Survey.collection.insertMany(
      Array.from({ length: 2100 }, (_, i) =>
        newDoc({ code: `bulk_${i}`, name: `Bulk ${i}`, version: 1, company, createdAt: at }),
      ),
    );
    const rows = csvRows((await download(other, "?search=bulk")).text);
    expect(rows).toHaveLength(2100);
    expect(new Set(rows.map((row) => row.code)).size).toBe(2100);
  });

  it("shows nothing of another company", async () => {
    const theirs = csvRows((await download(other, "?search=onboarding&isActive=all")).text);
    expect(theirs.map((row) => row._id)).toEqual([ids.theirs]);
    expect(theirs[0].permissions).toBe("");
    const mine = await download(t, "?format=ndjson&isActive=all");
    expect(mine.text).not.toContain(ids.theirs);
    expect(mine.text).not.toContain(other.companyId);
  });

  it("is for admins and refuses bad parameters with 400", async () => {
    const path = "/v2/surveys/export";
    expect((await call(exported.GET, path)).status).toBe(401);
    expect(failure(await call(exported.GET, path, { token: t.adminToken })).code).toBe("admin_required");
    expect(failure(await call(exported.GET, path, { token: t.memberToken, admin: true })).code).toBe("forbidden");
    for (const [query, field] of [
      ["?format=pdf", "format"],
      ["?isActive=yes", "isActive"],
      ["?answer=zzz", "answer.0"],
      ["?search[$regex]=a", "search[$regex]"],
    ]) {
      const response = await call(exported.GET, `${path}${query}`, { token: t.adminToken, admin: true });
      expect(response.status, query).toBe(400);
      const error = failure(response);
      expect(error.code).toBe("invalid_request");
      expect(error.details?.map((detail) => detail.path)).toContain(field);
    }
  });
});
