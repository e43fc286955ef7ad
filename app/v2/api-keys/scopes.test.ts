/**
 * The scope table of docs/security.md#scopes, one `describe` per row: what a key with the scope
 * may do, and what a key without it (or with every other scope) never does.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, callText, createTenant, failure, success, type Tenant } from "@/lib/testing/http";
import { useTestDatabase } from "@/lib/testing/database";
import { EVERY_TYPE_CONTENT } from "@/lib/testing/surveys";
import { SCOPES, type Scope } from "@/lib/schemas/scopes";
import * as apiKeys from "./route";
import * as outbox from "../outbox/route";
import * as users from "../users/route";
import * as events from "../events/route";
import * as auditLog from "../audit-log/route";
import * as surveys from "../surveys/route";
import * as content from "../surveys/[id]/content/route";
import * as answers from "../surveys/[id]/answers/route";
import * as answersCsv from "../surveys/[id]/answers.csv/route";
import * as results from "../surveys/[id]/results/route";
import * as views from "../views/route";
import * as view from "../views/[id]/route";

describe("the scope table (docs/security.md#scopes)", () => {
  useTestDatabase();
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTenant("Scopes A"), createTenant("Scopes B")]);
  });

  let n = 0;
  const keyOf = async (tenant: Tenant, scopes: readonly Scope[]) => {
    const made = await call(apiKeys.POST, "/v2/api-keys", { token: tenant.adminToken, admin: true, body: { name: `Key ${++n}`, scopes } });
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
      const answer = await call(apiKeys.POST, "/v2/api-keys", { token: a.adminToken, admin: true, body: { name: "Twice", scopes: ["users:read", "audit:read", "users:read"] } });
      expect(answer.status).toBe(400);
      expect(failure(answer).code).toBe("invalid_request");
      expect(failure(answer).details).toEqual([{ path: "scopes.2", message: "repeats the scope users:read" }]);
    });
  });

  describe("the outbox: signed-in admins only", () => {
    it("is refused to a key holding every scope; a signed-in admin reads it", async () => {
      const invited = await call(users.POST, "/v2/users?notifyEmail=true", { token: a.adminToken, admin: true, body: { email: "invited@scopes-a.test", accessRoles: [a.memberRoleId] } });
      expect(invited.status).toBe(201);
      const key = await keyOf(a, SCOPES);
      const refused = await call(outbox.GET, "/v2/outbox", { token: key, admin: true });
      expect(refused.status).toBe(403);
      expect(failure(refused)).toMatchObject({ code: "insufficient_scope", message: "This operation is not open to API keys." });
      const read = await call(outbox.GET, "/v2/outbox?to=invited@scopes-a.test", { token: a.adminToken, admin: true });
      expect(success(read).data.mails[0].text).toMatch(/\/invitation\/[A-Za-z0-9_-]{20,}/);
    });

    it("lets no other answer to a key carry an invitation token: the create, its event, its audit entry", async () => {
      const key = await keyOf(a, ["users:read", "users:write", "events:read", "audit:read"]);
      const created = await call(users.POST, "/v2/users?notifyEmail=true", { token: key, admin: true, body: { email: "by-key@scopes-a.test", accessRoles: [a.memberRoleId] } });
      expect(created.status).toBe(201);
      const mail = success(await call(outbox.GET, "/v2/outbox?to=by-key@scopes-a.test", { token: a.adminToken, admin: true })).data.mails[0];
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
      refusedFor(await call(auditLog.GET, "/v2/audit-log", { token: await keyOf(a, everyScopeBut("audit:read")), admin: true }), "audit:read");
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
      const made = await call(surveys.POST, "/v2/surveys", { token: tenant.adminToken, admin: true, body: { code, name: code, version: 2, permissionsV2 } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const id = success(made)._id;
      const put = await call(content.PUT, `/v2/surveys/${id}/content`, { method: "PUT", token: tenant.adminToken, admin: true, body: EVERY_TYPE_CONTENT, params: { id } });
      expect(put.status).toBe(200);
      return { id, question: success(put).chat!.flatMap((chat) => chat.questions).find((q) => q.type === "text")!._id };
    };

    beforeAll(async () => {
      ({ id: surveyId, question } = await makeSurvey(a, "scoped_open", [{ accessRole: a.memberRoleId, canAnswer: true }]));
      ({ id: closedId } = await makeSurvey(a, "scoped_closed", []));
      ({ id: foreignId } = await makeSurvey(b, "scoped_foreign", [{ accessRole: b.memberRoleId, canAnswer: true }]));
    });

    const post = (id: string, token: string) => call(answers.POST, `/v2/surveys/${id}/answers`, { token, params: { id }, body: { answers: [{ question, value: "From a kiosk" }] } });

    it("answers:write answers a survey some role may answer, naming no user; never one closed to every role, nor another company's", async () => {
      refusedFor(await post(surveyId, await keyOf(a, everyScopeBut("answers:write"))), "answers:write");
      const writer = await keyOf(a, ["answers:write"]);
      const made = await post(surveyId, writer);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const closed = await post(closedId, writer);
      expect(closed.status).toBe(403);
      expect(failure(closed).code).toBe("forbidden");
      expect((await post(foreignId, writer)).status).toBe(404);

      const listed = success(await call(answers.GET, `/v2/surveys/${surveyId}/answers`, { token: a.adminToken, admin: true, params: { id: surveyId } })).data.answers;
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
      expect(success(await call(answers.GET, `/v2/surveys/${surveyId}/answers`, options(reader))).data.answers.length).toBeGreaterThan(0);
      expect((await call(results.GET, `/v2/surveys/${surveyId}/results`, options(reader))).status).toBe(200);
      expect((await callText(answersCsv.GET, `/v2/surveys/${surveyId}/answers.csv`, options(reader))).text).toContain("From a kiosk");
      const withoutHeader = await call(answers.GET, `/v2/surveys/${surveyId}/answers`, options(reader, false));
      expect(withoutHeader.status).toBe(403);
      expect(failure(withoutHeader).code).toBe("forbidden");
      expect((await call(answers.GET, `/v2/surveys/${foreignId}/answers`, { token: reader, admin: true, params: { id: foreignId } })).status).toBe(404);
    });
  });

  describe("views:write", () => {
    it("moderates another member's shared view; reference:write alone does not", async () => {
      const shared = await call(views.POST, "/v2/views", { token: a.memberToken, body: { resource: "users", name: "Shared by a member", query: "isActive=all", shared: true } });
      expect(shared.status).toBe(201);
      const id = success(shared)._id;
      const referenceWriter = await keyOf(a, everyScopeBut("views:write"));
      refusedFor(await call(view.PATCH, `/v2/views/${id}`, { method: "PATCH", token: referenceWriter, admin: true, params: { id }, body: { name: "Taken over" } }), "views:write");
      refusedFor(await call(view.DELETE, `/v2/views/${id}`, { method: "DELETE", token: referenceWriter, admin: true, params: { id } }), "views:write");
      expect(success(await call(view.GET, `/v2/views/${id}`, { token: referenceWriter, params: { id } })).name).toBe("Shared by a member");

      const moderator = await keyOf(a, ["reference:write", "views:write"]);
      const renamed = await call(view.PATCH, `/v2/views/${id}`, { method: "PATCH", token: moderator, admin: true, params: { id }, body: { name: "Moderated" } });
      expect(renamed.status).toBe(200);
      expect((await call(view.DELETE, `/v2/views/${id}`, { method: "DELETE", token: moderator, admin: true, params: { id } })).status).toBe(204);
      // A key of another company does not see it at all.
      const foreign = await call(views.POST, "/v2/views", { token: b.memberToken, body: { resource: "users", name: "B's", query: "", shared: true } });
      const foreignId = success(foreign)._id;
      expect((await call(view.DELETE, `/v2/views/${foreignId}`, { method: "DELETE", token: moderator, admin: true, params: { id: foreignId } })).status).toBe(404);
    });
  });
});
