/**
 * A company keeps an access role with `isAdmin: true` held by an active user: a user PATCH that
 * takes the last one away (its roles, or deactivation) is `409 conflict` with nothing applied.
 */
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeEach, describe, expect, it } from "vitest";
import * as user from "./[id]/route";

describe("the last admin of a company, through PATCH /v2/users/{id}", () => {
  useTestDatabase();
  let t: Tenant;

  beforeEach(async () => {
    t = await createTenant("Last admin");
  });

  const patchUser = (id: string, body: Record<string, unknown>, token = t.adminToken) =>
    call(user.PATCH, `/v2/users/${id}`, { method: "PATCH", token, admin: true, params: { id }, body });
  const read = async (id: string) =>
    success(await call(user.GET, `/v2/users/${id}`, { token: t.adminToken, admin: true, params: { id } }));

  it("refuses to take the admin role from the only active admin, and changes nothing", async () => {
    const refused = await patchUser(t.adminId, { accessRoles: [t.memberRoleId], phone: "+34 600 000 000" });
    expect(refused.status).toBe(409);
    expect(failure(refused)).toMatchObject({ code: "conflict", details: [{ path: "accessRoles" }] });
    const after = await read(t.adminId);
    expect(after.accessRoles).toEqual([t.adminRoleId]);
    expect(after.phone).toBeNull();
  });

  it("refuses to deactivate the only active admin", async () => {
    const refused = await patchUser(t.adminId, { isActive: false });
    expect(refused.status).toBe(409);
    expect(failure(refused).details).toEqual([expect.objectContaining({ path: "isActive" })]);
    expect((await read(t.adminId)).isActive).toBe(true);
  });

  it("allows both once another active user holds an admin role", async () => {
    expect((await patchUser(t.memberId, { accessRoles: [t.adminRoleId] })).status).toBe(200);
    expect((await patchUser(t.adminId, { accessRoles: [t.memberRoleId] })).status).toBe(200);
    // The member is now the only admin: deactivating them is refused in turn.
    const refused = await patchUser(t.memberId, { isActive: false }, t.memberToken);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
  });

  it("keeps an admin when the last two admins are demoted at once", async () => {
    expect((await patchUser(t.memberId, { accessRoles: [t.adminRoleId] })).status).toBe(200);
    const answers = await Promise.all([
      patchUser(t.adminId, { accessRoles: [t.memberRoleId] }),
      patchUser(t.memberId, { accessRoles: [t.memberRoleId] }),
    ]);
    expect(answers.map((answer) => answer.status)).toContain(409);
    const roles = [(await read(t.adminId)).accessRoles, (await read(t.memberId)).accessRoles];
    expect(roles.some((held) => held.includes(t.adminRoleId))).toBe(true);
  });
});
