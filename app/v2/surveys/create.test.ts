import { oid } from "@/lib/kernel/ids";
import { SurveyRecord } from "@/lib/resources/surveys/contract";
import { SurveyRevision } from "@/lib/resources/surveys/parts";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as properties from "../properties/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("POST /v2/surveys", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  let n = 0;
  const code = () => `survey_${++n}`;

  const post = (body: unknown, options: { token?: string; admin?: boolean | string; query?: string } = {}) =>
    call(surveys.POST, `/v2/surveys${options.query ?? ""}`, {
      token: options.token ?? t.adminToken,
      admin: options.admin ?? true,
      body,
    });

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Surveys create"), createTenant("Surveys other")]);
  });

  describe("success", () => {
    it("answers 201 with Location and the survey's defaults", async () => {
      const response = await post({ code: "welcome_2026", name: "Welcome", version: 1 });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const record = success(response);
      expect(response.headers.get("location")).toBe(`/v2/surveys/${record._id}`);
      expect(SurveyRecord.strict().safeParse(record).success).toBe(true);
      expect(record).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        code: "welcome_2026",
        name: "Welcome",
        version: 1,
        company: t.companyId,
        isActive: true,
        isSystemModel: false,
        permissions: [],
        group: null,
        groupPermissions: [],
        permissionsV2: [],
        groupPermissionsV2: [],
        onlySubSurvey: false,
        propertiesChannel: [],
        propertiesLimit: [],
        responders: [],
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        modifiedAt: record.createdAt,
        __v: 0,
      });
      const read = await call(survey.GET, `/v2/surveys/${record._id}`, {
        token: t.adminToken,
        admin: true,
        params: { id: record._id },
      });
      expect(read.body).toEqual(record);
    });

    it("accepts the other fields of the survey, checked against the company", async () => {
      const property = success(
        await call(properties.POST, "/v2/properties", {
          token: t.adminToken,
          admin: true,
          body: { name: "Channel A" },
        }),
      )._id;
      const body = {
        code: code(),
        name: "  Everything  ",
        version: 2,
        isActive: false,
        isSystemModel: true,
        permissionsV2: [
          { accessRole: t.memberRoleId },
          { accessRole: t.adminRoleId, canAnswer: false, canViewAnswers: true },
        ],
        groupPermissionsV2: [{ group: "hr", accessRoles: [t.adminRoleId, t.adminRoleId] }],
        onlySubSurvey: true,
        propertiesChannel: [property],
        propertiesLimit: [property.toUpperCase()],
        responders: [t.memberId],
      };
      const response = await post(body);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body).toMatchObject({
        name: "Everything",
        version: 2,
        isActive: false,
        isSystemModel: true,
        permissionsV2: [
          { accessRole: t.memberRoleId, canAnswer: true, canViewAnswers: false },
          { accessRole: t.adminRoleId, canAnswer: false, canViewAnswers: true },
        ],
        groupPermissionsV2: [{ group: "hr", accessRoles: [t.adminRoleId] }],
        onlySubSurvey: true,
        propertiesChannel: [property],
        propertiesLimit: [property],
        responders: [t.memberId],
      });
    });

    it("takes one access role id in permissions as a list of one", async () => {
      const response = await post({ code: code(), name: "One role", version: 1, permissions: t.memberRoleId });
      expect(response.status).toBe(201);
      expect(success(response).permissions).toEqual([t.memberRoleId]);
    });

    it("ignores server-managed fields with a debug warning each", async () => {
      const response = await post(
        {
          code: code(),
          name: "Managed",
          version: 1,
          _id: "0123456789abcdef01234567",
          __v: 7,
          company: other.companyId,
          createdAt: "2000-01-01T00:00:00.000Z",
          chat: [],
        },
        { query: "?debug=true" },
      );
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ __v: 0, company: t.companyId });
      expect(success(response)._id).not.toBe("0123456789abcdef01234567");
      expect(success(response).createdAt).not.toBe("2000-01-01T00:00:00.000Z");
      const ignored = success(response)
        .debug!.filter((note) => note.code === "ignored_field")
        .map((note) => note.path);
      expect(ignored.sort()).toEqual(["__v", "_id", "chat", "company", "createdAt"]);
    });

    it("warns in debug about fields of the permission model not in force", async () => {
      const response = await post(
        { code: code(), name: "Dormant", version: 1, onlySubSurvey: true, permissions: [t.memberRoleId] },
        { query: "?debug=true" },
      );
      expect(response.status).toBe(201);
      expect(success(response).debug).toContainEqual(
        expect.objectContaining({ level: "warning", code: "dormant_field", path: "onlySubSurvey" }),
      );
      expect(success(response).debug!.some((note) => note.path === "permissions")).toBe(false);
    });

    it("stores revision 0 with the survey and who created it", async () => {
      const response = await post({ code: code(), name: "Revised", version: 1 });
      const revisions = await SurveyRevision.find({ survey: oid(success(response)._id) }).lean();
      expect(revisions).toHaveLength(1);
      expect(revisions[0].__v).toBe(0);
      expect(revisions[0].modifiedBy?.toHexString()).toBe(t.adminId);
    });
  });

  describe("code", () => {
    const cases: [string, unknown, number][] = [
      ["60 characters", "a".repeat(60), 201],
      ["61 characters", "b".repeat(61), 400],
      ["one character", "x", 201],
      ["digits and underscore only", "_0_9_", 201],
      ["empty", "", 400],
      ["uppercase", "Survey", 400],
      ["a hyphen", "my-survey", 400],
      ["a space", "my survey", 400],
      ["a leading space", " survey", 400],
      ["unicode letters", "encuesta_año", 400],
      ["unicode digits", "survey_٣", 400],
      ["an emoji", "survey_😀", 400],
      ["a dot", "a.b", 400],
      ["a regex", "^.*$", 400],
      ["a number", 12345, 400],
      ["null", null, 400],
    ];
    for (const [what, value, status] of cases) {
      it(`${what} → ${status}`, async () => {
        const response = await post({ code: value, name: "Code case", version: 1 });
        expect(response.status, JSON.stringify(response.body)).toBe(status);
        if (status === 400) {
          expect(failure(response).code).toBe("invalid_request");
          expect(failure(response).details).toEqual([{ path: "code", message: expect.any(String) }]);
        } else {
          expect(success(response).code).toBe(value);
        }
      });
    }

    it("is unique within the company: a duplicate is 409 and stores no revision", async () => {
      const first = await post({ code: "dup_code", name: "First", version: 1 });
      expect(first.status).toBe(201);
      const before = await SurveyRevision.countDocuments({ company: oid(t.companyId) });
      const second = await post({ code: "dup_code", name: "Second", version: 2 });
      expect(second.status).toBe(409);
      expect(failure(second)).toMatchObject({
        code: "conflict",
        details: [{ path: "code", message: "is already in use" }],
      });
      expect(await SurveyRevision.countDocuments({ company: oid(t.companyId) })).toBe(before);
    });

    it("two concurrent creates of one code: one 201 and one 409", async () => {
      for (let round = 0; round < 5; round++) {
        const same = `race_${round}`;
        const statuses = (
          await Promise.all([1, 2].map((version) => post({ code: same, name: `Race ${version}`, version })))
        ).map((r) => r.status);
        expect(statuses.sort()).toEqual([201, 409]);
      }
      const many = await Promise.all(
        Array.from({ length: 10 }, () => post({ code: "race_many", name: "Many", version: 1 })),
      );
      expect(many.filter((r) => r.status === 201)).toHaveLength(1);
      expect(many.filter((r) => r.status === 409)).toHaveLength(9);
    });

    it("another company may reuse a code", async () => {
      expect((await post({ code: "shared_code", name: "Mine", version: 1 })).status).toBe(201);
      const theirs = await post({ code: "shared_code", name: "Theirs", version: 1 }, { token: other.adminToken });
      expect(theirs.status).toBe(201);
      expect(success(theirs).company).toBe(other.companyId);
    });
  });

  describe("validation", () => {
    it("requires code, name and version, naming each", async () => {
      const response = await post({});
      expect(response.status).toBe(400);
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["code", "name", "version"]);
    });

    it.each([
      ["version 3", { version: 3 }, "version"],
      ["version as a string", { version: "1" }, "version"],
      ["version 1.5", { version: 1.5 }, "version"],
      ["empty name", { name: "   " }, "name"],
      ["name too long", { name: "n".repeat(201) }, "name"],
      ["name not a string", { name: 5 }, "name"],
      ["isActive not a boolean", { isActive: "true" }, "isActive"],
      ["permissions with a malformed id", { permissions: ["0".repeat(24), "nope"] }, "permissions.1"],
      ["permissions as a number", { permissions: 5 }, "permissions"],
      ["permissionsV2 without accessRole", { permissionsV2: [{}] }, "permissionsV2.0.accessRole"],
      [
        "permissionsV2 with an unknown key",
        { permissionsV2: [{ accessRole: "0".repeat(24), admin: true }] },
        "permissionsV2.0.admin",
      ],
      [
        "permissionsV2 naming a role twice",
        { permissionsV2: [{ accessRole: "0".repeat(24) }, { accessRole: "0".repeat(24) }] },
        "permissionsV2.1",
      ],
      [
        "groupPermissionsV2 with an empty group",
        { groupPermissionsV2: [{ group: "", accessRoles: [] }] },
        "groupPermissionsV2.0.group",
      ],
      ["group not a string", { group: 1 }, "group"],
      ["responders not an array", { responders: "x" }, "responders"],
      ["an unknown field", { colour: "red" }, "colour"],
    ])("%s → 400 naming %s", async (_, patch, path) => {
      const response = await post({ code: code(), name: "Valid", version: 1, ...patch });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(failure(response).code).toBe("invalid_request");
      expect(failure(response).details?.map((d) => d.path)).toContain(path);
    });

    it("ids of another company or of nothing → 400 unknown_reference naming each", async () => {
      const response = await post({
        code: code(),
        name: "Foreign",
        version: 1,
        permissions: [t.memberRoleId, other.memberRoleId],
        groupPermissions: ["0".repeat(24)],
        permissionsV2: [{ accessRole: other.adminRoleId }],
        propertiesChannel: [t.memberRoleId],
        responders: [other.adminId, t.adminId],
      });
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("unknown_reference");
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual([
        "groupPermissions.0",
        "permissions.1",
        "permissionsV2.0.accessRole",
        "propertiesChannel.0",
        "responders.0",
      ]);
    });

    it("malformed JSON → 400 invalid_json; no JSON content type → 415", async () => {
      const bad = await call(surveys.POST, "/v2/surveys", {
        token: t.adminToken,
        admin: true,
        rawBody: "{",
        headers: { "content-type": "application/json" },
      });
      expect(bad.status).toBe(400);
      expect(failure(bad).code).toBe("invalid_json");
      const text = await call(surveys.POST, "/v2/surveys", {
        token: t.adminToken,
        admin: true,
        rawBody: "code=x",
        headers: { "content-type": "text/plain" },
      });
      expect(text.status).toBe(415);
    });
  });

  describe("authentication and the Admin rule", () => {
    it("no token → 401", async () => {
      const response = await call(surveys.POST, "/v2/surveys", {
        admin: true,
        body: { code: code(), name: "x", version: 1 },
      });
      expect(response.status).toBe(401);
    });

    it("without Admin: true → 403 admin_required; Admin: false as well", async () => {
      expect(failure(await post({ code: code(), name: "x", version: 1 }, { admin: false })).code).toBe(
        "admin_required",
      );
      expect((await post({ code: code(), name: "x", version: 1 }, { admin: "false" })).status).toBe(403);
    });

    it("a member sending Admin: true → 403 forbidden", async () => {
      const response = await post({ code: code(), name: "x", version: 1 }, { token: t.memberToken });
      expect(response.status).toBe(403);
      expect(failure(response).code).toBe("forbidden");
    });
  });
});
