/** Concurrent PATCHes of one user all apply: the last writer wins per field (docs/api.md, "Users"). */
import type { UpdateUserBody } from "@/lib/resources/users/contract";
import { User } from "@/lib/resources/users/repository";
import { userKeywords } from "@/lib/resources/users/search";
import { allowSlowDatabase, useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as user from "./[id]/route";
import * as users from "./route";

const name = { displayName: "Ana Pérez", names: "Ana", lastName: "Pérez", secondLastName: "" };

// Fifty writers of one record retry each other's write conflicts: on two busy cores that can
// take far longer than the default timeout and the request's deadline. The tests hold
// correctness; speed is a benchmark's.
describe("concurrent PATCH /v2/users/{id}", { timeout: 120_000 }, () => {
  useTestDatabase();
  allowSlowDatabase();
  let t: Tenant;
  const roles: string[] = [];

  beforeAll(async () => {
    t = await createTenant("Users concurrency");
    for (let i = 0; i < 5; i++) {
      roles.push(
        success(
          await call(accessRoles.POST, "/v2/access-roles", {
            token: t.adminToken,
            admin: true,
            body: { name: `Concurrent ${i}` },
          }),
        )._id,
      );
    }
  });

  const create = async (email: string) => {
    const response = await call(users.POST, "/v2/users", {
      token: t.adminToken,
      admin: true,
      body: { email, accessRoles: [t.memberRoleId], name },
    });
    expect(response.status).toBe(201);
    return success(response);
  };
  const patch = (id: string, body: Record<string, unknown>) =>
    call(user.PATCH, `/v2/users/${id}`, { method: "PATCH", token: t.adminToken, admin: true, params: { id }, body });

  it("50 concurrent PATCHes of different fields all answer 200 and none is lost", async () => {
    const before = await create("busy@concurrency.test");
    // Each field is written by its own requests only, so the last value of each is one of its own.
    const bodies: UpdateUserBody[] = Array.from({ length: 50 }, (_, i) => {
      switch (i % 5) {
        case 0:
          return { phone: `+34 600 ${i}` };
        case 1:
          return { name: { displayName: `Display ${i}` } };
        case 2:
          return { name: { lastName: `Last${i}` } };
        case 3:
          return { extensions: { writer: i } };
        default:
          return {
            accessRoles: [roles[i % roles.length]],
            companies: [{ hierarchy: { boss: [t.adminId] } }],
            isOnline: i % 2 === 0,
          };
      }
    });
    const responses = await Promise.all(bodies.map((body) => patch(before._id, body)));
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 200));

    // Every PATCH advanced modifiedAt: each answer has its own.
    const stamps = responses.map((r) => Date.parse(success(r).modifiedAt));
    expect(new Set(stamps).size).toBe(50);
    expect(Math.min(...stamps)).toBeGreaterThan(Date.parse(before.modifiedAt));

    const final = success(
      await call(user.GET, `/v2/users/${before._id}`, { token: t.adminToken, params: { id: before._id } }),
    );
    expect(final.modifiedAt).toBe(new Date(Math.max(...stamps)).toISOString());
    const written = (pick: (body: UpdateUserBody) => unknown) =>
      bodies.map(pick).filter((value) => value !== undefined);
    expect(written((b) => b.phone)).toContain(final.phone);
    expect(written((b) => b.name?.displayName)).toContain(final.name!.displayName);
    expect(written((b) => b.name?.lastName)).toContain(final.name!.lastName);
    // Parts no PATCH sent are kept.
    expect(final.name!.names).toBe("Ana");
    expect(written((b) => b.extensions?.writer)).toContain(final.extensions.writer);
    expect(roles).toContain(final.accessRoles[0]);
    expect(final.companies[0].hierarchy.boss).toEqual([t.adminId]);
    // The search keywords are those of the name the user ends with.
    const stored = await User.findById(before._id).lean();
    expect(stored?.search).toEqual(userKeywords(final.name, final.email));
    expect(final.search).toEqual(stored?.search);
  });

  it("50 concurrent PATCHes of the same field: all answer 200, the stored value is one of them", async () => {
    const before = await create("same.field@concurrency.test");
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => patch(before._id, { name: { names: `Names ${i}` }, isActive: i % 2 === 0 })),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    for (const [i, response] of responses.entries()) expect(success(response).name!.names).toBe(`Names ${i}`);
    const final = success(
      await call(user.GET, `/v2/users/${before._id}`, { token: t.adminToken, params: { id: before._id } }),
    );
    const last = responses.reduce((a, b) =>
      Date.parse(success(a).modifiedAt) > Date.parse(success(b).modifiedAt) ? a : b,
    );
    expect(final.name).toEqual(success(last).name);
    expect(final.isActive).toBe(success(last).isActive);
  });
});
