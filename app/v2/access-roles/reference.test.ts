import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, type CallResult, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as bot from "../bots/[id]/route";
import * as bots from "../bots/route";
import * as jobTitle from "../job-titles/[id]/route";
import * as jobTitles from "../job-titles/route";
import * as property from "../properties/[id]/route";
import * as properties from "../properties/route";
import * as accessRole from "./[id]/route";
import * as accessRoles from "./route";

const kinds = [
  { path: "/v2/job-titles", key: "jobTitles", list: jobTitles, one: jobTitle },
  { path: "/v2/properties", key: "properties", list: properties, one: property },
  { path: "/v2/bots", key: "bots", list: bots, one: bot },
  { path: "/v2/access-roles", key: "accessRoles", list: accessRoles, one: accessRole },
] as const;

/** The records of a page of any of these lists, which names them by its kind's key (docs/api.md#reference-data). */
const recordsOf = (response: CallResult, key: string) =>
  z
    .array(z.looseObject({ _id: z.string(), name: z.string() }))
    .parse(success(response, z.object({ data: z.record(z.string(), z.unknown()) })).data[key]);

describe("reference data", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await createTenant("Reference");
    other = await createTenant("Other reference");
  });

  describe.each(kinds)("$path", ({ path, key, list, one }) => {
    it("creates (Admin) with 201 and Location, lists by name, reads by id", async () => {
      const names = ["Zeta", "alpha", "Beta", "Ñandú"];
      for (const name of names) {
        const created = await call(list.POST, path, { token: t.adminToken, admin: true, body: { name } });
        expect(created.status).toBe(201);
        expect(created.headers.get("location")).toBe(`${path}/${success(created)._id}`);
        expect(created.body).toMatchObject({
          name,
          company: t.companyId,
          createdAt: expect.stringMatching(/Z$/),
          modifiedAt: success(created).createdAt,
        });
        if (key === "accessRoles") expect(success(created)).toHaveProperty("isAdmin", false);
        const read = await call(one.GET, `${path}/${success(created)._id}`, {
          token: t.memberToken,
          params: { id: success(created)._id },
        });
        expect(read.body).toEqual(created.body);
      }
      const listed = await call(list.GET, `${path}?count=true`, { token: t.memberToken });
      expect(listed.status).toBe(200);
      const records = recordsOf(listed, key);
      const mine = records.map((record) => record.name).filter((name) => names.includes(name));
      expect(mine).toEqual(["Beta", "Zeta", "alpha", "Ñandú"]);
      expect(success(listed).data).toMatchObject({ page: 1, limit: 100, counter: records.length });
    });

    it("searches names by case-insensitive literal prefix and pages", async () => {
      const found = await call(list.GET, `${path}?search=BE`, { token: t.memberToken });
      expect(recordsOf(found, key).map((record) => record.name)).toEqual(["Beta"]);
      expect(recordsOf(await call(list.GET, `${path}?search=.*`, { token: t.memberToken }), key)).toEqual([]);
      const page = await call(list.GET, `${path}?limit=1&page=2`, { token: t.memberToken });
      expect(recordsOf(page, key)).toHaveLength(1);
      expect((await call(list.GET, `${path}?limit=1001`, { token: t.memberToken })).status).toBe(400);
    });

    it("answers 409 for a duplicate name in the company, not across companies", async () => {
      const again = await call(list.POST, path, { token: t.adminToken, admin: true, body: { name: "Zeta" } });
      expect(again.status).toBe(409);
      expect(failure(again).code).toBe("conflict");
      expect(
        (await call(list.POST, path, { token: other.adminToken, admin: true, body: { name: "Zeta" } })).status,
      ).toBe(201);
    });

    it("applies the Admin rule, validation and tenancy", async () => {
      expect(failure(await call(list.POST, path, { token: t.adminToken, body: { name: "X" } })).code).toBe(
        "admin_required",
      );
      expect(
        failure(await call(list.POST, path, { token: t.memberToken, admin: true, body: { name: "X" } })).code,
      ).toBe("forbidden");
      const bad = await call(list.POST, path, { token: t.adminToken, admin: true, body: { name: "", extra: 1 } });
      expect(bad.status).toBe(400);
      expect(
        failure(bad)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["extra", "name"]);
      const mine = recordsOf(await call(list.GET, path, { token: t.memberToken }), key)[0]._id;
      expect((await call(one.GET, `${path}/${mine}`, { token: other.adminToken, params: { id: mine } })).status).toBe(
        404,
      );
      expect(
        failure(await call(one.GET, `${path}/nope`, { token: other.adminToken, params: { id: "nope" } })).code,
      ).toBe("invalid_id");
      expect((await call(list.GET, path, {})).status).toBe(401);
    });
  });

  it("access roles carry isAdmin, and an admin role grants Admin: true", async () => {
    const role = await call(accessRoles.POST, "/v2/access-roles", {
      token: t.adminToken,
      admin: true,
      body: { name: "Supervisor", isAdmin: true },
    });
    expect(success(role).isAdmin).toBe(true);
    const listed = await call(accessRoles.GET, "/v2/access-roles?search=adm", { token: t.memberToken });
    expect(success(listed).data.accessRoles).toEqual([
      expect.objectContaining({ name: "Admin", isAdmin: true, _id: t.adminRoleId }),
    ]);
  });
});
