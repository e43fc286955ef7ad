import { createApiToken } from "@/lib/resources/auth/service";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as bot from "../bots/[id]/route";
import * as botHolders from "../bots/holders/route";
import * as bots from "../bots/route";
import * as jobTitle from "../job-titles/[id]/route";
import * as jobTitleHolders from "../job-titles/holders/route";
import * as jobTitles from "../job-titles/route";
import * as property from "../properties/[id]/route";
import * as propertyHolders from "../properties/holders/route";
import * as properties from "../properties/route";
import * as user from "../users/[id]/route";
import * as accessRole from "./[id]/route";
import * as accessRoleHolders from "./holders/route";
import * as accessRoles from "./route";

const kinds = [
  { path: "/v2/job-titles", key: "jobTitles", list: jobTitles, one: jobTitle, holders: jobTitleHolders },
  { path: "/v2/properties", key: "properties", list: properties, one: property, holders: propertyHolders },
  { path: "/v2/bots", key: "bots", list: bots, one: bot, holders: botHolders },
  { path: "/v2/access-roles", key: "accessRoles", list: accessRoles, one: accessRole, holders: accessRoleHolders },
] as const;

const UNKNOWN_ID = "0123456789abcdef01234567";
/** A new token of the tenant's member, as a sign-in after a reactivation gives. */
const signInAgain = async (tenant: Tenant) =>
  (await createApiToken((await User.findById(tenant.memberId).lean())!.email, 3600, tenant.companyId)).accessToken;

