/**
 * GET /v2/surveys/export (docs/api.md#export): every match of the list's filters streamed as CSV or
 * NDJSON, the Admin rule, bad parameters, and nothing of another company.
 */
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { checkAnswer } from "@/lib/openapi/testing";
import { restoreCell } from "@/lib/shared/csv-cells";
import { oid } from "@/lib/server/ids";
import { newDoc, Survey } from "@/lib/surveys/repository";
import { SURVEY_COLUMNS } from "@/lib/surveys/columns";
import { call, createTenant, type Json, type Tenant } from "@/lib/testing/http";
import { useTestDatabase } from "@/lib/testing/database";
import * as exported from "./export/route";
import * as surveys from "./route";
import * as survey from "./[id]/route";

describe("GET /v2/surveys/export", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  const ids: Record<string, string> = {};

  async function create(tenant: Tenant, body: Json): Promise<string> {
    const response = await call(surveys.POST, "/v2/surveys", { token: tenant.adminToken, admin: true, body: { version: 1, ...body } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body._id;
  }

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Surveys export"), createTenant("Surveys export other")]);
    ids.onboarding = await create(t, { code: "onboarding", name: 'Welcome, "new" colleagues — ñandú', permissions: [t.memberRoleId, t.adminRoleId] });
    ids.formula = await create(t, { code: "formula", name: "=1+1 @home", group: "HR" });
    ids.retired = await create(t, { code: "retired", name: "Old survey", isActive: false });
    ids.theirs = await create(other, { code: "onboarding", name: "Their onboarding" });
  });

  async function download(tenant: Tenant, query = "", headers: Record<string, string> = { admin: "true" }) {
    const path = `/v2/surveys/export${query}`;
    const request = new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${tenant.adminToken}`, ...headers } });
    const response = await exported.GET(request, { params: Promise.resolve({}) });
    const text = await response.text();
    checkAnswer(exported.GET, { method: "GET", url: path, status: response.status, contentType: response.headers.get("content-type"), headers: response.headers, body: text });
    return { status: response.status, headers: response.headers, text };
  }

  const rowsOf = (text: string): Record<string, string>[] =>
    (parse(text, { columns: true }) as Record<string, string>[]).map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, restoreCell(value)])));

  it("streams the company's surveys as CSV, newest first, with the list's filters", async () => {
    const response = await download(t);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="surveys-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers.get("x-total-count")).toBe("2");
    expect(response.text.split("\r\n")[0]).toBe(SURVEY_COLUMNS.join(","));
    const rows = rowsOf(response.text);
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

    expect(rowsOf((await download(t, "?isActive=all")).text).map((row) => row.code)).toEqual(["retired", "formula", "onboarding"]);
    expect(rowsOf((await download(t, "?isActive=false")).text).map((row) => row.code)).toEqual(["retired"]);
    expect(rowsOf((await download(t, "?search=onb")).text).map((row) => row._id)).toEqual([ids.onboarding]);
  });

  it("streams NDJSON: one survey per line, as a read by id answers it", async () => {
    const response = await download(t, "?format=ndjson&isActive=all");
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    const records = response.text.trimEnd().split("\n").map((line) => JSON.parse(line) as Json);
    expect(records.map((record) => record.code)).toEqual(["retired", "formula", "onboarding"]);
    for (const record of records) {
      const read = await call(survey.GET, `/v2/surveys/${record._id}`, { token: t.adminToken, admin: true, params: { id: record._id } });
      expect(record).toEqual(read.body);
    }
  });

  it("streams every survey of a set larger than a batch, each once", async () => {
    const company = oid(other.companyId);
    const at = new Date("2026-02-01T00:00:00.000Z");
    await Survey.collection.insertMany(Array.from({ length: 2100 }, (_, i) => newDoc({ code: `bulk_${i}`, name: `Bulk ${i}`, version: 1, company, createdAt: at })));
    const rows = rowsOf((await download(other, "?search=bulk")).text);
    expect(rows).toHaveLength(2100);
    expect(new Set(rows.map((row) => row.code)).size).toBe(2100);
  });

  it("shows nothing of another company", async () => {
    const theirs = rowsOf((await download(other, "?search=onboarding&isActive=all")).text);
    expect(theirs.map((row) => row._id)).toEqual([ids.theirs]);
    expect(theirs[0].permissions).toBe("");
    const mine = await download(t, "?format=ndjson&isActive=all");
    expect(mine.text).not.toContain(ids.theirs);
    expect(mine.text).not.toContain(other.companyId);
  });

  it("is for admins and refuses bad parameters with 400", async () => {
    const path = "/v2/surveys/export";
    expect((await call(exported.GET, path)).status).toBe(401);
    expect((await call(exported.GET, path, { token: t.adminToken })).body.error.code).toBe("admin_required");
    expect((await call(exported.GET, path, { token: t.memberToken, admin: true })).body.error.code).toBe("forbidden");
    for (const [query, field] of [["?format=pdf", "format"], ["?isActive=yes", "isActive"], ["?answer=zzz", "answer.0"], ["?search[$regex]=a", "search[$regex]"]]) {
      const response = await call(exported.GET, `${path}${query}`, { token: t.adminToken, admin: true });
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
      expect(response.body.error.details.map((detail: Json) => detail.path)).toContain(field);
    }
  });
});
