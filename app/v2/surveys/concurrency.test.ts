/** Concurrent creates and PATCHes of one survey (docs/api.md#updating-a-survey). */
import { oid } from "@/lib/kernel/ids";
import { SurveyRevision } from "@/lib/resources/surveys/parts";
import { Survey } from "@/lib/resources/surveys/repository";
import { allowSlowDatabase, useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as revisions from "./[id]/revisions/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

// Fifty writers of one record retry each other's write conflicts: on two busy cores that can
// take far longer than the default timeout and the request's deadline. The tests hold
// correctness; speed is a benchmark's.
describe("concurrent PATCH /v2/surveys/{id}", { timeout: 120_000 }, () => {
  useTestDatabase();
  allowSlowDatabase();
  let t: Tenant;
  const roles: string[] = [];
  let n = 0;

  async function create(body: Record<string, unknown> = {}) {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: { code: `concurrent_${++n}`, name: `Survey ${n}`, version: 1, ...body },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response);
  }

  const patch = (id: string, body: unknown) =>
    call(survey.PATCH, `/v2/surveys/${id}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      body,
      params: { id },
    });

  beforeAll(async () => {
    t = await createTenant("Surveys concurrency");
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(accessRoles.POST, "/v2/access-roles", {
          token: t.adminToken,
          admin: true,
          body: { name: `Concurrent ${i}` },
        }),
      ),
    );
    roles.push(...created.map((response) => success(response)._id as string));
  });

  it("50 concurrent PATCHes: __v rises by exactly 50, no change is lost", async () => {
    const before = await create();
    const ids = roles.map((_, i) => i);
    // Each PATCH adds its own access role and renames the survey.
    const responses = await Promise.all(
      ids.map((i) => patch(before._id, { permissions: roles[i], name: `Name ${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual(ids.map(() => 200));
    expect(responses.map((r) => success(r).__v).sort((a, b) => a - b)).toEqual(ids.map((i) => i + 1));

    const final = success(
      await call(survey.GET, `/v2/surveys/${before._id}`, {
        token: t.adminToken,
        admin: true,
        params: { id: before._id },
      }),
    );
    expect(final.__v).toBe(50);
    expect([...final.permissions].sort()).toEqual([...roles].sort());

    const list = await call(revisions.GET, `/v2/surveys/${before._id}/revisions?limit=100&count=true`, {
      token: t.adminToken,
      admin: true,
      params: { id: before._id },
    });
    expect(success(list).data.counter).toBe(51);
    const history = success(list).data.revisions;
    expect(history.map((r) => r.__v)).toEqual(Array.from({ length: 51 }, (_, i) => 50 - i));
    // Each PATCH's name is in its own revision, and revision k holds the k roles added so far.
    expect(new Set(history.slice(0, 50).map((r) => r.snapshot.name))).toEqual(new Set(ids.map((i) => `Name ${i}`)));
    for (const revision of history) expect(revision.snapshot.permissions).toHaveLength(revision.__v);
    expect(history[0].snapshot).toEqual(final);
    const stamps = history.map((r) => Date.parse(r.snapshot.modifiedAt));
    for (let i = 1; i < stamps.length; i++) expect(stamps[i - 1]).toBeGreaterThan(stamps[i]);
  });

  it("concurrent version changes and other PATCHes: each applies once", async () => {
    const before = await create({ permissions: [roles[0]] });
    const bodies = Array.from({ length: 20 }, (_, i) =>
      i % 4 === 0 ? { version: i % 8 === 0 ? 2 : 1 } : { permissions: roles[i] },
    );
    const responses = await Promise.all(bodies.map((body) => patch(before._id, body)));
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 200));
    const stored = await Survey.findById(before._id).lean();
    expect(stored?.__v).toBe(20);
    const history = await SurveyRevision.find({ survey: oid(before._id) }, { __v: 1 })
      .sort({ __v: 1 })
      .lean();
    expect(history.map((revision) => revision.__v)).toEqual(Array.from({ length: 21 }, (_, i) => i));
    // Each PATCH's change is in the survey it answered, which is its own revision. (A role added to
    // the dormant version 1 list may be dropped by a later 2 → 1 migration, which derives that list
    // from permissionsV2: see lib/base/shared/survey-permissions.ts.)
    bodies.forEach((body, i) => {
      const answered = success(responses[i]);
      if ("permissions" in body) expect(answered.permissions).toContain(body.permissions);
      else expect(answered.version).toBe(body.version);
    });
  });
});