describe("PATCH and holders of reference data", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await createTenant("Reference updates");
    other = await createTenant("Other reference updates");
  });

  const patchUser = (tenant: Tenant, id: string, body: Record<string, unknown>) =>
    call(user.PATCH, `/v2/users/${id}`, {
      method: "PATCH",
      token: tenant.adminToken,
      admin: true,
      params: { id },
      body,
    });

  describe.each(kinds)("$path", ({ path, key, list, one, holders }) => {
    const create = async (name: string) =>
      success(await call(list.POST, path, { token: t.adminToken, admin: true, body: { name } }));
    const patch = (id: string, body: unknown, options: { token?: string; admin?: boolean } = {}) =>
      call(one.PATCH, `${path}/${id}`, {
        method: "PATCH",
        token: options.token ?? t.adminToken,
        admin: options.admin ?? true,
        params: { id },
        body,
      });

    it("renames (Admin), advancing modifiedAt, and reads back the same record", async () => {
      const record = await create("Before");
      const renamed = await patch(record._id, { name: "After" });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({
        _id: record._id,
        name: "After",
        company: t.companyId,
        createdAt: record.createdAt,
      });
      expect(Date.parse(success(renamed).modifiedAt)).toBeGreaterThan(Date.parse(record.modifiedAt));
      expect(
        (await call(one.GET, `${path}/${record._id}`, { token: t.memberToken, params: { id: record._id } })).body,
      ).toEqual(renamed.body);
      // An empty PATCH changes nothing but modifiedAt; a name is stored as sent, "$" included.
      const again = await patch(record._id, {});
      expect(success(again).name).toBe("After");
      expect(Date.parse(success(again).modifiedAt)).toBeGreaterThan(Date.parse(success(renamed).modifiedAt));
      expect(success(await patch(record._id, { name: "$name" })).name).toBe("$name");
    });

    it("refuses an invalid body with 400 naming each field, and ignores server-managed fields", async () => {
      const record = await create("Valid");
      const bad = await patch(record._id, {
        name: "",
        extra: 1,
        ...(key === "accessRoles" ? { isAdmin: "yes" } : { isAdmin: true }),
      });
      expect(bad.status).toBe(400);
      expect(failure(bad).code).toBe("invalid_request");
      expect(
        failure(bad)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["extra", "isAdmin", "name"]);
      expect((await patch(record._id, { name: "a\nb" })).status).toBe(400);
      expect((await patch(record._id, { name: "x".repeat(201) })).status).toBe(400);
      const ignored = await patch(record._id, {
        name: "Valid too",
        _id: UNKNOWN_ID,
        company: other.companyId,
        createdAt: "2000-01-01T00:00:00.000Z",
      });
      expect(ignored.status).toBe(200);
      expect(ignored.body).toMatchObject({
        _id: record._id,
        company: t.companyId,
        createdAt: record.createdAt,
        name: "Valid too",
      });
    });

    it("answers 409 conflict for a name the company already uses, not one of another company", async () => {
      await create("Taken");
      const record = await create("Free");
      const taken = await patch(record._id, { name: "Taken" });
      expect(taken.status).toBe(409);
      expect(failure(taken)).toMatchObject({ code: "conflict", details: [{ path: "name" }] });
      expect(
        success(await call(one.GET, `${path}/${record._id}`, { token: t.adminToken, params: { id: record._id } })).name,
      ).toBe("Free");
      await call(list.POST, path, { token: other.adminToken, admin: true, body: { name: "Elsewhere" } });
      expect((await patch(record._id, { name: "Elsewhere" })).status).toBe(200);
    });

    it("applies the Admin rule: 403 without the header or for a user who is no admin", async () => {
      const record = await create("Guarded");
      expect(failure(await patch(record._id, { name: "X" }, { admin: false })).code).toBe("admin_required");
      const member = await patch(record._id, { name: "X" }, { token: t.memberToken });
      expect(member.status).toBe(403);
      expect(failure(member).code).toBe("forbidden");
      expect(
        success(await call(one.GET, `${path}/${record._id}`, { token: t.adminToken, params: { id: record._id } })).name,
      ).toBe("Guarded");
    });

    it("answers 404 for another company's record and an unknown id, 400 invalid_id for a bad one", async () => {
      const theirs = success(
        await call(list.POST, path, { token: other.adminToken, admin: true, body: { name: "Theirs" } }),
      );
      const foreign = await patch(theirs._id, { name: "Mine now" });
      expect(foreign.status).toBe(404);
      expect(failure(foreign).code).toBe("not_found");
      expect(
        success(await call(one.GET, `${path}/${theirs._id}`, { token: other.adminToken, params: { id: theirs._id } }))
          .name,
      ).toBe("Theirs");
      expect((await patch(UNKNOWN_ID, { name: "Nobody" })).status).toBe(404);
      const badId = await patch("nope", { name: "Nobody" });
      expect(badId.status).toBe(400);
      expect(failure(badId).code).toBe("invalid_id");
    });

    it("counts the users of the company holding each record, 0 for ids of no record of the company", async () => {
      const held = await create("Held");
      const unheld = await create("Unheld");
      const theirs = success(
        await call(list.POST, path, { token: other.adminToken, admin: true, body: { name: "Held elsewhere" } }),
      );
      const holds = (id: string, role: string): Record<string, unknown> =>
        key === "accessRoles"
          ? { accessRoles: [role, id] }
          : key === "properties"
            ? { properties: [id] }
            : key === "jobTitles"
              ? { job: id }
              : { bot: id };
      expect((await patchUser(t, t.memberId, holds(held._id, t.memberRoleId))).status).toBe(200);
      expect((await patchUser(t, t.adminId, holds(held._id, t.adminRoleId))).status).toBe(200);
      const ids = [held._id, unheld._id, theirs._id, UNKNOWN_ID];
      const counted = await call(holders.GET, `${path}/holders?${ids.map((id) => `id=${id}`).join("&")}`, {
        token: t.memberToken,
      });
      expect(counted.status).toBe(200);
      expect(success(counted).data.holders).toEqual([
        { _id: held._id, users: 2 },
        { _id: unheld._id, users: 0 },
      ]);
      // Inactive users still hold it; another company's users are never counted.
      expect((await patchUser(t, t.memberId, { isActive: false })).status).toBe(200);
      expect(
        success(await call(holders.GET, `${path}/holders?id=${held._id}`, { token: t.adminToken })).data.holders,
      ).toEqual([{ _id: held._id, users: 2 }]);
      expect((await patchUser(t, t.memberId, { isActive: true })).status).toBe(200);
      // The deactivation ended the member's sessions: a reactivated member signs in again (docs/security.md#passwords-and-tokens).
      t.memberToken = await signInAgain(t);
      expect(
        success(await call(holders.GET, `${path}/holders?id=${held._id}`, { token: other.adminToken })).data.holders,
      ).toEqual([]);
    });

    it("refuses a holders query without ids, with a bad id or with more than 100", async () => {
      expect((await call(holders.GET, `${path}/holders`, { token: t.memberToken })).status).toBe(400);
      expect(failure(await call(holders.GET, `${path}/holders?id=nope`, { token: t.memberToken })).code).toBe(
        "invalid_request",
      );
      const many = Array.from({ length: 101 }, () => UNKNOWN_ID).join(",");
      expect((await call(holders.GET, `${path}/holders?id=${many}`, { token: t.memberToken })).status).toBe(400);
      expect((await call(holders.GET, `${path}/holders?id=${UNKNOWN_ID}`, {})).status).toBe(401);
    });
  });

  describe("the last admin access role", () => {
    let c: Tenant;
    const patch = (id: string, body: unknown, token = c.adminToken) =>
      call(accessRole.PATCH, `/v2/access-roles/${id}`, { method: "PATCH", token, admin: true, params: { id }, body });
    const createRole = async (name: string, isAdmin: boolean) =>
      success(
        await call(accessRoles.POST, "/v2/access-roles", { token: c.adminToken, admin: true, body: { name, isAdmin } }),
      );
    const read = async (id: string) =>
      success(await call(accessRole.GET, `/v2/access-roles/${id}`, { token: c.adminToken, params: { id } }));

    beforeAll(async () => {
      c = await createTenant("Last admin");
    });

    it("refuses with 409 conflict to take isAdmin from the only admin role an active user holds", async () => {
      const refused = await patch(c.adminRoleId, { isAdmin: false, name: "Renamed too" });
      expect(refused.status).toBe(409);
      expect(failure(refused)).toMatchObject({ code: "conflict", details: [{ path: "isAdmin" }] });
      expect(failure(refused).message).toMatch(/at least one admin access role held by an active user/);
      // Nothing of the PATCH is applied.
      expect(await read(c.adminRoleId)).toMatchObject({ name: "Admin", isAdmin: true });
      // Other changes of that role are fine, and so is `isAdmin: true` on it.
      expect((await patch(c.adminRoleId, { name: "Administrators", isAdmin: true })).status).toBe(200);
    });

    it("counts only admin roles held by an active user of the company", async () => {
      const unheld = await createRole("Admin nobody holds", true);
      expect((await patch(c.adminRoleId, { isAdmin: false })).status).toBe(409);
      const inactive = await createRole("Admin of an inactive user", true);
      expect(
        (await patchUser(c, c.memberId, { accessRoles: [c.memberRoleId, inactive._id], isActive: false })).status,
      ).toBe(200);
      expect((await patch(c.adminRoleId, { isAdmin: false })).status).toBe(409);
      expect((await patchUser(c, c.memberId, { accessRoles: [c.memberRoleId], isActive: true })).status).toBe(200);
      c.memberToken = await signInAgain(c);
      // Demoting roles that leave the company's admin in place is allowed.
      expect(success(await patch(unheld._id, { isAdmin: false })).isAdmin).toBe(false);
      expect(success(await patch(inactive._id, { isAdmin: false })).isAdmin).toBe(false);
    });

    it("allows it once another admin role is held by an active user, and the demoted admin loses Admin at once", async () => {
      const deputy = await createRole("Deputy", true);
      expect((await patchUser(c, c.memberId, { accessRoles: [c.memberRoleId, deputy._id] })).status).toBe(200);
      const demoted = await patch(c.adminRoleId, { isAdmin: false });
      expect(demoted.status).toBe(200);
      expect(success(demoted).isAdmin).toBe(false);
      // The former admin's Admin header is refused on the next request; the member's is honoured.
      expect(failure(await patch(deputy._id, { name: "Deputy" })).code).toBe("forbidden");
      expect((await patch(deputy._id, { isAdmin: false }, c.memberToken)).status).toBe(409);
      expect((await patch(c.adminRoleId, { isAdmin: true }, c.memberToken)).status).toBe(200);
    });

    it("keeps an admin role when two PATCHes demote the last two at once", async () => {
      const company = await createTenant("Racing demotions");
      const second = success(
        await call(accessRoles.POST, "/v2/access-roles", {
          token: company.adminToken,
          admin: true,
          body: { name: "Second", isAdmin: true },
        }),
      );
      expect(
        (await patchUser(company, company.memberId, { accessRoles: [company.memberRoleId, second._id] })).status,
      ).toBe(200);
      const demote = (id: string) =>
        call(accessRole.PATCH, `/v2/access-roles/${id}`, {
          method: "PATCH",
          token: company.adminToken,
          admin: true,
          params: { id },
          body: { isAdmin: false },
        });
      const answers = await Promise.all([demote(company.adminRoleId), demote(second._id)]);
      expect(answers.map((answer) => answer.status)).toContain(409);
      const roles = success(await call(accessRoles.GET, "/v2/access-roles", { token: company.memberToken })).data
        .accessRoles;
      expect(roles.filter((role) => role.isAdmin).map((role) => role._id).length).toBeGreaterThanOrEqual(1);
      // Each answer tells the truth about the role it names.
      for (const [index, id] of [company.adminRoleId, second._id].entries()) {
        expect(roles.find((role) => role._id === id)?.isAdmin).toBe(answers[index].status === 409);
      }
    });
  });
});
