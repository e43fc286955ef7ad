/**
 * POST /v2/users/bulk (docs/api.md#bulk-actions): each action, mixed results, the rules of a
 * single PATCH, selection by ids or by a list query, one event per changed user, the Admin rule,
 * tenancy and bad input.
 */
import { MAX_BULK_USERS } from "@/lib/resources/users/contract";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as events from "../../events/route";
import * as user from "../[id]/route";
import * as users from "../route";
import * as bulk from "./route";

describe("POST /v2/users/bulk", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;
  let n = 0;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTenant("Bulk A"), createTenant("Bulk B")]);
  });

  const run = (tenant: Tenant, body: Record<string, unknown>, options: Record<string, unknown> = {}) =>
    call(bulk.POST, "/v2/users/bulk", { token: tenant.adminToken, admin: true, body, ...options });
  const read = async (tenant: Tenant, id: string) =>
    success(await call(user.GET, `/v2/users/${id}`, { token: tenant.adminToken, params: { id } }));
  /** New users of the tenant holding `roles`, their e-mails tagged to be found by a search. */
  async function newUsers(
    tenant: Tenant,
    count: number,
    tag: string,
    roles = [tenant.memberRoleId],
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const created = await call(users.POST, "/v2/users", {
        token: tenant.adminToken,
        admin: true,
        body: { email: `${tag}${++n}@bulk.test`, accessRoles: roles },
      });
      expect(created.status).toBe(201);
      ids.push(success(created)._id);
    }
    return ids;
  }

  it("deactivates and activates users, answering changed and unchanged per user, and raises one event per changed user", async () => {
    const [first, second] = await newUsers(a, 2, "toggle");
    const deactivated = await run(a, { ids: [first, second, first], action: "deactivate" });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body).toEqual({
      summary: { changed: 2, unchanged: 0, failed: 0 },
      results: [
        { id: first, status: "changed" },
        { id: second, status: "changed" },
      ],
    });
    expect((await read(a, first)).isActive).toBe(false);
    expect((await read(a, second)).isActive).toBe(false);

    const again = await run(a, { ids: [first, second], action: "deactivate" });
    expect(success(again).summary).toEqual({ changed: 0, unchanged: 2, failed: 0 });

    const activated = await run(a, { ids: [first], action: "activate" });
    expect(success(activated).summary).toEqual({ changed: 1, unchanged: 0, failed: 0 });
    expect((await read(a, first)).isActive).toBe(true);

    const feed = await call(events.GET, "/v2/events?type=user.updated&limit=100", { token: a.adminToken, admin: true });
    const updates = success(feed).data.events.filter((event) => [first, second].includes(event.resource.id));
    expect(updates.map((event) => [event.resource.id, event.changes])).toEqual([
      [first, ["isActive"]],
      [second, ["isActive"]],
      [first, ["isActive"]],
    ]);
    expect(updates[0].actor).toEqual({ type: "user", id: a.adminId });
  });

  it("adds and removes an access role, keeping each user's other roles, and refuses to remove a user's only role", async () => {
    const [holder, other] = await newUsers(a, 2, "roles");
    const added = await run(a, { ids: [holder, other], action: "addAccessRole", accessRoleId: a.adminRoleId });
    expect(success(added).summary).toEqual({ changed: 2, unchanged: 0, failed: 0 });
    expect((await read(a, holder)).accessRoles).toEqual([a.memberRoleId, a.adminRoleId]);
    expect(
      success(await run(a, { ids: [holder], action: "addAccessRole", accessRoleId: a.adminRoleId })).summary,
    ).toEqual({ changed: 0, unchanged: 1, failed: 0 });

    const removed = await run(a, { ids: [holder], action: "removeAccessRole", accessRoleId: a.memberRoleId });
    expect(success(removed).summary).toEqual({ changed: 1, unchanged: 0, failed: 0 });
    expect((await read(a, holder)).accessRoles).toEqual([a.adminRoleId]);

    const only = await run(a, { ids: [holder, other], action: "removeAccessRole", accessRoleId: a.memberRoleId });
    expect(success(only).results).toEqual([
      { id: holder, status: "unchanged" },
      { id: other, status: "changed" },
    ]);
    const last = await run(a, { ids: [holder], action: "removeAccessRole", accessRoleId: a.adminRoleId });
    expect(success(last).results).toEqual([
      { id: holder, status: "failed", error: expect.stringMatching(/at least one access role/) },
    ]);
    expect((await read(a, holder)).accessRoles).toEqual([a.adminRoleId]);
  });

  it("keeps the company's last active admin and refuses the caller's own deactivation, while the others change", async () => {
    const t = await createTenant("Bulk last admin");
    const [plain] = await newUsers(t, 1, "plain");
    const [second] = await newUsers(t, 1, "second", [t.adminRoleId, t.memberRoleId]);
    // The caller is refused; the second admin goes, as the caller is still an active admin.
    const answer = await run(t, { ids: [t.adminId, plain, second], action: "deactivate" });
    expect(answer.status).toBe(200);
    expect(success(answer).results).toEqual([
      { id: t.adminId, status: "failed", error: "You cannot deactivate yourself." },
      { id: plain, status: "changed" },
      { id: second, status: "changed" },
    ]);
    expect(
      success(await run(t, { ids: [t.adminId], action: "addAccessRole", accessRoleId: t.memberRoleId })).summary
        .changed,
    ).toBe(1);
    const demote = await run(t, { ids: [t.adminId], action: "removeAccessRole", accessRoleId: t.adminRoleId });
    expect(success(demote).results).toEqual([
      { id: t.adminId, status: "failed", error: expect.stringMatching(/at least one admin access role/) },
    ]);

    // With two active admins, taking the role from both changes the first and refuses the second.
    await run(t, { ids: [second], action: "activate" });
    const both = await run(t, { ids: [t.adminId, second], action: "removeAccessRole", accessRoleId: t.adminRoleId });
    expect(success(both).results).toEqual([
      { id: t.adminId, status: "changed" },
      { id: second, status: "failed", error: expect.stringMatching(/at least one admin access role/) },
    ]);
    expect((await read(t, second)).accessRoles).toEqual([t.adminRoleId, t.memberRoleId]);
  });

  it("selects the users a list query matches, refuses a query matching more than the cap or naming unknown parameters", async () => {
    const tagged = await newUsers(a, 3, "picked");
    const answer = await run(a, { query: "?search=picked&isActive=true&page=4&limit=1", action: "deactivate" });
    expect(answer.status).toBe(200);
    expect(success(answer).summary).toEqual({ changed: 3, unchanged: 0, failed: 0 });
    expect(success(answer).results.map((result) => result.id)).toEqual([...tagged].sort());
    // Inactive now, they no longer match the same query.
    expect(success(await run(a, { query: "search=picked", action: "deactivate" })).results).toEqual([]);
    expect(success(await run(a, { query: "search=picked&isActive=false", action: "activate" })).summary.changed).toBe(
      3,
    );

    const typo = await run(a, { query: "serch=picked", action: "deactivate" });
    expect(typo.status).toBe(400);
    expect(failure(typo).details).toEqual([{ path: "query.serch", message: "is not a parameter of the list" }]);
    const badValue = await run(a, { query: "isActive=maybe", action: "deactivate" });
    expect(failure(badValue).details![0].path).toBe("query.isActive");

    const big = await createTenant("Bulk cap");
    const { insertUsersOnce, newDoc, emptyMembership } = await import("@/lib/resources/users/repository");
    const { oid } = await import("@/lib/kernel/ids");
    const docs = Array.from({ length: MAX_BULK_USERS }, (_, index) =>
      newDoc({
        email: `many${index}@cap.test`,
        accessRoles: [oid(big.memberRoleId)],
        properties: [],
        companies: [emptyMembership(oid(big.companyId))],
        createdAt: new Date(),
      } as Parameters<typeof newDoc>[0]),
    );
    await insertUsersOnce(docs);
    const tooMany = await run(big, { query: "isActive=all", action: "activate" });
    expect(tooMany.status).toBe(400);
    expect(failure(tooMany).message).toMatch(/more than 1000 users/);
  });

  it("answers not found for ids of another company and changes nothing there", async () => {
    const [foreign] = await newUsers(b, 1, "foreign");
    const [own] = await newUsers(a, 1, "own");
    const answer = await run(a, { ids: [foreign, own, "0123456789abcdef01234567"], action: "deactivate" });
    expect(success(answer).results).toEqual([
      { id: foreign, status: "failed", error: "not found" },
      { id: own, status: "changed" },
      { id: "0123456789abcdef01234567", status: "failed", error: "not found" },
    ]);
    expect((await read(b, foreign)).isActive).toBe(true);
    // A query is the caller's company's only; an access role of another company is unknown.
    expect(success(await run(a, { query: `id=${foreign}`, action: "deactivate" })).results).toEqual([]);
    const role = await run(a, { ids: [own], action: "addAccessRole", accessRoleId: b.adminRoleId });
    expect(role.status).toBe(400);
    expect(failure(role)).toMatchObject({ code: "unknown_reference", details: [{ path: "accessRoleId" }] });
  });

  it("requires Admin: true from an admin", async () => {
    const [target] = await newUsers(a, 1, "rule");
    const without = await call(bulk.POST, "/v2/users/bulk", {
      token: a.adminToken,
      body: { ids: [target], action: "deactivate" },
    });
    expect(without.status).toBe(403);
    expect(failure(without).code).toBe("admin_required");
    const member = await call(bulk.POST, "/v2/users/bulk", {
      token: a.memberToken,
      admin: true,
      body: { ids: [target], action: "deactivate" },
    });
    expect(member.status).toBe(403);
    expect(failure(member).code).toBe("forbidden");
    expect((await call(bulk.POST, "/v2/users/bulk", { body: { ids: [target], action: "deactivate" } })).status).toBe(
      401,
    );
    expect((await read(a, target)).isActive).toBe(true);
  });

  it("refuses bad input with 400 naming the field", async () => {
    const [target] = await newUsers(a, 1, "bad");
    const bad = async (body: Record<string, unknown>, path: string) => {
      const answer = await run(a, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(failure(answer).code).toBe("invalid_request");
      expect(failure(answer).details?.map((detail) => detail.path)).toContain(path);
    };
    await bad({ action: "deactivate" }, "ids");
    await bad({ ids: [target], query: "", action: "deactivate" }, "ids");
    await bad({ ids: [], action: "deactivate" }, "ids");
    await bad({ ids: ["nope"], action: "deactivate" }, "ids.0");
    await bad(
      {
        ids: Array.from({ length: MAX_BULK_USERS + 1 }, (_, index) => index.toString(16).padStart(24, "0")),
        action: "deactivate",
      },
      "ids",
    );
    await bad({ ids: [target], action: "delete" }, "action");
    await bad({ ids: [target], action: "addAccessRole" }, "accessRoleId");
    await bad({ ids: [target], action: "deactivate", accessRoleId: a.adminRoleId }, "accessRoleId");
    await bad({ ids: [target], action: "addAccessRole", accessRoleId: "nope" }, "accessRoleId");
    await bad({ ids: [target], action: "deactivate", extra: 1 }, "extra");
    await bad({ query: 5, action: "deactivate" }, "query");
    await bad({ query: "email[$ne]=x", action: "deactivate" }, "query.email[$ne]");
    expect(
      failure(
        await call(bulk.POST, "/v2/users/bulk", {
          token: a.adminToken,
          admin: true,
          rawBody: "{",
          headers: { "content-type": "application/json" },
        }),
      ).code,
    ).toBe("invalid_json");
    expect((await read(a, target)).isActive).toBe(true);
  });
});
