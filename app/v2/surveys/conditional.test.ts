import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("ETags and preconditions of surveys", () => {
  useTestDatabase();
  let t: Tenant;
  let n = 0;

  beforeAll(async () => {
    t = await createTenant("Conditional surveys");
  });

  async function create(): Promise<{ body: SurveyRecord; etag: string }> {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: { code: `tag_${++n}`, name: `Tagged ${n}`, version: 1 },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return { body: success(response), etag: response.headers.get("etag")! };
  }

  const read = (id: string, headers: Record<string, string> = {}, query = "") =>
    call(survey.GET, `/v2/surveys/${id}${query}`, { token: t.adminToken, admin: true, params: { id }, headers });
  const patch = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call(survey.PATCH, `/v2/surveys/${id}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      body,
      params: { id },
      headers,
    });

  it("tags create, read and PATCH; the tag moves with each write and only then", async () => {
    const { body, etag } = await create();
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await read(body._id)).headers.get("etag")).toBe(etag);
    expect((await read(body._id)).headers.get("etag")).toBe(etag);
    const changed = await patch(body._id, { name: "Renamed" });
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect((await read(body._id)).headers.get("etag")).toBe(changed.headers.get("etag"));
  });

  it("answers If-None-Match with 304 and no body while the survey is unchanged", async () => {
    const { body, etag } = await create();
    const cached = await read(body._id, { "if-none-match": etag });
    expect(cached.status).toBe(304);
    expect(cached.body).toBeUndefined();
    expect(cached.headers.get("etag")).toBe(etag);
    await patch(body._id, { isActive: false });
    expect((await read(body._id, { "if-none-match": etag })).status).toBe(200);
  });

  it("gives a read with populate=true a weak tag of its own, which If-Match never accepts", async () => {
    const { body, etag } = await create();
    const populated = await read(body._id, {}, "?populate=true");
    const weak = populated.headers.get("etag")!;
    expect(weak).toMatch(/^W\/"[\w-]+"$/);
    expect((await read(body._id, { "if-none-match": weak }, "?populate=true")).status).toBe(304);
    expect((await patch(body._id, { name: "Nope" }, { "if-match": weak })).status).toBe(412);
    expect((await patch(body._id, { name: "Yes" }, { "if-match": etag })).status).toBe(200);
  });

  it("refuses a stale If-Match with 412 precondition_failed and the current ETag, changing nothing (no revision either)", async () => {
    const { body, etag } = await create();
    const theirs = await patch(body._id, { name: "Theirs" });
    const mine = await patch(body._id, { name: "Mine", version: 2 }, { "if-match": etag });
    expect(mine.status).toBe(412);
    expect(failure(mine).code).toBe("precondition_failed");
    expect(mine.headers.get("etag")).toBe(theirs.headers.get("etag"));
    const stored = await read(body._id);
    expect(stored.body).toMatchObject({ name: "Theirs", version: 1, __v: 1 });
  });

  it("lets one of concurrent PATCHes with the same If-Match through; `*` and no If-Match apply as before", async () => {
    const { body, etag } = await create();
    const answers = await Promise.all(
      ["A", "B", "C", "D"].map((name) => patch(body._id, { name }, { "if-match": etag })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412, 412, 412]);
    const stored = await read(body._id);
    expect(success(stored).__v).toBe(1);
    expect(success(stored).name).toBe(success(answers.find((answer) => answer.status === 200)!).name);

    const starred = await Promise.all(["E", "F"].map((name) => patch(body._id, { name }, { "if-match": "*" })));
    expect(starred.map((answer) => answer.status)).toEqual([200, 200]);
    expect(success(await read(body._id)).__v).toBe(3);
  });
});
