/**
 * The orders of GET /v2/users (docs/api.md#sorting): each `sort` in both directions, by page
 * and by cursor across ties, bound to its order, within the company, and refused when unknown.
 */
import { oid } from "@/lib/kernel/ids";
import type { UserRecord } from "@/lib/resources/users/contract";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as apiKeys from "../api-keys/route";
import * as user from "./[id]/route";
import * as users from "./route";

const NAMES = [
  "Zoë Adams",
  "ábel Brown",
  "Abel Carter",
  "bruno Díaz",
  "Álvaro Evans",
  "Chloé Fox",
  "carla Gray",
  "Bruno Hill",
];

describe("sorting GET /v2/users", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  const ids: string[] = [];

  const list = (query: string, token = t.adminToken) => call(users.GET, `/v2/users?isActive=all&${query}`, { token });
  const listed = async (query: string) => {
    const response = await list(query);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return success(response).data.users as UserRecord[];
  };
  /** Every record of a walk by cursor from `query`. */
  async function walk(query: string): Promise<UserRecord[]> {
    const seen: UserRecord[] = [];
    let next: string | null = null;
    do {
      const response = await list(`${query}${next ? `&cursor=${encodeURIComponent(next)}` : ""}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      seen.push(...success(response).data.users);
      next = success(response).data.next;
      expect(seen.length).toBeLessThan(100);
    } while (next);
    return seen;
  }
  const fold = (text: string) =>
    text
      .normalize("NFD")
      .replace(/\p{M}+/gu, "")
      .toLowerCase();
  const shown = (u: UserRecord) => fold(u.name?.displayName || u.email);
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Sorting users"), createTenant("Sorting others")]);
    for (const [i, displayName] of NAMES.entries()) {
      const [names, lastName] = displayName.split(" ");
      const response = await call(users.POST, "/v2/users", {
        token: t.adminToken,
        admin: true,
        body: {
          email: `${["Q", "b", "k", "A", "m", "x", "C", "h"][i]}${i}@sort.test`,
          accessRoles: [t.memberRoleId],
          name: { displayName, names, lastName, secondLastName: "" },
        },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      ids.push(success(response)._id);
    }
    // Ties on every key but _id: three users with one name and one creation time.
    await User.updateMany(
      { _id: { $in: ids.slice(5, 8).map(oid) } },
      {
        $set: {
          "name.displayName": "Same Name",
          nameSort: "same name",
          createdAt: new Date("2026-01-01T00:00:00.000Z"),
        },
      },
    );
    // Another company's users interleave with every order and must never show.
    await call(users.POST, "/v2/users", {
      token: other.adminToken,
      admin: true,
      body: {
        email: "aaa@other.test",
        accessRoles: [other.memberRoleId],
        name: { displayName: "Aaron", names: "Aaron", lastName: "A", secondLastName: "" },
      },
    });
  });

  it("sorts by name case- and accent-insensitively, both ways, _id breaking ties in the same direction", async () => {
    const asc = await listed("sort=name&orderBy=asc&limit=100");
    expect(asc.length).toBe(NAMES.length + 2);
    const keyed = asc.map((u) => [shown(u), u._id] as const);
    const sorted = [...keyed].sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));
    expect(keyed).toEqual(sorted);
    // The admin and the member have no name: their e-mails (admin@…, member@…) sort among the names.
    expect(asc.map((u) => u.name?.displayName ?? u.email.split("@")[0])).toEqual([
      "ábel Brown",
      "Abel Carter",
      "admin",
      "Álvaro Evans",
      "bruno Díaz",
      "member",
      "Same Name",
      "Same Name",
      "Same Name",
      "Zoë Adams",
    ]);
    const desc = await listed("sort=name&orderBy=desc&limit=100");
    expect(desc.map((u) => u._id)).toEqual(asc.map((u) => u._id).reverse());
  });

  it("sorts by e-mail (stored lowercase) and by creation, both ways", async () => {
    const byEmail = await listed("sort=email&orderBy=asc&limit=100");
    const emails = byEmail.map((u) => u.email);
    expect(emails).toEqual([...emails].sort());
    expect(emails[0]).toBe("a3@sort.test");
    expect((await listed("sort=email&orderBy=desc&limit=100")).map((u) => u.email)).toEqual([...emails].reverse());

    const byCreation = await listed("sort=createdAt&orderBy=asc&limit=100");
    const keys = byCreation.map((u) => `${u.createdAt}|${u._id}`);
    expect(keys).toEqual([...keys].sort());
    expect((await listed("sort=createdAt&limit=100")).map((u) => u._id)).toEqual(
      byCreation.map((u) => u._id).reverse(),
    );
  });

  it("walks every order by cursor and by page without repeating or skipping, across ties", async () => {
    for (const sort of ["name", "email", "createdAt", "modifiedAt"]) {
      for (const orderBy of ["asc", "desc"]) {
        const whole = (await listed(`sort=${sort}&orderBy=${orderBy}&limit=100`)).map((u) => u._id);
        const byCursor = (await walk(`sort=${sort}&orderBy=${orderBy}&limit=2`)).map((u) => u._id);
        expect(byCursor, `${sort} ${orderBy}`).toEqual(whole);
        const byPage: string[] = [];
        for (let page = 1; page <= 4; page++)
          byPage.push(...(await listed(`sort=${sort}&orderBy=${orderBy}&limit=3&page=${page}`)).map((u) => u._id));
        expect(byPage, `${sort} ${orderBy}`).toEqual(whole);
      }
    }
  });

  it("a cursor belongs to its order: another sort or orderBy refuses it", async () => {
    const next = success(await list("sort=name&orderBy=asc&limit=2")).data.next!;
    for (const query of ["sort=email&orderBy=asc", "sort=name&orderBy=desc", "orderBy=asc"]) {
      const response = await list(`${query}&limit=2&cursor=${encodeURIComponent(next)}`);
      expect(response.status, query).toBe(400);
      expect(failure(response).details).toEqual([
        { path: "cursor", message: expect.stringContaining("not a cursor of this list") },
      ]);
    }
  });

  it("follows a rename: the new name sorts where it belongs", async () => {
    const target = ids[0];
    const patched = await call(user.PATCH, `/v2/users/${target}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      params: { id: target },
      body: { name: { displayName: "AAAA first" } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await listed("sort=name&orderBy=asc&limit=1"))[0]._id).toBe(target);
    expect((await User.findById(oid(target)).lean())?.nameSort).toBe("aaaa first");
  });

  it("keeps to the company: another company's users never show in any order", async () => {
    for (const sort of ["name", "email", "createdAt"]) {
      const seen = await listed(`sort=${sort}&orderBy=asc&limit=100`);
      expect(seen.every((u) => u.companies.every((entry) => entry.companyId === t.companyId))).toBe(true);
      expect(seen.map((u) => u.email)).not.toContain("aaa@other.test");
    }
  });

  it("a key with users:read sorts; one without it is refused", async () => {
    const make = async (scopes: string[]) =>
      success(
        await call(apiKeys.POST, "/v2/api-keys", {
          token: t.adminToken,
          admin: true,
          body: { name: `Sorter ${scopes.join(" ")}`, scopes },
        }),
      ).key!;
    const reader = await make(["users:read"]);
    expect((await list("sort=email&orderBy=asc", reader)).status).toBe(200);
    const writerOnly = await make(["surveys:read"]);
    const refused = await list("sort=email&orderBy=asc", writerOnly);
    expect(refused.status).toBe(403);
    expect(failure(refused).code).toBe("insufficient_scope");
  });

  it("refuses hostile orders with 400 naming the parameter", async () => {
    for (const query of [
      "sort=nameSort",
      "sort=password",
      "sort=$natural",
      "sort=name&sort=email",
      "sort=",
      "orderBy=1",
      "orderBy=ASC",
      "sort[$ne]=x",
    ]) {
      const response = await list(query);
      expect(response.status, query).toBe(400);
      expect(failure(response).code, query).toBe("invalid_request");
      expect(failure(response).details?.[0].path, query).toMatch(/^(sort|orderBy)/);
    }
  });
});
