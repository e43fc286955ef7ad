import type { RouteHandler } from "@/lib/platform/http/binding";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, type CallResult, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as jobTitles from "../job-titles/route";
import * as outbox from "../outbox/route";
import * as users from "../users/route";
import * as revisions from "./[id]/revisions/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

/** Cursor paging is the same on every list: each is walked here by its own `next`. */
describe("cursor paging of every other list", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  let surveyId: string;
  const surveyIds: string[] = [];

  /** A page of any list: its records under the list's key, and `next` (docs/api.md#cursor-paging). */
  const ListPage = z.object({ data: z.looseObject({ next: z.string().nullable() }) });

  async function walk(
    handler: RouteHandler,
    path: string,
    key: string,
    options: { admin?: boolean; params?: Record<string, string>; token?: string } = {},
  ) {
    const records: Record<string, unknown>[] = [];
    let target: string | null = path;
    for (let page = 0; target !== null; page++) {
      expect(page).toBeLessThan(50);
      const response: CallResult = await call(handler, target, {
        token: options.token ?? t.adminToken,
        admin: options.admin,
        params: options.params,
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const { data } = success(response, ListPage);
      records.push(...z.array(z.record(z.string(), z.unknown())).parse(data[key]));
      const next = data.next;
      target = next === null ? null : /^<([^>]+)>; rel="next"$/.exec(response.headers.get("link")!)![1];
    }
    return records;
  }

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Cursor lists"), createTenant("Cursor lists other")]);
    for (let i = 0; i < 11; i++) {
      const created = await call(surveys.POST, "/v2/surveys", {
        token: t.adminToken,
        admin: true,
        body: { code: `walk_${i}`, name: `Walk ${i}`, version: 1 },
      });
      surveyIds.push(success(created)._id);
      await call(jobTitles.POST, "/v2/job-titles", {
        token: t.adminToken,
        admin: true,
        body: { name: `Title ${String(i).padStart(2, "0")}` },
      });
      await call(users.POST, "/v2/users?notifyEmail=true", {
        token: t.adminToken,
        admin: true,
        body: { email: `mail${i}@acme.io`, accessRoles: [t.memberRoleId] },
      });
    }
    surveyId = surveyIds[0];
    for (let i = 0; i < 8; i++) {
      await call(survey.PATCH, `/v2/surveys/${surveyId}`, {
        method: "PATCH",
        token: t.adminToken,
        admin: true,
        body: { name: `Walk 0 v${i}` },
        params: { id: surveyId },
      });
    }
  });

  it("surveys: each once, newest first, also with select leaving modifiedAt out", async () => {
    const all = await walk(surveys.GET, "/v2/surveys?limit=3", "surveys");
    expect(all.map((s) => s._id).sort()).toEqual([...surveyIds].sort());
    const stamps = all.map((s) => s.modifiedAt);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const selected = await walk(surveys.GET, "/v2/surveys?limit=4&select=code", "surveys");
    expect(selected.map((s) => s._id)).toEqual(all.map((s) => s._id));
    expect(Object.keys(selected[0]).sort()).toEqual(["_id", "code"]);
  });

  it("revisions: each version once, newest first", async () => {
    const all = await walk(revisions.GET, `/v2/surveys/${surveyId}/revisions?limit=2`, "revisions", {
      admin: true,
      params: { id: surveyId },
    });
    expect(all.map((r) => r.__v)).toEqual([8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it("a revisions cursor of one survey is no cursor of another survey's revisions", async () => {
    const first = await call(revisions.GET, `/v2/surveys/${surveyId}/revisions?limit=2`, {
      token: t.adminToken,
      admin: true,
      params: { id: surveyId },
    });
    const otherId = surveyIds[1];
    const response = await call(
      revisions.GET,
      `/v2/surveys/${otherId}/revisions?limit=2&cursor=${success(first).data.next}`,
      { token: t.adminToken, admin: true, params: { id: otherId } },
    );
    expect(response.status).toBe(400);
    expect(failure(response).code).toBe("invalid_request");
  });

  it("outbox: each mail once, newest first", async () => {
    const all = await walk(outbox.GET, "/v2/outbox?limit=4", "mails", { admin: true });
    expect(all.map((m) => m.to)).toEqual(Array.from({ length: 11 }, (_, i) => `mail${10 - i}@acme.io`));
  });

  it("reference lists: each once, by name; a job titles cursor is refused by another company", async () => {
    const all = await walk(jobTitles.GET, "/v2/job-titles?limit=3", "jobTitles");
    expect(all.map((j) => j.name)).toEqual(Array.from({ length: 11 }, (_, i) => `Title ${String(i).padStart(2, "0")}`));
    const first = await call(jobTitles.GET, "/v2/job-titles?limit=3", { token: t.adminToken });
    const stolen = await call(jobTitles.GET, `/v2/job-titles?limit=3&cursor=${success(first).data.next}`, {
      token: other.adminToken,
    });
    expect(stolen.status).toBe(400);
    expect(JSON.stringify(stolen.body)).not.toContain("Title");
    const both = await call(jobTitles.GET, `/v2/job-titles?limit=3&page=1&cursor=${success(first).data.next}`, {
      token: t.adminToken,
    });
    expect(both.status).toBe(400);
  });
});
