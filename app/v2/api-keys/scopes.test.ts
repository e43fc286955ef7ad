/**
 * The scope table of docs/security.md#scopes, one `describe` per row: what a key with the scope
 * may do, and what a key without it (or with every other scope) never does.
 */
import { SCOPES, type Scope } from "@/lib/base/schemas/scopes";
import { oid } from "@/lib/kernel/ids";
import { Credential } from "@/lib/resources/credentials/repository";
import { JobRunner } from "@/lib/resources/jobs/runner";
import { AccessRole } from "@/lib/resources/reference/repository";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, callText, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { EVERY_TYPE_CONTENT } from "@/lib/tools/testing/surveys";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRole from "../access-roles/[id]/route";
import * as accessRoles from "../access-roles/route";
import * as auditLog from "../audit-log/route";
import * as events from "../events/route";
import * as jobRoute from "../jobs/[id]/route";
import * as outbox from "../outbox/route";
import * as answersCsv from "../surveys/[id]/answers.csv/route";
import * as answers from "../surveys/[id]/answers/route";
import * as content from "../surveys/[id]/content/route";
import * as results from "../surveys/[id]/results/route";
import * as surveys from "../surveys/route";
import * as user from "../users/[id]/route";
import * as bulk from "../users/bulk/route";
import * as importRoute from "../users/import/route";
import * as users from "../users/route";
import * as view from "../views/[id]/route";
import * as views from "../views/route";
import * as apiKeys from "./route";

