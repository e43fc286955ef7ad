import { oid } from "@/lib/kernel/ids";
import type { UserRecord } from "@/lib/resources/users/contract";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import mongoose from "mongoose";
import { beforeAll, describe, expect, it } from "vitest";
import * as surveys from "../surveys/route";
import * as user from "./[id]/route";
import * as users from "./route";

describe("cursor paging of GET /v2/users", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  const ids: string[] = [];

  const list = (query: string, token = t.adminToken) => call(users.GET, `/v2/users?${query}`, { token });
  const patch = (id: string, body: Record<string, unknown>) =>
    call(user.PATCH, `/v2/users/${id}`, { method: "PATCH", token: t.adminToken, admin: true, body, params: { id } });

  /** Every page of a walk from `query`, following `next`; asserts each page's Link header. */
  async function walk(query: string, between?: (page: number) => Promise<void>): Promise<UserRecord[][]> {
    const pages: UserRecord[][] = [];
    let response = await list(query);
    for (let page = 1; ; page++) {
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      pages.push(success(response).data.users);
      const next = success(response).data.next as string | null;
      if (next === null) {
        expect(response.headers.get("link")).toBeNull();
        return pages;
      }
      const link = response.headers.get("link")!;
      const target = /^<([^>]+)>; rel="next"$/.exec(link)![1];
      expect(new URL(target, "http://localhost").searchParams.get("cursor")).toBe(next);
      expect(new URL(target, "http://localhost").searchParams.has("page")).toBe(false);
      await between?.(page);
      response = await call(users.GET, target, { token: t.adminToken });
      expect(pages.length).toBeLessThan(100);
    }
  }

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Cursor users"), createTenant("Cursor others")]);
    for (let i = 0; i < 23; i++) {
      const response = await call(users.POST, "/v2/users", {
        token: t.adminToken,
        admin: true,
        body: { email: `walker${i}@acme.io`, accessRoles: [t.memberRoleId] },
      });
      ids.push(success(response)._id);
    }
    // Ties on the sort key: only `_id` tells these apart.
    await User.updateMany(
      { _id: { $in: ids.slice(5, 15).map(oid) } },
      { $set: { modifiedAt: new Date("2026-01-01T00:00:00.000Z") } },
    );
  });

  it("walks every user exactly once, newest first, with next null after the last page", async () => {
    const pages = await walk("limit=4&isActive=all");
    const seen = pages.flat().map((u) => u._id);
    expect(seen.length).toBe(25);
    expect(new Set(seen).size).toBe(25);
    expect(new Set(seen)).toEqual(new Set([...ids, t.adminId, t.memberId]));
    expect(pages.slice(0, -1).every((page) => page.length === 4)).toBe(true);
    const keys = pages.flat().map((u) => `${u.modifiedAt}|${u._id}`);
    expect([...keys].sort().reverse()).toEqual(keys);
  });

  it("gives the same records by page and by cursor, and a page answer the next cursor too", async () => {
    const byPage = [];
    for (let page = 1; page <= 7; page++)
      byPage.push(...success(await list(`limit=4&page=${page}`)).data.users.map((u) => u._id));
    const byCursor = (await walk("limit=4")).flat().map((u) => u._id);
    expect(byCursor).toEqual(byPage);
    const second = await list("limit=4&page=2");
    expect(success(second).data.page).toBe(2);
    const third = await list(`limit=4&cursor=${encodeURIComponent(success(second).data.next!)}`);
    expect(success(third).data.page).toBeUndefined();
    expect(success(third).data.users.map((u) => u._id)).toEqual(byPage.slice(8, 12));
  });

  it("with orderBy=asc returns a user changed during the walk again, after its change", async () => {
    const changed: string[] = [];
    const pages = await walk("limit=5&orderBy=asc", async (page) => {
      if (page !== 2) return;
      // One already returned, one not yet reached.
      const seen = success(await list("limit=10&orderBy=asc")).data.users.map((u) => u._id);
      changed.push(seen[0], seen[9] ?? seen[seen.length - 1]);
      for (const id of changed) expect((await patch(id, { phone: `+34 ${id.slice(-6)}` })).status).toBe(200);
    });
    const seen = pages.flat();
    const all = new Set(seen.map((u) => u._id));
    expect(all.size).toBe(25);
    const first = seen.findIndex((u) => u._id === changed[0]);
    const last = seen.map((u) => u._id).lastIndexOf(changed[0]);
    expect(last).toBeGreaterThan(first);
    expect(seen[last].phone).toBe(`+34 ${changed[0].slice(-6)}`);
    expect(seen.filter((u) => u._id === changed[1]).at(-1)!.phone).toBe(`+34 ${changed[1].slice(-6)}`);
    const stamps = seen.map((u) => u.modifiedAt);
    expect([...stamps].sort()).toEqual(stamps);
  });

  it("refuses page with cursor, and a forged, truncated, altered or other list's cursor, with 400 invalid_request", async () => {
    const next = success(await list("limit=2")).data.next as string;
    const [payload, mac] = next.split(".");
    const forged = Buffer.from(JSON.stringify([Date.now(), "0".repeat(24)])).toString("base64url");
    const surveyCursor = success(await call(surveys.GET, "/v2/surveys?limit=1", { token: t.adminToken })).data.next;
    const cases = [
      `limit=2&page=2&cursor=${next}`,
      `limit=2&cursor=${next.slice(0, -3)}`,
      `limit=2&cursor=${payload}`,
      `limit=2&cursor=${forged}.${mac}`,
      `limit=2&cursor=${payload.slice(0, -2)}.${mac}`,
      `limit=2&cursor=${encodeURIComponent("not a cursor")}`,
      `limit=2&cursor=${"A".repeat(3000)}`,
      `limit=2&cursor=`,
      `limit=2&isActive=all&cursor=${next}`,
      `limit=2&orderBy=asc&cursor=${next}`,
      `limit=2&search=walker&cursor=${next}`,
      ...(surveyCursor ? [`limit=2&cursor=${surveyCursor}`] : []),
    ];
    for (const query of cases) {
      const response = await list(query);
      expect(response.status, query).toBe(400);
      expect(failure(response).code, query).toBe("invalid_request");
      expect(
        failure(response).details?.map((d) => d.path),
        query,
      ).toContain("cursor");
    }
    // Another page size is the same list.
    expect((await list(`limit=3&cursor=${next}`)).status).toBe(200);
  });

  it("never shows a company another's users through a cursor", async () => {
    const next = success(await list("limit=2")).data.next as string;
    const response = await list(`limit=2&cursor=${next}`, other.adminToken);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).not.toContain("walker");
  });

  it("reads as much for a deep page by cursor as for the first", async () => {
    const scanned = async () =>
      (await mongoose.connection.db!.admin().command({ serverStatus: 1 })).metrics.queryExecutor
        .scannedObjects as number;
    // The counter is the server's: a write left running by an earlier request (the last-request
    // stamp) may land inside one measurement, never take from it, so the least of three is the read's own.
    const cost = async (query: string) => {
      let read = Infinity;
      let next = "";
      for (let attempt = 0; attempt < 3; attempt++) {
        const before = await scanned();
        const response = await list(query);
        expect(response.status).toBe(200);
        read = Math.min(read, (await scanned()) - before);
        next = success(response).data.next as string;
      }
      return { read, next };
    };
    // Oldest first: the users sharing one modifiedAt come first, and the deep page lies past them
    // (a cursor inside a run of equal sort values also reads past the run's records before it).
    const first = await cost("limit=2&orderBy=asc");
    let next = first.next;
    for (let page = 2; page < 11; page++) next = success(await list(`limit=2&orderBy=asc&cursor=${next}`)).data.next!;
    const deep = await cost(`limit=2&orderBy=asc&cursor=${next}`);
    const deepByPage = await cost("limit=2&orderBy=asc&page=11");
    // The one extra is the cursor's own record, where the range on modifiedAt starts.
    expect(deep.read).toBeLessThanOrEqual(first.read + 1);
    expect(deepByPage.read).toBeGreaterThan(deep.read + 10);
  });
});
