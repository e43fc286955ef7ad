import { oid } from "@/lib/kernel/ids";
import { route } from "@/lib/platform/http/route";
import { Credential } from "@/lib/resources/credentials/repository";
import type { UserRecord } from "@/lib/resources/users/contract";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, notesOf, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as jobTitles from "../job-titles/route";
import * as user from "./[id]/route";
import * as me from "./me/route";
import * as users from "./route";

const name = { displayName: "Ana Pérez", names: "Ana", lastName: "Pérez", secondLastName: "" };

describe("POST and PATCH /v2/users", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await createTenant("Writes");
    other = await createTenant("Elsewhere");
  });

  const post = (body: unknown, options: { query?: string; token?: string; admin?: boolean | string } = {}) =>
    call(users.POST, `/v2/users${options.query ?? ""}`, {
      token: options.token ?? t.adminToken,
      admin: options.admin ?? true,
      body,
    });
  const patch = (
    id: string,
    body: Record<string, unknown>,
    options: { token?: string; admin?: boolean | string; query?: string } = {},
  ) =>
    call(user.PATCH, `/v2/users/${id}${options.query ?? ""}`, {
      method: "PATCH",
      token: options.token ?? t.adminToken,
      admin: options.admin ?? true,
      params: { id },
      body,
    });
  const get = (id: string, token = t.adminToken) => call(user.GET, `/v2/users/${id}`, { token, params: { id } });

  describe("create", () => {
    it("answers 201 with Location and the record with its defaults", async () => {
      const response = await post({ email: "  New.User@Example.COM ", accessRoles: [t.memberRoleId], name });
      expect(response.status).toBe(201);
      expect(response.headers.get("location")).toBe(`/v2/users/${success(response)._id}`);
      expect(response.body).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name,
        email: "new.user@example.com",
        accessRoles: [t.memberRoleId],
        properties: [],
        job: null,
        bot: null,
        phone: null,
        isActive: true,
        isOnline: false,
        termsConditions: false,
        search: ["ana", "perez", "new", "user", "example", "com", "newuserexamplecom"],
        companies: [
          {
            _id: expect.stringMatching(/^[0-9a-f]{24}$/),
            companyId: t.companyId,
            hierarchy: { boss: [], peers: [], subordinate: [] },
          },
        ],
        lastRequestDate: null,
        createdAt: expect.stringMatching(/Z$/),
        modifiedAt: success(response).createdAt,
        extensions: {},
      });
      expect((await get(success(response)._id)).body).toEqual(response.body);
    });

    it("accepts a user without name, and optional fields", async () => {
      const job = success(
        await call(jobTitles.POST, "/v2/job-titles", { token: t.adminToken, admin: true, body: { name: "Chef" } }),
      )._id;
      const response = await post({
        email: "noname@example.com",
        accessRoles: [t.memberRoleId],
        phone: "+34 600 000 000",
        job,
        isOnline: true,
        termsConditions: true,
        extensions: { team: "blue", tags: ["a", "b"], nested: { n: 1 } },
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        name: null,
        phone: "+34 600 000 000",
        job,
        isOnline: true,
        termsConditions: true,
        extensions: { team: "blue", tags: ["a", "b"], nested: { n: 1 } },
      });
    });

    it("ignores server-managed fields and companies, with debug warnings", async () => {
      const response = await post(
        {
          email: "managed@example.com",
          accessRoles: [t.memberRoleId],
          _id: "0123456789abcdef01234567",
          search: ["hacked"],
          createdAt: "2000-01-01T00:00:00.000Z",
          modifiedAt: "2000-01-01T00:00:00.000Z",
          lastRequestDate: "2000-01-01T00:00:00.000Z",
          __v: 7,
          companies: [{ companyId: other.companyId }],
        },
        { query: "?debug=true" },
      );
      expect(response.status).toBe(201);
      expect(success(response)._id).not.toBe("0123456789abcdef01234567");
      expect(success(response).search).not.toContain("hacked");
      expect(success(response).createdAt.startsWith("2000")).toBe(false);
      expect(success(response).companies.map((c) => c.companyId)).toEqual([t.companyId]);
      expect(
        success(response)
          .debug!.map((n) => n.path)
          .sort(),
      ).toEqual(["_id", "search", "createdAt", "modifiedAt", "lastRequestDate", "__v", "companies"].sort());
      expect(success(response).debug!.every((n) => n.level === "warning" && n.code === "ignored_field")).toBe(true);
    });

    it("requires email and accessRoles, and all four name parts when name is sent", async () => {
      const response = await post({ name: { displayName: "X" } });
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("invalid_request");
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["accessRoles", "email", "name.lastName", "name.names", "name.secondLastName"].sort());
    });

    it.each([
      [{ email: "not-an-email", accessRoles: ["x"] }, ["email", "accessRoles.0"]],
      [{ email: "a@b.io", accessRoles: [] }, ["accessRoles"]],
      [{ email: "a@b.io", accessRoles: "x" }, ["accessRoles"]],
      [{ email: { $gt: "" }, accessRoles: [] }, ["email", "accessRoles"]],
      [{ email: "a@b.io", accessRoles: [], isActive: "yes" }, ["accessRoles", "isActive"]],
      [{ email: "a@b.io", accessRoles: [], name: { ...name, displayName: "" } }, ["accessRoles", "name.displayName"]],
      [{ email: "a@b.io", accessRoles: [], name: { ...name, extra: 1 } }, ["accessRoles", "name.extra"]],
      [{ email: "a@b.io", accessRoles: [], unknownField: 1, other: 2 }, ["accessRoles", "other", "unknownField"]],
      [{ email: "a@b.io", accessRoles: [], extensions: [] }, ["accessRoles", "extensions"]],
      [
        { email: "a@b.io", accessRoles: [], extensions: { $where: "1", "a.b": 1 } },
        ["accessRoles", "extensions.$where", "extensions.a.b"],
      ],
      [{ email: "a@b.io", accessRoles: [], password: "short" }, ["accessRoles", "password"]],
      [[], ["body"]],
      ["text", ["body"]],
    ])("refuses %j with 400 naming every bad field", async (body, paths) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("invalid_request");
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual([...paths].sort());
    });

    it("refuses extensions over 16 KiB", async () => {
      const response = await post({
        email: "big@example.com",
        accessRoles: [t.memberRoleId],
        extensions: { blob: "x".repeat(17 * 1024) },
      });
      expect(response.status).toBe(400);
      expect(failure(response).details![0].path).toBe("extensions");
    });

    it("answers 409 conflict for an e-mail in use, in any case and in any company", async () => {
      await post({ email: "taken@example.com", accessRoles: [t.memberRoleId] });
      const again = await post({ email: "TAKEN@example.com", accessRoles: [t.memberRoleId] });
      expect(again.status).toBe(409);
      expect(failure(again)).toMatchObject({
        code: "conflict",
        details: [{ path: "email", message: expect.any(String) }],
      });
      const elsewhere = await post(
        { email: "taken@example.com", accessRoles: [other.memberRoleId] },
        { token: other.adminToken },
      );
      expect(elsewhere.status).toBe(409);
    });

    it("answers 400 unknown_reference for ids of no record of the company", async () => {
      const foreignJob = success(
        await call(jobTitles.POST, "/v2/job-titles", {
          token: other.adminToken,
          admin: true,
          body: { name: "Foreign" },
        }),
      )._id;
      const response = await post({
        email: "refs@example.com",
        accessRoles: [t.memberRoleId, other.adminRoleId],
        properties: ["0123456789abcdef01234567"],
        job: foreignJob,
        bot: "0123456789abcdef01234567",
      });
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("unknown_reference");
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["accessRoles.1", "bot", "job", "properties.0"]);
      expect(await User.exists({ email: "refs@example.com" })).toBeNull();
    });

    it("stores a password only as a hash and never returns it", async () => {
      const response = await post({
        email: "pw@example.com",
        accessRoles: [t.memberRoleId],
        password: "correct horse",
      });
      expect(response.status).toBe(201);
      expect(JSON.stringify(response.body)).not.toContain("correct horse");
      expect(JSON.stringify(response.body)).not.toMatch(/password/i);
      const credential = await Credential.findById(success(response)._id).lean();
      expect(credential?.passwordHash).toMatch(/^\$argon2id\$/);
      const raw = await User.collection.findOne({ _id: oid(success(response)._id) });
      expect(JSON.stringify(raw)).not.toMatch(/argon2|password/);
    });
  });

  describe("update", () => {
    let id: string;
    let created: UserRecord;

    beforeAll(async () => {
      created = success(await post({ email: "patch.me@example.com", accessRoles: [t.memberRoleId], name }));
      id = created._id;
    });

    it("changes only the fields sent, regenerates search, advances modifiedAt", async () => {
      const before = success(await get(id));
      const response = await patch(id, { name: { lastName: "Gómez-Ñúñez" }, phone: "123", isOnline: true });
      expect(response.status).toBe(200);
      expect(success(response).name).toEqual({ ...name, lastName: "Gómez-Ñúñez" });
      expect(success(response).phone).toBe("123");
      expect(success(response).isOnline).toBe(true);
      expect(success(response).email).toBe(before.email);
      expect(success(response).search).toEqual([
        "ana",
        "perez",
        "gomez",
        "nunez",
        "patch",
        "me",
        "example",
        "com",
        "patchmeexamplecom",
      ]);
      expect(success(response).modifiedAt > before.modifiedAt).toBe(true);
      expect(success(response).createdAt).toBe(before.createdAt);
      expect((await get(id)).body).toEqual(response.body);
    });

    it("advances modifiedAt on every update, even an empty one in the same millisecond", async () => {
      const stamps: string[] = [];
      for (let i = 0; i < 5; i++) stamps.push(success(await patch(id, {})).modifiedAt);
      for (let i = 1; i < stamps.length; i++) expect(stamps[i] > stamps[i - 1]).toBe(true);
    });

    it("keeps concurrent updates: none is lost", async () => {
      const responses = await Promise.all([
        patch(id, { phone: "1" }),
        patch(id, { isOnline: false }),
        patch(id, { termsConditions: true }),
        patch(id, { extensions: { a: 1 } }),
      ]);
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const final = success(await get(id));
      expect(final).toMatchObject({ phone: "1", isOnline: false, termsConditions: true, extensions: { a: 1 } });
    });

    it("accepts the stored e-mail (in any case) and refuses another with 400 immutable_field", async () => {
      expect((await patch(id, { email: "Patch.Me@example.com" })).status).toBe(200);
      const response = await patch(id, { email: "changed@example.com" });
      expect(response.status).toBe(400);
      expect(failure(response)).toMatchObject({ code: "immutable_field", details: [{ path: "email" }] });
      expect(success(await get(id)).email).toBe("patch.me@example.com");
    });

    it("can clear job, bot and phone with null, and replaces extensions", async () => {
      const response = await patch(id, { job: null, bot: null, phone: null, extensions: { b: 2 } });
      expect(response.body).toMatchObject({ job: null, bot: null, phone: null, extensions: { b: 2 } });
    });

    it("refuses a name that would lose a part, and unknown fields", async () => {
      const noName = success(await post({ email: "partial@example.com", accessRoles: [t.memberRoleId] }))._id;
      const response = await patch(noName, { name: { displayName: "Only" } });
      expect(response.status).toBe(400);
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["name.lastName", "name.names", "name.secondLastName"]);
      const unknown = await patch(id, { shoeSize: 44, isActive: "no" });
      expect(unknown.status).toBe(400);
      expect(
        failure(unknown)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["isActive", "shoeSize"]);
    });

    it("checks references against the company", async () => {
      const response = await patch(id, {
        accessRoles: [other.memberRoleId],
        companies: [{ hierarchy: { boss: [other.adminId] } }],
      });
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("unknown_reference");
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["accessRoles.0", "companies.0.hierarchy.boss.0"]);
    });

    it("changes the hierarchy of the caller's company only", async () => {
      const response = await patch(id, { companies: [{ companyId: t.companyId, hierarchy: { boss: [t.adminId] } }] });
      expect(response.status).toBe(200);
      expect(success(response).companies[0].hierarchy).toEqual({ boss: [t.adminId], peers: [], subordinate: [] });
      const foreign = await patch(id, { companies: [{ companyId: other.companyId, hierarchy: { boss: [] } }] });
      expect(foreign.status).toBe(400);
      expect(failure(foreign).details![0].path).toBe("companies.0.companyId");
    });

    it("ignores server-managed fields", async () => {
      const response = await patch(
        id,
        { _id: "0123456789abcdef01234567", createdAt: "2000-01-01T00:00:00.000Z", search: [] },
        { query: "?debug=true" },
      );
      expect(response.status).toBe(200);
      expect(success(response)._id).toBe(id);
      expect(success(response).search.length).toBeGreaterThan(0);
      expect(
        success(response)
          .debug!.map((n) => n.path)
          .sort(),
      ).toEqual(["_id", "createdAt", "search"]);
    });

    it("answers 404 for an unknown id and 400 invalid_id for a malformed one", async () => {
      const unknown = await patch("0123456789abcdef01234567", { phone: "1" });
      expect(unknown.status).toBe(404);
      expect(failure(unknown).code).toBe("not_found");
      const malformed = await patch("nope", { phone: "1" });
      expect(malformed.status).toBe(400);
      expect(failure(malformed).code).toBe("invalid_id");
      expect(failure(await get("123")).code).toBe("invalid_id");
      expect((await get("0123456789abcdef01234567")).status).toBe(404);
    });
  });

  describe("Admin rule and headers", () => {
    it("answers 403 admin_required without Admin: true, whoever asks", async () => {
      for (const admin of [false, "false", "TRUE", "1", "yes"]) {
        const response = await post({ email: "x@example.com", accessRoles: [t.memberRoleId] }, { admin });
        expect(response.status, String(admin)).toBe(403);
        expect(failure(response).code).toBe("admin_required");
      }
      const member = await patch(t.memberId, { phone: "1" }, { token: t.memberToken, admin: false });
      expect(failure(member).code).toBe("admin_required");
    });

    it("answers 403 forbidden to Admin: true from a user without an admin role", async () => {
      const response = await post({ email: "x@example.com", accessRoles: [t.memberRoleId] }, { token: t.memberToken });
      expect(response.status).toBe(403);
      expect(failure(response).code).toBe("forbidden");
      expect(failure(await patch(t.memberId, { phone: "1" }, { token: t.memberToken })).code).toBe("forbidden");
    });

    it("lets members read without the Admin header", async () => {
      expect((await call(users.GET, "/v2/users", { token: t.memberToken })).status).toBe(200);
      expect((await get(t.adminId, t.memberToken)).status).toBe(200);
      expect(success(await call(me.GET, "/v2/users/me", { token: t.memberToken }))._id).toBe(t.memberId);
    });

    it("answers 415 without a JSON content type", async () => {
      const response = await call(users.POST, "/v2/users", {
        method: "POST",
        token: t.adminToken,
        admin: true,
        rawBody: JSON.stringify({ email: "ct@example.com", accessRoles: [t.memberRoleId] }),
        headers: { "content-type": "text/plain" },
      });
      expect(response.status).toBe(415);
      expect(failure(response).code).toBe("unsupported_media_type");
    });

    it("answers 400 invalid_json for a malformed body and 400 for a missing one", async () => {
      const response = await call(users.POST, "/v2/users", {
        method: "POST",
        token: t.adminToken,
        admin: true,
        rawBody: '{"email": "x@example.com",',
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("invalid_json");
      const missing = await call(users.POST, "/v2/users", { method: "POST", token: t.adminToken, admin: true });
      expect(missing.status).toBe(400);
      expect(failure(missing).code).toBe("invalid_request");
    });

    it("answers 413 for a body over 1 MiB", async () => {
      const response = await post({
        email: "big@example.com",
        accessRoles: [t.memberRoleId],
        extensions: { blob: "x".repeat(1024 * 1024) },
      });
      expect(response.status).toBe(413);
      expect(failure(response).code).toBe("payload_too_large");
    });

    it("answers 400 for __proto__ and constructor keys", async () => {
      const response = await call(users.POST, "/v2/users", {
        method: "POST",
        token: t.adminToken,
        admin: true,
        rawBody: `{"email":"proto@example.com","accessRoles":["${t.memberRoleId}"],"__proto__":{"isAdmin":true},"extensions":{"constructor":{"prototype":1}}}`,
        headers: { "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
      expect(failure(response).details?.map((d) => d.path)).toEqual(["__proto__", "extensions.constructor"]);
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
      expect(await User.exists({ email: "proto@example.com" })).toBeNull();
    });

    it("echoes a sane X-Request-Id and replaces an unsafe one", async () => {
      const echoed = await call(users.GET, "/v2/users", {
        token: t.adminToken,
        headers: { "x-request-id": "abc-123.def:9" },
      });
      expect(echoed.headers.get("x-request-id")).toBe("abc-123.def:9");
      const replaced = await call(users.GET, "/v2/users", {
        token: t.adminToken,
        headers: { "x-request-id": "bad id\u0001" },
      });
      expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("answers 500 internal with a generic message and no stack for an unexpected failure", async () => {
      const broken = route({}, () => {
        throw new Error("secret detail at /internal/path.ts:12");
      });
      const response = await call(broken, "/v2/broken?debug=true", { token: t.adminToken });
      expect(response.status).toBe(500);
      expect(failure(response)).toEqual({
        status: 500,
        code: "internal",
        message: expect.any(String),
        requestId: response.headers.get("x-request-id"),
      });
      expect(JSON.stringify(response.body)).not.toMatch(/secret detail|path\.ts|at /);
      expect(notesOf(response)).toEqual([{ level: "error", code: "internal", message: failure(response).message }]);
    });
  });
});
