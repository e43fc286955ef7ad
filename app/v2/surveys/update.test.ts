import { Survey } from "@/lib/resources/surveys/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as revisions from "./[id]/revisions/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("PATCH /v2/surveys/{id}", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  const roles: string[] = [];
  let n = 0;

  async function create(body: Record<string, unknown> = {}, tenant = t) {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: tenant.adminToken,
      admin: true,
      body: { code: `patch_${++n}`, name: `Survey ${n}`, version: 1, ...body },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response);
  }

  const patch = (id: string, body: unknown, options: { token?: string; admin?: boolean; query?: string } = {}) =>
    call(survey.PATCH, `/v2/surveys/${id}${options.query ?? ""}`, {
      method: "PATCH",
      token: options.token ?? t.adminToken,
      admin: options.admin ?? true,
      body,
      params: { id },
    });

  const history = (id: string, query = "", token = t.adminToken) =>
    call(revisions.GET, `/v2/surveys/${id}/revisions${query}`, { token, admin: true, params: { id } });

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Surveys update"), createTenant("Surveys update other")]);
    for (const name of ["Reviewer", "Auditor", "Support"]) {
      const response = await call(accessRoles.POST, "/v2/access-roles", {
        token: t.adminToken,
        admin: true,
        body: { name },
      });
      roles.push(success(response)._id);
    }
  });

  describe("changes only the fields sent", () => {
    it("answers the full survey with the change, a later modifiedAt and __v + 1", async () => {
      const before = await create({ permissions: [roles[0]] });
      const response = await patch(before._id, { name: "Renamed" });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      const after = success(response);
      expect(after).toEqual({ ...before, name: "Renamed", modifiedAt: after.modifiedAt, __v: 1 });
      expect(Date.parse(after.modifiedAt)).toBeGreaterThan(Date.parse(before.modifiedAt));
      expect(after.createdAt).toBe(before.createdAt);
    });

    it("changes every writable field", async () => {
      const before = await create();
      const body = {
        code: `changed_${n}`,
        isActive: false,
        isSystemModel: true,
        group: "Sales",
        groupPermissions: [roles[1]],
        permissionsV2: [{ accessRole: roles[2], canViewAnswers: true }],
        groupPermissionsV2: [{ group: "hr", accessRoles: [roles[0]] }],
        onlySubSurvey: true,
        propertiesChannel: [],
        responders: [t.memberId],
      };
      const response = await patch(before._id, body);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        ...body,
        permissionsV2: [{ accessRole: roles[2], canAnswer: true, canViewAnswers: true }],
        version: 1,
        name: before.name,
      });
      expect(success(await patch(before._id, { group: null })).group).toBeNull();
    });

    it("an empty body still advances modifiedAt and __v", async () => {
      const before = await create();
      const response = await patch(before._id, {});
      expect(response.status).toBe(200);
      expect(success(response).__v).toBe(1);
      expect(success(response).modifiedAt > before.modifiedAt).toBe(true);
    });

    it("modifiedAt advances on every PATCH, even within one millisecond", async () => {
      const before = await create();
      let last = before.modifiedAt;
      for (let i = 0; i < 5; i++) {
        const response = await patch(before._id, { isActive: i % 2 === 0 });
        expect(Date.parse(success(response).modifiedAt)).toBeGreaterThan(Date.parse(last));
        last = success(response).modifiedAt;
      }
    });

    it("never stores or shows internal fields", async () => {
      const before = await create();
      const response = await patch(before._id, { name: "Lower Me" });
      expect(success(response)).not.toHaveProperty("nameLower");
      expect((await Survey.findById(before._id).lean())?.nameLower).toBe("lower me");
    });

    it("ignores server-managed fields with a debug warning", async () => {
      const before = await create();
      const response = await patch(
        before._id,
        { __v: 99, _id: "0".repeat(24), company: other.companyId, name: "Managed" },
        { query: "?debug=true" },
      );
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ _id: before._id, __v: 1, company: t.companyId, name: "Managed" });
      expect(success(response).debug!.filter((note) => note.code === "ignored_field")).toHaveLength(3);
    });
  });

  describe("permissions", () => {
    it("a single id adds it, without duplicates; an array replaces", async () => {
      const before = await create({ permissions: [roles[0]] });
      let response = await patch(before._id, { permissions: roles[1] });
      expect(success(response).permissions).toEqual([roles[0], roles[1]]);
      response = await patch(before._id, { permissions: roles[1].toUpperCase() });
      expect(success(response).permissions).toEqual([roles[0], roles[1]]);
      expect(success(response).__v).toBe(2);
      response = await patch(before._id, { permissions: [roles[2], roles[2]] });
      expect(success(response).permissions).toEqual([roles[2]]);
      response = await patch(before._id, { permissions: [] });
      expect(success(response).permissions).toEqual([]);
    });

    it("ids are checked against the company's access roles → 400 unknown_reference, nothing stored", async () => {
      const before = await create();
      for (const body of [
        { permissions: other.adminRoleId },
        { permissions: [roles[0], "0".repeat(24)] },
        { groupPermissionsV2: [{ group: "g", accessRoles: [other.memberRoleId] }] },
        { responders: [other.memberId] },
      ]) {
        const response = await patch(before._id, body);
        expect(response.status).toBe(400);
        expect(failure(response).code).toBe("unknown_reference");
      }
      const response = await patch(before._id, { permissions: "nope" });
      expect(response.status).toBe(400);
      expect(failure(response)).toMatchObject({ code: "invalid_request", details: [{ path: "permissions" }] });
      expect(success(await history(before._id)).data.revisions).toHaveLength(1);
      expect((await Survey.findById(before._id).lean())?.__v).toBe(0);
    });
  });

  describe("errors", () => {
    it("code rules and a duplicate code → 400 / 409, and no revision", async () => {
      const a = await create();
      const b = await create();
      expect((await patch(b._id, { code: "Bad Code" })).status).toBe(400);
      expect((await patch(b._id, { code: "c".repeat(61) })).status).toBe(400);
      expect((await patch(b._id, { code: "c".repeat(60) })).status).toBe(200);
      const duplicate = await patch(b._id, { code: a.code });
      expect(duplicate.status).toBe(409);
      expect(failure(duplicate).details).toEqual([{ path: "code", message: "is already in use" }]);
      expect(success(await history(b._id)).data.revisions.map((r) => r.__v)).toEqual([1, 0]);
      expect((await patch(b._id, { code: b.code })).status).toBe(200);
    });

    it("a code of another company's survey is free", async () => {
      const theirs = await create({}, other);
      const mine = await create();
      expect((await patch(mine._id, { code: theirs.code })).status).toBe(200);
    });

    it.each([
      ["name", { name: "" }],
      ["version", { version: 3 }],
      ["an unknown field", { title: "x" }],
      ["isActive", { isActive: null }],
      ["permissionsV2", { permissionsV2: [{ accessRole: "x" }] }],
    ])("a bad %s → 400 invalid_request", async (_, body) => {
      const before = await create();
      const response = await patch(before._id, body);
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("invalid_request");
    });

    it("a malformed id → 400 invalid_id; an unknown one → 404", async () => {
      expect(failure(await patch("nope", { name: "x" })).code).toBe("invalid_id");
      const missing = await patch("0123456789abcdef01234567", { name: "x" });
      expect(missing.status).toBe(404);
      expect(failure(missing).code).toBe("not_found");
    });

    it("another company's survey → 404, unchanged", async () => {
      const theirs = await create({}, other);
      const response = await patch(theirs._id, { name: "Hijacked" });
      expect(response.status).toBe(404);
      expect((await Survey.findById(theirs._id).lean())?.name).toBe(theirs.name);
      expect((await patch(theirs._id, { name: "Hijacked", version: 2 })).status).toBe(404);
    });

    it("Admin rule: none → 403 admin_required; a member → 403 forbidden", async () => {
      const before = await create();
      expect(failure(await patch(before._id, { name: "x" }, { admin: false })).code).toBe("admin_required");
      expect(failure(await patch(before._id, { name: "x" }, { token: t.memberToken })).code).toBe("forbidden");
    });
  });

  describe("version migration", () => {
    it("1 → 2 derives permissionsV2 and groupPermissionsV2; 2 → 1 derives them back", async () => {
      const before = await create({ permissions: [roles[0], roles[1]], group: "Sales", groupPermissions: [roles[2]] });
      const up = await patch(before._id, { version: 2 }, { query: "?debug=true" });
      expect(up.status).toBe(200);
      expect(up.body).toMatchObject({
        version: 2,
        permissionsV2: [
          { accessRole: roles[0], canAnswer: true, canViewAnswers: false },
          { accessRole: roles[1], canAnswer: true, canViewAnswers: false },
        ],
        groupPermissionsV2: [{ group: "Sales", accessRoles: [roles[2]] }],
        onlySubSurvey: false,
        // The version 1 fields stay as they were.
        permissions: [roles[0], roles[1]],
        group: "Sales",
      });
      expect(success(up).debug).toContainEqual(expect.objectContaining({ code: "migrated", level: "info" }));

      // In version 2, an admin grants viewing answers and removes a role, adds a group.
      const edited = await patch(before._id, {
        permissionsV2: [
          { accessRole: roles[0], canViewAnswers: true },
          { accessRole: roles[2], canAnswer: false, canViewAnswers: true },
        ],
        groupPermissionsV2: [
          { group: "Sales", accessRoles: [roles[2]] },
          { group: "Support", accessRoles: [roles[1]] },
        ],
        onlySubSurvey: true,
      });
      expect(edited.status).toBe(200);

      const down = await patch(before._id, { version: 1 }, { query: "?debug=true" });
      expect(down.body).toMatchObject({
        version: 1,
        permissions: [roles[0]],
        group: "Sales",
        groupPermissions: [roles[2]],
      });
      const losses = success(down)
        .debug!.filter((note) => note.code === "migration_loss")
        .map((note) => note.path);
      expect(losses.sort()).toEqual(["groupPermissionsV2", "onlySubSurvey", "permissionsV2"]);

      // And up again: the view-answers flags are kept for the roles still granted.
      const again = await patch(before._id, { version: 2 });
      expect(success(again).permissionsV2).toEqual([
        { accessRole: roles[0], canAnswer: true, canViewAnswers: true },
        { accessRole: roles[2], canAnswer: false, canViewAnswers: true },
      ]);
      expect(success(again).groupPermissionsV2).toEqual([{ group: "Sales", accessRoles: [roles[2]] }]);
      expect(success(again).__v).toBe(4);
    });

    it("fields of the new model sent with the version change are taken as sent", async () => {
      const before = await create({ permissions: [roles[0]] });
      const response = await patch(before._id, { version: 2, permissionsV2: [{ accessRole: roles[1] }] });
      expect(success(response).permissionsV2).toEqual([
        { accessRole: roles[1], canAnswer: true, canViewAnswers: false },
      ]);
      expect(success(response).groupPermissionsV2).toEqual([]);
    });

    it("old-model fields sent with the version change are applied before migrating", async () => {
      const before = await create({ permissions: [roles[0]] });
      const response = await patch(before._id, { version: 2, permissions: roles[1] });
      expect(success(response).permissions).toEqual([roles[0], roles[1]]);
      expect(success(response).permissionsV2.map((p) => p.accessRole)).toEqual([roles[0], roles[1]]);
    });

    it("sending the same version changes nothing but __v and modifiedAt", async () => {
      const before = await create({ permissions: [roles[0]] });
      const response = await patch(before._id, { version: 1 });
      expect(response.body).toEqual({ ...before, modifiedAt: success(response).modifiedAt, __v: 1 });
    });

    it("warns about fields of the model not in force", async () => {
      const before = await create();
      const response = await patch(before._id, { onlySubSurvey: true, permissions: [] }, { query: "?debug=true" });
      expect(success(response).debug).toEqual([
        expect.objectContaining({ code: "dormant_field", path: "onlySubSurvey" }),
      ]);
    });
  });

  describe("GET /v2/surveys/{id}/revisions", () => {
    it("lists revisions newest first with who, when and the full survey", async () => {
      const before = await create();
      await patch(before._id, { name: "Second" });
      const third = success(await patch(before._id, { name: "Third", permissions: roles[0] }));
      const response = await history(before._id);
      expect(response.status).toBe(200);
      const { data } = success(response);
      expect(Object.keys(data).sort()).toEqual(["limit", "next", "page", "revisions"]);
      expect(data.revisions.map((r) => [r.__v, r.snapshot.name])).toEqual([
        [2, "Third"],
        [1, "Second"],
        [0, before.name],
      ]);
      expect(data.revisions[0]).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        surveyId: before._id,
        __v: 2,
        snapshot: third,
        modifiedBy: t.adminId,
        createdAt: expect.stringMatching(/Z$/),
      });
      expect(data.revisions[2].snapshot).toEqual(before);
    });

    it("pages like lists, with count", async () => {
      const before = await create();
      for (let i = 0; i < 4; i++) await patch(before._id, { name: `Name ${i}` });
      const page2 = await history(before._id, "?limit=2&page=2&count=true");
      expect(success(page2).data).toMatchObject({ page: 2, limit: 2, counter: 5 });
      expect(success(page2).data.revisions.map((r) => r.__v)).toEqual([2, 1]);
      expect(success(await history(before._id, "?page=9")).data.revisions).toEqual([]);
      for (const bad of ["?limit=0", "?limit=101", "?page=0", "?page=x", "?count=yes"]) {
        const response = await history(before._id, bad);
        expect(response.status, bad).toBe(400);
      }
    });

    it("another company's survey, an unknown one → 404; Admin rule applies", async () => {
      const theirs = await create({}, other);
      expect((await history(theirs._id)).status).toBe(404);
      expect((await history("0123456789abcdef01234567")).status).toBe(404);
      expect(failure(await history("123")).code).toBe("invalid_id");
      const noAdmin = await call(revisions.GET, `/v2/surveys/${theirs._id}/revisions`, {
        token: other.adminToken,
        params: { id: theirs._id },
      });
      expect(failure(noAdmin).code).toBe("admin_required");
      expect(failure(await history(theirs._id, "", other.memberToken)).code).toBe("forbidden");
    });
  });
});