describe("the scope table (docs/security.md#scopes)", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTenant("Scopes A"), createTenant("Scopes B")]);
  });

  let n = 0;
  const keyOf = async (tenant: Tenant, scopes: readonly Scope[]) => {
    const made = await call(apiKeys.POST, "/v2/api-keys", {
      token: tenant.adminToken,
      admin: true,
      body: { name: `Key ${++n}`, scopes },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return success(made).key!;
  };
  const everyScopeBut = (...left: Scope[]) => SCOPES.filter((scope) => !left.includes(scope));
  const refusedFor = (answer: { status: number; body: unknown }, scope: Scope) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(403);
    expect(failure(answer as never).code).toBe("insufficient_scope");
    expect(failure(answer as never).details).toEqual([{ path: "scope", message: `needs ${scope}` }]);
  };

  describe("scopes are a set", () => {
    it("refuses a scope named twice with 400, naming the repeat", async () => {
      const answer = await call(apiKeys.POST, "/v2/api-keys", {
        token: a.adminToken,
        admin: true,
        body: { name: "Twice", scopes: ["users:read", "audit:read", "users:read"] },
      });
      expect(answer.status).toBe(400);
      expect(failure(answer).code).toBe("invalid_request");
      expect(failure(answer).details).toEqual([{ path: "scopes.2", message: "repeats the scope users:read" }]);
    });
  });

  describe("the outbox: signed-in admins only", () => {
    it("is refused to a key holding every scope; a signed-in admin reads it", async () => {
      const invited = await call(users.POST, "/v2/users?notifyEmail=true", {
        token: a.adminToken,
        admin: true,
        body: { email: "invited@scopes-a.test", accessRoles: [a.memberRoleId] },
      });
      expect(invited.status).toBe(201);
      const key = await keyOf(a, SCOPES);
      const refused = await call(outbox.GET, "/v2/outbox", { token: key, admin: true });
      expect(refused.status).toBe(403);
      expect(failure(refused)).toMatchObject({
        code: "insufficient_scope",
        message: "This operation is not open to API keys.",
      });
      const read = await call(outbox.GET, "/v2/outbox?to=invited@scopes-a.test", { token: a.adminToken, admin: true });
      expect(success(read).data.mails[0].text).toMatch(/\/invitation\/[A-Za-z0-9_-]{20,}/);
    });

    it("lets no other answer to a key carry an invitation token: the create, its event, its audit entry", async () => {
      const key = await keyOf(a, ["users:read", "users:write", "events:read", "audit:read"]);
      const created = await call(users.POST, "/v2/users?notifyEmail=true", {
        token: key,
        admin: true,
        body: { email: "by-key@scopes-a.test", accessRoles: [a.memberRoleId] },
      });
      expect(created.status).toBe(201);
      const mail = success(
        await call(outbox.GET, "/v2/outbox?to=by-key@scopes-a.test", { token: a.adminToken, admin: true }),
      ).data.mails[0];
      const token = /\/invitation\/([A-Za-z0-9_-]+)/.exec(mail.text)![1];
      const seen = [
        created.body,
        (await call(events.GET, "/v2/events?limit=100", { token: key })).body,
        (await call(auditLog.GET, "/v2/audit-log?limit=200", { token: key, admin: true })).body,
        (await call(users.GET, "/v2/users?email=by-key@scopes-a.test", { token: key })).body,
      ];
      for (const body of seen) expect(JSON.stringify(body)).not.toContain(token);
    });
  });

  describe("audit:read", () => {
    it("reads the audit log; events:read (or any other scope) does not", async () => {
      refusedFor(
        await call(auditLog.GET, "/v2/audit-log", { token: await keyOf(a, everyScopeBut("audit:read")), admin: true }),
        "audit:read",
      );
      const reader = await call(auditLog.GET, "/v2/audit-log", { token: await keyOf(a, ["audit:read"]), admin: true });
      expect(reader.status).toBe(200);
      expect(success(reader).data.entries.length).toBeGreaterThan(0);
    });
  });

  describe("answers:read and answers:write", () => {
    let surveyId: string;
    let closedId: string;
    let foreignId: string;
    let question: string;

    const makeSurvey = async (tenant: Tenant, code: string, permissionsV2: unknown[]) => {
      const made = await call(surveys.POST, "/v2/surveys", {
        token: tenant.adminToken,
        admin: true,
        body: { code, name: code, version: 2, permissionsV2 },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const id = success(made)._id;
      const put = await call(content.PUT, `/v2/surveys/${id}/content`, {
        method: "PUT",
        token: tenant.adminToken,
        admin: true,
        body: EVERY_TYPE_CONTENT,
        params: { id },
      });
      expect(put.status).toBe(200);
      return {
        id,
        question: success(put)
          .chat!.flatMap((chat) => chat.questions)
          .find((q) => q.type === "text")!._id,
      };
    };

    beforeAll(async () => {
      ({ id: surveyId, question } = await makeSurvey(a, "scoped_open", [
        { accessRole: a.memberRoleId, canAnswer: true },
      ]));
      ({ id: closedId } = await makeSurvey(a, "scoped_closed", []));
      ({ id: foreignId } = await makeSurvey(b, "scoped_foreign", [{ accessRole: b.memberRoleId, canAnswer: true }]));
    });

    const post = (id: string, token: string) =>
      call(answers.POST, `/v2/surveys/${id}/answers`, {
        token,
        params: { id },
        body: { answers: [{ question, value: "From a kiosk" }] },
      });

    it("answers:write answers a survey some role may answer, naming no user; never one closed to every role, nor another company's", async () => {
      refusedFor(await post(surveyId, await keyOf(a, everyScopeBut("answers:write"))), "answers:write");
      const writer = await keyOf(a, ["answers:write"]);
      const made = await post(surveyId, writer);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const closed = await post(closedId, writer);
      expect(closed.status).toBe(403);
      expect(failure(closed).code).toBe("forbidden");
      expect((await post(foreignId, writer)).status).toBe(404);

      const listed = success(
        await call(answers.GET, `/v2/surveys/${surveyId}/answers`, {
          token: a.adminToken,
          admin: true,
          params: { id: surveyId },
        }),
      ).data.answers;
      expect(listed.find((answer) => answer.value === "From a kiosk")).toMatchObject({ user: null });
    });

    it("answers:read reads answers, their CSV and results with Admin: true, as an admin does; surveys:read does not", async () => {
      const options = (token: string, admin = true) => ({ token, admin, params: { id: surveyId } });
      const surveysReader = await keyOf(a, everyScopeBut("answers:read"));
      refusedFor(await call(answers.GET, `/v2/surveys/${surveyId}/answers`, options(surveysReader)), "answers:read");
      refusedFor(await call(results.GET, `/v2/surveys/${surveyId}/results`, options(surveysReader)), "answers:read");
      const csvRefused = await callText(answersCsv.GET, `/v2/surveys/${surveyId}/answers.csv`, options(surveysReader));
      expect(csvRefused.status).toBe(403);
      expect(csvRefused.text).toContain("answers:read");

      const reader = await keyOf(a, ["answers:read"]);
      expect(
        success(await call(answers.GET, `/v2/surveys/${surveyId}/answers`, options(reader))).data.answers.length,
      ).toBeGreaterThan(0);
      expect((await call(results.GET, `/v2/surveys/${surveyId}/results`, options(reader))).status).toBe(200);
      expect((await callText(answersCsv.GET, `/v2/surveys/${surveyId}/answers.csv`, options(reader))).text).toContain(
        "From a kiosk",
      );
      const withoutHeader = await call(answers.GET, `/v2/surveys/${surveyId}/answers`, options(reader, false));
      expect(withoutHeader.status).toBe(403);
      expect(failure(withoutHeader).code).toBe("forbidden");
      expect(
        (
          await call(answers.GET, `/v2/surveys/${foreignId}/answers`, {
            token: reader,
            admin: true,
            params: { id: foreignId },
          })
        ).status,
      ).toBe(404);
    });
  });

  describe("views:write", () => {
    it("moderates another member's shared view; reference:write alone does not", async () => {
      const shared = await call(views.POST, "/v2/views", {
        token: a.memberToken,
        body: { resource: "users", name: "Shared by a member", query: "isActive=all", shared: true },
      });
      expect(shared.status).toBe(201);
      const id = success(shared)._id;
      const referenceWriter = await keyOf(a, everyScopeBut("views:write"));
      refusedFor(
        await call(view.PATCH, `/v2/views/${id}`, {
          method: "PATCH",
          token: referenceWriter,
          admin: true,
          params: { id },
          body: { name: "Taken over" },
        }),
        "views:write",
      );
      refusedFor(
        await call(view.DELETE, `/v2/views/${id}`, {
          method: "DELETE",
          token: referenceWriter,
          admin: true,
          params: { id },
        }),
        "views:write",
      );
      expect(success(await call(view.GET, `/v2/views/${id}`, { token: referenceWriter, params: { id } })).name).toBe(
        "Shared by a member",
      );

      const moderator = await keyOf(a, ["reference:write", "views:write"]);
      const renamed = await call(view.PATCH, `/v2/views/${id}`, {
        method: "PATCH",
        token: moderator,
        admin: true,
        params: { id },
        body: { name: "Moderated" },
      });
      expect(renamed.status).toBe(200);
      expect(
        (
          await call(view.DELETE, `/v2/views/${id}`, {
            method: "DELETE",
            token: moderator,
            admin: true,
            params: { id },
          })
        ).status,
      ).toBe(204);
      // A key of another company does not see it at all.
      const foreign = await call(views.POST, "/v2/views", {
        token: b.memberToken,
        body: { resource: "users", name: "B's", query: "", shared: true },
      });
      const foreignId = success(foreign)._id;
      expect(
        (
          await call(view.DELETE, `/v2/views/${foreignId}`, {
            method: "DELETE",
            token: moderator,
            admin: true,
            params: { id: foreignId },
          })
        ).status,
      ).toBe(404);
    });
  });

  describe("admin: admin power is its own scope", () => {
    const everyButAdmin = () => keyOf(a, everyScopeBut("admin"));
    const memberOf = async (tenant: Tenant, email: string, roles: string[]) => {
      const made = await call(users.POST, "/v2/users", {
        token: tenant.adminToken,
        admin: true,
        body: { email, accessRoles: roles },
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return success(made)._id;
    };
    const patch = (id: string, token: string, body: Record<string, unknown>) =>
      call(user.PATCH, `/v2/users/${id}`, { method: "PATCH", token, admin: true, params: { id }, body });

    it("creating a user with an admin role, or with a password, needs admin; nothing is created without it", async () => {
      const key = await everyButAdmin();
      refusedFor(
        await call(users.POST, "/v2/users", {
          token: key,
          admin: true,
          body: { email: "made-admin@scopes-a.test", accessRoles: [a.adminRoleId] },
        }),
        "admin",
      );
      refusedFor(
        await call(users.POST, "/v2/users", {
          token: key,
          admin: true,
          body: {
            email: "with-password@scopes-a.test",
            accessRoles: [a.memberRoleId],
            password: "chosen by the key 123",
          },
        }),
        "admin",
      );
      expect(
        await User.countDocuments({ email: { $in: ["made-admin@scopes-a.test", "with-password@scopes-a.test"] } }),
      ).toBe(0);

      const admin = await keyOf(a, ["users:write", "admin"]);
      expect(
        (
          await call(users.POST, "/v2/users", {
            token: admin,
            admin: true,
            body: {
              email: "made-admin@scopes-a.test",
              accessRoles: [a.adminRoleId],
              password: "chosen by the key 123",
            },
          })
        ).status,
      ).toBe(201);
      // A plain member is still users:write's to create.
      expect(
        (
          await call(users.POST, "/v2/users", {
            token: key,
            admin: true,
            body: { email: "plain@scopes-a.test", accessRoles: [a.memberRoleId] },
          })
        ).status,
      ).toBe(201);
    });

    it("granting or taking an admin role, setting a password, or changing an admin's account needs admin; nothing of the PATCH applies", async () => {
      const key = await everyButAdmin();
      const member = await memberOf(a, "patched-member@scopes-a.test", [a.memberRoleId]);
      const admin = await memberOf(a, "patched-admin@scopes-a.test", [a.adminRoleId, a.memberRoleId]);

      refusedFor(await patch(member, key, { accessRoles: [a.memberRoleId, a.adminRoleId], phone: "+34 111" }), "admin");
      refusedFor(await patch(admin, key, { accessRoles: [a.memberRoleId] }), "admin");
      refusedFor(await patch(member, key, { password: "set by a key 12345" }), "admin");
      refusedFor(
        await patch(admin, key, {
          name: { displayName: "Taken over", names: "Taken", lastName: "Over", secondLastName: "" },
        }),
        "admin",
      );
      refusedFor(await patch(admin, key, { phone: "+34 222" }), "admin");
      const [memberAfter, adminAfter] = await Promise.all([User.findById(member).lean(), User.findById(admin).lean()]);
      expect(memberAfter!.accessRoles.map(String)).toEqual([a.memberRoleId]);
      expect(memberAfter!.phone ?? null).toBeNull();
      expect(adminAfter!.accessRoles.map(String).sort()).toEqual([a.adminRoleId, a.memberRoleId].sort());
      expect(adminAfter!.phone ?? null).toBeNull();
      expect(await Credential.exists({ _id: oid(member) })).toBeNull();

      // What is not admin power stays users:write's: a member's account, an admin's other company-side fields.
      expect((await patch(member, key, { phone: "+34 333", accessRoles: [a.memberRoleId] })).status).toBe(200);
      expect((await patch(admin, key, { accessRoles: [a.adminRoleId, a.memberRoleId] })).status).toBe(200);

      const withAdmin = await keyOf(a, ["users:write", "admin"]);
      expect(
        (
          await patch(member, withAdmin, {
            accessRoles: [a.memberRoleId, a.adminRoleId],
            password: "set by a key 12345",
          })
        ).status,
      ).toBe(200);
      expect((await patch(admin, withAdmin, { phone: "+34 444" })).status).toBe(200);
    });

    it("a bulk action adding or removing an admin role needs admin, and changes nobody without it", async () => {
      const key = await everyButAdmin();
      const member = await memberOf(a, "bulk-member@scopes-a.test", [a.memberRoleId]);
      refusedFor(
        await call(bulk.POST, "/v2/users/bulk", {
          token: key,
          admin: true,
          body: { action: "addAccessRole", accessRoleId: a.adminRoleId, ids: [member] },
        }),
        "admin",
      );
      refusedFor(
        await call(bulk.POST, "/v2/users/bulk", {
          token: key,
          admin: true,
          body: { action: "removeAccessRole", accessRoleId: a.adminRoleId, ids: [a.adminId] },
        }),
        "admin",
      );
      expect((await User.findById(member).lean())!.accessRoles.map(String)).toEqual([a.memberRoleId]);
      const added = await call(bulk.POST, "/v2/users/bulk", {
        token: await keyOf(a, ["users:write", "admin"]),
        admin: true,
        body: { action: "addAccessRole", accessRoleId: a.adminRoleId, ids: [member] },
      });
      expect(success(added).summary.changed).toBe(1);
    });

    it("an import row granting or taking an admin role, or changing an admin's account, fails without admin", async () => {
      await memberOf(a, "import-admin@scopes-a.test", [a.adminRoleId, a.memberRoleId]);
      const csv = [
        "email,firstName,lastName,secondLastName,accessRoles,phone",
        "import-new-admin@scopes-a.test,New,Admin,,Admin,",
        "import-admin@scopes-a.test,,,,Admin;Member,+34 555",
        "import-plain@scopes-a.test,Plain,Member,,Member,",
      ].join("\n");
      const started = await call(importRoute.POST, "/v2/users/import", {
        method: "POST",
        token: await everyButAdmin(),
        admin: true,
        rawBody: csv,
        headers: { "content-type": "text/csv" },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      await new JobRunner({ batchSize: 10 }).runOnce();
      const id = success(started)._id;
      const done = success(
        await call(jobRoute.GET, `/v2/jobs/${id}`, { token: a.adminToken, admin: true, params: { id } }),
      );
      expect(done.summary).toEqual({ created: 1, updated: 0, unchanged: 0, failed: 2 });
      expect(done.errors.map((error) => [error.line, error.path])).toEqual([
        [2, "accessRoles"],
        [3, "phone"],
      ]);
      expect(done.errors.every((error) => error.message.includes("scope admin"))).toBe(true);
      expect(await User.countDocuments({ email: "import-new-admin@scopes-a.test" })).toBe(0);
      expect((await User.findOne({ email: "import-admin@scopes-a.test" }).lean())!.phone ?? null).toBeNull();
    });

    it("an access role's isAdmin, on create or change, needs admin; reference:write keeps the rest", async () => {
      const key = await everyButAdmin();
      refusedFor(
        await call(accessRoles.POST, "/v2/access-roles", {
          token: key,
          admin: true,
          body: { name: "Made admin by key", isAdmin: true },
        }),
        "admin",
      );
      expect(await AccessRole.countDocuments({ name: "Made admin by key" })).toBe(0);
      const memberRole = a.memberRoleId;
      refusedFor(
        await call(accessRole.PATCH, `/v2/access-roles/${memberRole}`, {
          method: "PATCH",
          token: key,
          admin: true,
          params: { id: memberRole },
          body: { isAdmin: true },
        }),
        "admin",
      );
      refusedFor(
        await call(accessRole.PATCH, `/v2/access-roles/${a.adminRoleId}`, {
          method: "PATCH",
          token: key,
          admin: true,
          params: { id: a.adminRoleId },
          body: { name: "Renamed", isAdmin: false },
        }),
        "admin",
      );
      expect((await AccessRole.findById(memberRole).lean())!.isAdmin).not.toBe(true);
      expect((await AccessRole.findById(a.adminRoleId).lean())!.name).toBe("Admin");

      expect(
        (
          await call(accessRoles.POST, "/v2/access-roles", {
            token: key,
            admin: true,
            body: { name: "Plain role", isAdmin: false },
          })
        ).status,
      ).toBe(201);
      // The same value is no change of isAdmin.
      expect(
        (
          await call(accessRole.PATCH, `/v2/access-roles/${memberRole}`, {
            method: "PATCH",
            token: key,
            admin: true,
            params: { id: memberRole },
            body: { name: "Members", isAdmin: false },
          })
        ).status,
      ).toBe(200);
      const made = await call(accessRoles.POST, "/v2/access-roles", {
        token: await keyOf(a, ["reference:write", "admin"]),
        admin: true,
        body: { name: "Second admin role", isAdmin: true },
      });
      expect(made.status).toBe(201);
      // Tenancy: another company's role is 404, whatever the scopes.
      expect(
        (
          await call(accessRole.PATCH, `/v2/access-roles/${b.memberRoleId}`, {
            method: "PATCH",
            token: await keyOf(a, SCOPES),
            admin: true,
            params: { id: b.memberRoleId },
            body: { isAdmin: true },
          })
        ).status,
      ).toBe(404);
    });
  });

  describe("keys record who made them, and an admin's keys end with their admin power", () => {
    const adminWithKeys = async (email: string) => {
      const made = await call(users.POST, "/v2/users", {
        token: a.adminToken,
        admin: true,
        body: { email, accessRoles: [a.adminRoleId, a.memberRoleId], password: "admin password 123" },
      });
      expect(made.status).toBe(201);
      const id = success(made)._id;
      const { createApiToken } = await import("@/lib/resources/auth/service");
      const token = (await createApiToken(email, 3600, a.companyId)).accessToken;
      const own = success(
        await call(apiKeys.POST, "/v2/api-keys", {
          token,
          admin: true,
          body: { name: `Own of ${email}`, scopes: ["users:read", "api-keys:write"] },
        }),
      );
      // A key the admin's key made in turn.
      const child = success(
        await call(apiKeys.POST, "/v2/api-keys", {
          token: own.key!,
          admin: true,
          body: { name: `Child of ${email}`, scopes: ["users:read"] },
        }),
      );
      return { id, own, child };
    };
    const listed = async () =>
      success(await call(apiKeys.GET, "/v2/api-keys?limit=100", { token: a.adminToken, admin: true })).data.apiKeys;

    it("names the user, or the key, that created each key", async () => {
      const { id, own, child } = await adminWithKeys("creator@scopes-a.test");
      const keys = await listed();
      expect(keys.find((key) => key._id === own._id)!.createdBy).toEqual({
        _id: id,
        type: "user",
        name: "creator@scopes-a.test",
        email: "creator@scopes-a.test",
      });
      expect(keys.find((key) => key._id === child._id)!.createdBy).toEqual({
        _id: own._id,
        type: "apiKey",
        name: own.name,
        email: null,
      });
    });

    it("deactivating an admin revokes the keys they made, and their keys' keys, unless revokeKeys=false", async () => {
      const kept = await adminWithKeys("kept@scopes-a.test");
      const deactivate = (id: string, query = "") =>
        call(user.PATCH, `/v2/users/${id}${query}`, {
          method: "PATCH",
          token: a.adminToken,
          admin: true,
          params: { id },
          body: { isActive: false },
        });
      expect((await deactivate(kept.id, "?revokeKeys=false")).status).toBe(200);
      expect((await listed()).map((key) => key._id)).toEqual(expect.arrayContaining([kept.own._id, kept.child._id]));

      const gone = await adminWithKeys("gone@scopes-a.test");
      const answer = await deactivate(gone.id);
      expect(answer.status).toBe(200);
      const ids = (await listed()).map((key) => key._id);
      expect(ids).not.toContain(gone.own._id);
      expect(ids).not.toContain(gone.child._id);
      expect((await call(users.GET, "/v2/users", { token: gone.own.key! })).status).toBe(401);
      expect((await call(users.GET, "/v2/users", { token: gone.child.key! })).status).toBe(401);
      // Another admin's keys stay.
      expect((await call(users.GET, "/v2/users", { token: kept.own.key! })).status).toBe(200);
    });

    it("a bulk removal of the admin role revokes them too; a member's deactivation touches no key", async () => {
      const demoted = await adminWithKeys("demoted@scopes-a.test");
      const removed = await call(bulk.POST, "/v2/users/bulk", {
        token: a.adminToken,
        admin: true,
        body: { action: "removeAccessRole", accessRoleId: a.adminRoleId, ids: [demoted.id] },
      });
      expect(success(removed).summary.changed).toBe(1);
      expect((await call(users.GET, "/v2/users", { token: demoted.own.key! })).status).toBe(401);

      const before = (await listed()).length;
      const member = success(
        await call(users.POST, "/v2/users", {
          token: a.adminToken,
          admin: true,
          body: { email: "plain-deactivated@scopes-a.test", accessRoles: [a.memberRoleId] },
        }),
      )._id;
      expect(
        success(
          await call(bulk.POST, "/v2/users/bulk", {
            token: a.adminToken,
            admin: true,
            body: { action: "deactivate", ids: [member] },
          }),
        ).summary.changed,
      ).toBe(1);
      expect((await listed()).length).toBe(before);
      // Another company's keys are never touched.
      const foreign = await keyOf(b, ["users:read"]);
      expect((await call(users.GET, "/v2/users", { token: foreign })).status).toBe(200);
    });
  });
});
