import { createApiToken } from "@/lib/resources/auth/service";
import { createCompany } from "@/lib/resources/spanning/companies";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as jobTitles from "../job-titles/route";
import * as properties from "../properties/route";
import * as user from "./[id]/route";
import * as users from "./route";

describe("tenant isolation", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;
  let secretId: string;

  beforeAll(async () => {
    a = await createTenant("First");
    b = await createTenant("Second");
    const created = await call(users.POST, "/v2/users", {
      token: a.adminToken,
      admin: true,
      body: {
        email: "secret.person@first.io",
        accessRoles: [a.memberRoleId],
        name: { displayName: "Zacarías", names: "Zacarías", lastName: "Secreto", secondLastName: "" },
      },
    });
    secretId = success(created)._id;
  });

  const listB = (query: string) => call(users.GET, `/v2/users?${query}`, { token: b.adminToken });
  const emails = (response: Awaited<ReturnType<typeof listB>>) => success(response).data.users.map((u) => u.email);

  it("the second company's admin cannot read the first company's user by id (404)", async () => {
    const response = await call(user.GET, `/v2/users/${secretId}`, { token: b.adminToken, params: { id: secretId } });
    expect(response.status).toBe(404);
    expect(failure(response).code).toBe("not_found");
    expect(JSON.stringify(response.body)).not.toContain("secret.person");
  });

  it("... cannot list, count, match or filter them", async () => {
    const all = await listB("count=true&isActive=all&limit=100");
    expect(success(all).data.counter).toBe(2);
    expect(emails(all).sort()).toEqual([
      expect.stringContaining("admin@second"),
      expect.stringContaining("member@second"),
    ]);
    for (const query of [
      "search=zacarias&count=true",
      "search=secret&count=true",
      "email=secret.person@first.io&count=true",
      `id=${secretId}&count=true`,
      `accessRole=${a.memberRoleId}&count=true`,
      `relatedUser=${secretId}&count=true`,
    ]) {
      const response = await listB(query);
      expect(response.status, query).toBe(200);
      expect(success(response).data.users, query).toEqual([]);
      expect(success(response).data.counter, query).toBe(0);
    }
  });

  it("... cannot change them (404) and nothing changes", async () => {
    const response = await call(user.PATCH, `/v2/users/${secretId}`, {
      method: "PATCH",
      token: b.adminToken,
      admin: true,
      params: { id: secretId },
      body: { isActive: false },
    });
    expect(response.status).toBe(404);
    const still = await call(user.GET, `/v2/users/${secretId}`, { token: a.adminToken, params: { id: secretId } });
    expect(success(still).isActive).toBe(true);
  });

  it("... cannot see or use the first company's reference data", async () => {
    const job = success(
      await call(jobTitles.POST, "/v2/job-titles", { token: a.adminToken, admin: true, body: { name: "Only in A" } }),
    )._id;
    const listed = await call(jobTitles.GET, "/v2/job-titles", { token: b.adminToken });
    expect(success(listed).data.jobTitles.map((r) => r._id)).not.toContain(job);
    const roles = await call(accessRoles.GET, "/v2/access-roles", { token: b.adminToken });
    expect(success(roles).data.accessRoles.map((r) => r.company)).toEqual([b.companyId, b.companyId]);
    const created = await call(users.POST, "/v2/users", {
      token: b.adminToken,
      admin: true,
      body: { email: "uses.a@second.io", accessRoles: [b.memberRoleId], job },
    });
    expect(failure(created).code).toBe("unknown_reference");
  });

  it("a user of two companies is visible to both, each seeing only its own part", async () => {
    // The company CLI's path: an existing e-mail joins a new company as its admin.
    const shared = await createCompany({ name: "Third", adminEmail: "secret.person@first.io" });
    const tokenThird = await createApiToken("secret.person@first.io", 600, shared.company._id);

    const propA = success(
      await call(properties.POST, "/v2/properties", { token: a.adminToken, admin: true, body: { name: "A-only" } }),
    )._id;
    const patched = await call(user.PATCH, `/v2/users/${secretId}`, {
      method: "PATCH",
      token: a.adminToken,
      admin: true,
      params: { id: secretId },
      body: { properties: [propA], companies: [{ hierarchy: { boss: [a.adminId] } }] },
    });
    expect(patched.status).toBe(200);

    const fromA = await call(user.GET, `/v2/users/${secretId}`, { token: a.adminToken, params: { id: secretId } });
    expect(success(fromA).accessRoles).toEqual([a.memberRoleId]);
    expect(success(fromA).properties).toEqual([propA]);
    expect(success(fromA).companies).toEqual([
      expect.objectContaining({ companyId: a.companyId, hierarchy: { boss: [a.adminId], peers: [], subordinate: [] } }),
    ]);

    const fromThird = await call(user.GET, `/v2/users/${secretId}`, {
      token: tokenThird.accessToken,
      params: { id: secretId },
    });
    expect(fromThird.status).toBe(200);
    expect(success(fromThird).accessRoles).toEqual([shared.adminRoleId]);
    expect(success(fromThird).properties).toEqual([]);
    expect(success(fromThird).companies).toEqual([expect.objectContaining({ companyId: shared.company._id })]);
    expect(JSON.stringify(fromThird.body)).not.toContain(a.companyId);

    const listThird = await call(users.GET, "/v2/users?count=true", { token: tokenThird.accessToken });
    expect(success(listThird).data.counter).toBe(1);
    expect(success(await listB(`id=${secretId}&count=true`)).data.counter).toBe(0);

    // The third company's admin (the shared user itself) changes its roles there; A's role stays.
    const memberOfThird = shared.memberRoleId;
    const updated = await call(user.PATCH, `/v2/users/${secretId}`, {
      method: "PATCH",
      token: tokenThird.accessToken,
      admin: true,
      params: { id: secretId },
      body: { accessRoles: [shared.adminRoleId, memberOfThird] },
    });
    expect(updated.status).toBe(200);
    expect(success(updated).accessRoles).toEqual([shared.adminRoleId, memberOfThird]);
    const againFromA = await call(user.GET, `/v2/users/${secretId}`, { token: a.adminToken, params: { id: secretId } });
    expect(success(againFromA).accessRoles).toEqual([a.memberRoleId]);
    expect(success(againFromA).properties).toEqual([propA]);
  });

  it("a member's token acts only in its company, even with a forged company id it cannot sign", async () => {
    const response = await call(user.GET, `/v2/users/${a.adminId}`, {
      token: b.memberToken,
      params: { id: a.adminId },
    });
    expect(response.status).toBe(404);
  });
});
