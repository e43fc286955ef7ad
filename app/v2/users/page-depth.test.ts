import { MAX_PAGE_DEPTH } from "@/lib/base/schemas/common";
import { newId, oid } from "@/lib/kernel/ids";
import type { RouteHandler } from "@/lib/platform/http/binding";
import { JobTitle } from "@/lib/resources/reference/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, type CallResult, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as jobTitles from "../job-titles/route";
import * as surveys from "../surveys/route";
import * as users from "./route";

/** A page by number reaches at most MAX_PAGE_DEPTH records deep; the cursor goes on (docs/api.md#paging). */
describe("the depth of a page by number", () => {
  useTestDatabase();
  let t: Tenant;

  const get = (handler: RouteHandler, path: string): Promise<CallResult> =>
    call(handler, path, { token: t.adminToken });
  /** A list answer's `data`: its page number, its `next`, and its records under `key`. */
  const ListData = z.object({ data: z.looseObject({ page: z.number().optional(), next: z.string().nullable() }) });
  const dataOf = (response: CallResult, key: string) => {
    const { data } = success(response, ListData);
    return {
      page: data.page,
      next: data.next,
      items: z.array(z.looseObject({ name: z.string().optional() })).parse(data[key]),
    };
  };

  /** The refusal of a page too deep: `400 invalid_request` naming `page`, pointing to the cursor. */
  function expectTooDeep(response: CallResult, limit: number) {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    const error = failure(response);
    expect(error.code).toBe("invalid_request");
    expect(error.details).toHaveLength(1);
    expect(error.details![0].path).toBe("page");
    expect(error.details![0].message).toContain("cursor");
    expect(error.details![0].message).toContain(`the last page by number is ${Math.floor(MAX_PAGE_DEPTH / limit)};`);
  }

  beforeAll(async () => {
    t = await createTenant("Page depth");
    // One more job title than the depth, so the last allowed page is full and a record lies beyond it.
    const at = new Date("2026-01-01T00:00:00.000Z");
    const docs = Array.from({ length: MAX_PAGE_DEPTH + 1 }, (_, i) => ({
      _id: newId(),
      company: oid(t.companyId),
      name: `Depth ${String(i).padStart(5, "0")}`,
      createdAt: at,
      modifiedAt: at,
    }));
    await JobTitle.collection.insertMany(docs);
  });

  it("users: the last page allowed at each limit is 200, the next one 400 with the pointer to the cursor", async () => {
    for (const limit of [10, 100]) {
      const last = MAX_PAGE_DEPTH / limit;
      const allowed = await get(users.GET, `/v2/users?limit=${limit}&page=${last}`);
      expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
      expect(dataOf(allowed, "users")).toMatchObject({ page: last, items: [] });
      expectTooDeep(await get(users.GET, `/v2/users?limit=${limit}&page=${last + 1}`), limit);
    }
    // The default limit (10) counts too, and filters or count=true change nothing.
    expectTooDeep(await get(users.GET, `/v2/users?page=${MAX_PAGE_DEPTH / 10 + 1}&count=true&isActive=all`), 10);
    // A limit that does not divide the depth: the page ending past it is refused.
    expect((await get(users.GET, `/v2/users?limit=7&page=${Math.floor(MAX_PAGE_DEPTH / 7)}`)).status).toBe(200);
    expectTooDeep(await get(users.GET, `/v2/users?limit=7&page=${Math.floor(MAX_PAGE_DEPTH / 7) + 1}`), 7);
  });

  it("surveys: the same depth", async () => {
    const allowed = await get(surveys.GET, `/v2/surveys?limit=100&page=100`);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(dataOf(allowed, "surveys")).toMatchObject({ page: 100, items: [] });
    expectTooDeep(await get(surveys.GET, `/v2/surveys?limit=100&page=101`), 100);
    expectTooDeep(await get(surveys.GET, `/v2/surveys?page=1001`), 10);
  });

  it("job titles: the last allowed page holds records 9,001–10,000; the next is 400, and the cursor of the last reaches the record beyond", async () => {
    const allowed = await get(jobTitles.GET, `/v2/job-titles?limit=1000&page=10`);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    const page = dataOf(allowed, "jobTitles");
    expect(page.items).toHaveLength(1000);
    expect(page.items[0].name).toBe("Depth 09000");
    expect(page.items.at(-1)!.name).toBe(`Depth ${String(MAX_PAGE_DEPTH - 1).padStart(5, "0")}`);
    expectTooDeep(await get(jobTitles.GET, `/v2/job-titles?limit=1000&page=11`), 1000);
    const beyond = await get(jobTitles.GET, `/v2/job-titles?limit=1000&cursor=${encodeURIComponent(page.next!)}`);
    expect(beyond.status, JSON.stringify(beyond.body)).toBe(200);
    expect(dataOf(beyond, "jobTitles").items.map((j) => j.name)).toEqual([`Depth ${MAX_PAGE_DEPTH}`]);
  });
});
