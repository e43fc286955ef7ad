/**
 * A user of several companies: who may change the account itself, and what stays per company
 * (docs/security.md, "Who may change a user of several companies").
 */
import { newId, oid } from "@/lib/kernel/ids";
import { createApiToken, login } from "@/lib/resources/auth/service";
import { hashPassword } from "@/lib/resources/credentials/passwords";
import { storePasswordHash } from "@/lib/resources/credentials/repository";
import { backfillMembershipActive, User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as jobTitles from "../job-titles/route";
import * as properties from "../properties/route";
import * as user from "./[id]/route";
import * as users from "./route";

const name = { displayName: "Sam Shared", names: "Sam", lastName: "Shared", secondLastName: "" };
const PASSWORD = "the shared user's password";

describe("a user of three companies", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;
  let c: Tenant;
  let sharedId: string;
  const sharedEmail = "sam@shared.test";
  /** Admin in A, B and C. */
  let overlordId: string;
  const overlordEmail = "overlord@shared.test";
  /** The shared user's own token in B, where they are an admin (a password change revokes it). */
  let sharedTokenB: string;

  /**
   * Adds an existing user to an existing company with one role, as the company CLI adds an
   * existing e-mail to the company it creates.
   */
  async function join(userId: string, tenant: Tenant, roleId: string): Promise<void> {
    await User.collection.updateOne({ _id: oid(userId) }, {
      $push: {
        companies: {
          _id: newId(),
          companyId: oid(tenant.companyId),
          isActive: true,
          hierarchy: { boss: [], peers: [], subordinate: [] },
        },
      },
      $addToSet: { accessRoles: oid(roleId) },
    } as never);
  }

  const tokenIn = async (email: string, tenant: Tenant) =>
    (await createApiToken(email, 3600, tenant.companyId)).accessToken;
  const patch = (token: string, id: string, body: Record<string, unknown>) =>
    call(user.PATCH, `/v2/users/${id}`, { method: "PATCH", token, admin: true, params: { id }, body });
  const get = (token: string, id: string) => call(user.GET, `/v2/users/${id}`, { token, params: { id } });

  beforeAll(async () => {
    [a, b, c] = [await createTenant("Alpha"), await createTenant("Bravo"), await createTenant("Charlie")];
    // Sam: a member of A, an admin of B, a member of C.
    const created = await call(users.POST, "/v2/users", {
      token: a.adminToken,
      admin: true,
      body: { email: sharedEmail, accessRoles: [a.memberRoleId], name, phone: "+34 600 000 001" },
    });
    sharedId = success(created)._id;
    await join(sharedId, b, b.adminRoleId);
    await join(sharedId, c, c.memberRoleId);
    await storePasswordHash(oid(sharedId), await hashPassword(PASSWORD));
    sharedTokenB = await tokenIn(sharedEmail, b);
    // The overlord: an admin of all three.
    overlordId = success(
      await call(users.POST, "/v2/users", {
        token: a.adminToken,
        admin: true,
        body: { email: overlordEmail, accessRoles: [a.adminRoleId] },
      }),
    )._id;
    await join(overlordId, b, b.adminRoleId);
    await join(overlordId, c, c.adminRoleId);
  });

  const accountBody = async (tenant: Tenant) => ({
    password: "an attacker's password",
    name: { displayName: "Hijacked" },
    phone: "+1 555 0100",
    extensions: { owned: true },
    job: success(
      await call(jobTitles.POST, "/v2/job-titles", {
        token: tenant.adminToken,
        admin: true,
        body: { name: `Job ${Math.random()}` },
      }),
    )._id,
    bot: null,
    isOnline: true,
    termsConditions: true,
  });

  it("an admin of one company cannot change the account: 403 forbidden naming every field, nothing changed", async () => {
    for (const tenant of [a, b, c]) {
      const before = await User.findById(sharedId).lean();
      const body = await accountBody(tenant);
      const response = await patch(tenant.adminToken, sharedId, body);
      expect(response.status, JSON.stringify(response.body)).toBe(403);
      expect(failure(response).code).toBe("forbidden");
      expect(
        failure(response)
          .details?.map((detail) => detail.path)
          .sort(),
      ).toEqual(Object.keys(body).sort());
      expect(await User.findById(sharedId).lean()).toEqual(before);
    }
    // The password is the old one: the takeover of Sam's admin account in B fails.
    await expect(login(sharedEmail, "an attacker's password", b.companyId)).rejects.toMatchObject({
      code: "unauthorized",
    });
    expect((await login(sharedEmail, PASSWORD, b.companyId)).accessToken).toEqual(expect.any(String));
  });

  it("one account-wide field among per-company ones: the whole PATCH is refused", async () => {
    const prop = success(
      await call(properties.POST, "/v2/properties", { token: a.adminToken, admin: true, body: { name: "Alpha prop" } }),
    )._id;
    const before = await User.findById(sharedId).lean();
    const response = await patch(a.adminToken, sharedId, { properties: [prop], isActive: false, phone: "+1 555 0199" });
    expect(response.status).toBe(403);
    expect(failure(response).details).toEqual([{ path: "phone", message: expect.any(String) }]);
    expect(await User.findById(sharedId).lean()).toEqual(before);
  });

  it("an admin of one company changes the per-company fields; the other companies' views stay", async () => {
    const prop = success(
      await call(properties.POST, "/v2/properties", {
        token: c.adminToken,
        admin: true,
        body: { name: "Charlie prop" },
      }),
    )._id;
    const fromBBefore = success(await get(b.adminToken, sharedId));
    const response = await patch(c.adminToken, sharedId, {
      accessRoles: [c.adminRoleId],
      properties: [prop],
      companies: [{ hierarchy: { boss: [c.adminId] } }],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      accessRoles: [c.adminRoleId],
      properties: [prop],
      companies: [{ companyId: c.companyId, hierarchy: { boss: [c.adminId] } }],
    });
    const fromB = success(await get(b.adminToken, sharedId));
    expect({ ...fromB, modifiedAt: null }).toEqual({ ...fromBBefore, modifiedAt: null });
    expect(success(await get(a.adminToken, sharedId)).accessRoles).toEqual([a.memberRoleId]);
  });

  it("deactivating Sam in A leaves B and C alone", async () => {
    const tokenInA = await tokenIn(sharedEmail, a);
    expect((await call(users.GET, "/v2/users/me", { token: tokenInA })).status).toBe(200);
    const response = await patch(a.adminToken, sharedId, { isActive: false });
    expect(response.status).toBe(200);
    expect(success(response).isActive).toBe(false);
    expect(success(await get(b.adminToken, sharedId)).isActive).toBe(true);
    expect(success(await get(c.adminToken, sharedId)).isActive).toBe(true);

    const listed = (tenant: Tenant, isActive: string) =>
      call(users.GET, `/v2/users?isActive=${isActive}&id=${sharedId}&count=true`, { token: tenant.adminToken }).then(
        (r) => success(r).data.counter,
      );
    expect(await listed(a, "false")).toBe(1);
    expect(await listed(a, "true")).toBe(0);
    expect(await listed(b, "true")).toBe(1);
    expect(await listed(b, "false")).toBe(0);
    expect(await listed(c, "all")).toBe(1);

    // Sam can no longer act or sign in in A, and still can in B.
    await expect(createApiToken(sharedEmail, 60, a.companyId)).rejects.toMatchObject({ code: "invalid_request" });
    await expect(login(sharedEmail, PASSWORD, a.companyId)).rejects.toMatchObject({ code: "unauthorized" });
    expect((await call(users.GET, "/v2/users/me", { token: sharedTokenB })).status).toBe(200);
    const signedIn = await login(sharedEmail, PASSWORD);
    expect(
      success(await call(user.GET, `/v2/users/${sharedId}`, { token: signedIn.accessToken, params: { id: sharedId } }))
        .companies[0].companyId,
    ).toBe(b.companyId);

    expect(success(await patch(a.adminToken, sharedId, { isActive: true })).isActive).toBe(true);
    // The deactivation ended Sam's sessions in A only: A's old token stays refused, B's works.
    expect((await call(users.GET, "/v2/users/me", { token: tokenInA })).status).toBe(401);
    expect((await call(users.GET, "/v2/users/me", { token: sharedTokenB })).status).toBe(200);
  });

  it("an admin of every company the user belongs to changes the account, from any of them", async () => {
    const overlordInC = await tokenIn(overlordEmail, c);
    const body = await accountBody(c);
    const response = await patch(overlordInC, sharedId, body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      name: { ...name, displayName: "Hijacked" },
      phone: "+1 555 0100",
      job: body.job,
      extensions: { owned: true },
      isOnline: true,
      termsConditions: true,
    });
    await expect(login(sharedEmail, PASSWORD)).rejects.toMatchObject({ code: "unauthorized" });
    expect((await login(sharedEmail, "an attacker's password", a.companyId)).accessToken).toEqual(expect.any(String));

    const fromA = await patch(await tokenIn(overlordEmail, a), sharedId, {
      phone: "+34 600 000 002",
      password: PASSWORD,
    });
    expect(fromA.status).toBe(200);
  });

  it("an admin of every company but deactivated in one of them is not entitled", async () => {
    await patch(c.adminToken, overlordId, { isActive: false });
    const response = await patch(await tokenIn(overlordEmail, a), sharedId, { phone: "+34 600 000 003" });
    expect(response.status).toBe(403);
    await patch(c.adminToken, overlordId, { isActive: true });
    expect((await patch(await tokenIn(overlordEmail, a), sharedId, { phone: "+34 600 000 003" })).status).toBe(200);
  });

  it("the person themself changes their own account from the company where they are an admin", async () => {
    // The overlord changed Sam's password above, which revoked Sam's tokens.
    expect((await call(users.GET, "/v2/users/me", { token: sharedTokenB })).status).toBe(401);
    sharedTokenB = await tokenIn(sharedEmail, b);
    const response = await patch(sharedTokenB, sharedId, {
      name: { displayName: "Sam" },
      phone: "+34 600 000 004",
      password: "Sam's new password",
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ name: { displayName: "Sam" }, phone: "+34 600 000 004" });
    expect((await login(sharedEmail, "Sam's new password", c.companyId)).accessToken).toEqual(expect.any(String));
  });

  it("a user of one company: its admin changes everything, as before", async () => {
    const response = await patch(a.adminToken, a.memberId, { ...(await accountBody(a)), name, isActive: false });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ phone: "+1 555 0100", isActive: false });
  });

  it("a record of an earlier version, deactivated account-wide, is inactive in each of its companies", async () => {
    const legacy = success(
      await call(users.POST, "/v2/users", {
        token: a.adminToken,
        admin: true,
        body: { email: "legacy@shared.test", accessRoles: [a.memberRoleId] },
      }),
    )._id;
    await join(legacy, b, b.memberRoleId);
    await User.collection.updateOne(
      { _id: oid(legacy) },
      { $set: { isActive: false }, $unset: { "companies.$[].isActive": "" } },
    );
    await backfillMembershipActive();
    const stored = await User.collection.findOne({ _id: oid(legacy) });
    expect(stored?.isActive).toBeUndefined();
    expect(stored?.companies.map((entry: { isActive?: boolean }) => entry.isActive)).toEqual([false, false]);
    expect(success(await get(b.adminToken, legacy)).isActive).toBe(false);
    // Memberships without the flag, of an account that was active, are active.
    await User.collection.updateOne(
      { _id: oid(legacy) },
      { $set: { isActive: true }, $unset: { "companies.$[].isActive": "" } },
    );
    await backfillMembershipActive();
    expect(success(await get(a.adminToken, legacy)).isActive).toBe(true);
  });
});
