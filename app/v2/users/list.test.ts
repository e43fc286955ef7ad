import { oid } from "@/lib/kernel/ids";
import type { UserRecord } from "@/lib/resources/users/contract";
import { User } from "@/lib/resources/users/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as bots from "../bots/route";
import * as jobTitles from "../job-titles/route";
import * as properties from "../properties/route";
import * as user from "./[id]/route";
import * as users from "./route";

describe("GET /v2/users", () => {
  useTestDatabase();
  let t: Tenant;
  const ref: Record<string, string> = {};
  const ids: Record<string, string> = {};

  const list = (query = "", token = t.adminToken) => call(users.GET, `/v2/users${query ? `?${query}` : ""}`, { token });
  const emails = (response: Awaited<ReturnType<typeof list>>) =>
    success(response)
      .data.users.map((u) => u.email)
      .sort();

  async function create(body: Record<string, unknown>) {
    const response = await call(users.POST, "/v2/users", { token: t.adminToken, admin: true, body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response);
  }

  beforeAll(async () => {
    t = await createTenant("Listing");
    const post = async (handler: typeof bots.POST, path: string, body: Record<string, unknown>) =>
      success(await call(handler, path, { token: t.adminToken, admin: true, body }))._id as string;
    ref.job1 = await post(jobTitles.POST, "/v2/job-titles", { name: "Engineer" });
    ref.job2 = await post(jobTitles.POST, "/v2/job-titles", { name: "Designer" });
    ref.prop1 = await post(properties.POST, "/v2/properties", { name: "Remote" });
    ref.prop2 = await post(properties.POST, "/v2/properties", { name: "Madrid" });
    ref.bot1 = await post(bots.POST, "/v2/bots", { name: "Helper" });
    ref.bot2 = await post(bots.POST, "/v2/bots", { name: "Survey" });
    ref.role = await post(accessRoles.POST, "/v2/access-roles", { name: "Reviewer" });

    const name = (names: string, lastName: string, secondLastName = "") => ({
      displayName: `${names} ${lastName}`,
      names,
      lastName,
      secondLastName,
    });
    ids.ana = (
      await create({
        email: "Ana.Pérez@Acme.io",
        name: name("Ana", "Pérez"),
        accessRoles: [t.memberRoleId],
        job: ref.job1,
        properties: [ref.prop1],
      })
    )._id;
    ids.anabel = (
      await create({
        email: "anabel@acme.io",
        name: name("Anabel", "Ruiz", "Núñez"),
        accessRoles: [ref.role],
        job: ref.job2,
        properties: [ref.prop1, ref.prop2],
        bot: ref.bot1,
      })
    )._id;
    ids.pedro = (
      await create({
        email: "pedro@other.org",
        name: name("Pedro", "Gómez"),
        accessRoles: [t.memberRoleId],
        bot: ref.bot2,
      })
    )._id;
    ids.inactive = (
      await create({
        email: "gone@acme.io",
        name: name("Ana", "Olvido"),
        accessRoles: [t.memberRoleId],
        isActive: false,
      })
    )._id;
    ids.meta = (
      await create({ email: "a.b+c@acme.io", name: name("Dot", "Star", "(x)"), accessRoles: [t.memberRoleId] })
    )._id;
  });

  describe("defaults and envelope", () => {
    it("answers { data: { users, page, limit } }, active users, newest modifiedAt first", async () => {
      const response = await list();
      expect(response.status).toBe(200);
      expect(response.headers.get("x-request-id")).toMatch(/^[\w-]{36}$/);
      const { data } = success(response);
      expect(Object.keys(data).sort()).toEqual(["limit", "next", "page", "users"]);
      expect(data.page).toBe(1);
      expect(data.limit).toBe(10);
      expect(data.users.map((u) => u.email)).not.toContain("gone@acme.io");
      const stamps = data.users.map((u) => u.modifiedAt);
      expect([...stamps].sort().reverse()).toEqual(stamps);
      expect(success(response).debug).toBeUndefined();
    });

    it("serialises records with 24-hex ids, ISO dates with ms and Z, the defaults, and no secrets", async () => {
      const record = success(await list("email=ana.pérez@acme.io")).data.users[0];
      expect(record).toMatchObject({
        _id: ids.ana,
        email: "ana.pérez@acme.io",
        name: { displayName: "Ana Pérez", names: "Ana", lastName: "Pérez", secondLastName: "" },
        accessRoles: [t.memberRoleId],
        properties: [ref.prop1],
        job: ref.job1,
        bot: null,
        phone: null,
        isActive: true,
        isOnline: false,
        termsConditions: false,
        extensions: {},
        lastRequestDate: null,
      });
      expect(record.search).toEqual(["ana", "perez", "acme", "io", "anaperezacmeio"]);
      expect(record.companies).toEqual([
        {
          _id: expect.stringMatching(/^[0-9a-f]{24}$/),
          companyId: t.companyId,
          hierarchy: { boss: [], peers: [], subordinate: [] },
        },
      ]);
      expect(record.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(record.modifiedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const text = JSON.stringify(record);
      expect(text).not.toMatch(/password|hash|token|\$oid|__v/i);
    });
  });

  describe("count, limit, page", () => {
    it("adds counter only with count=true, counting every match regardless of paging", async () => {
      const response = await list("count=true&limit=2&page=2");
      expect(success(response).data.counter).toBe(6); // 4 active created + admin + member
      expect(success(response).data.users).toHaveLength(2);
      expect(success(await list("count=false")).data.counter).toBeUndefined();
      expect(success(await list("count=true&isActive=all")).data.counter).toBe(7);
      expect(success(await list("count=true&isActive=false")).data.counter).toBe(1);
    });

    it("answers a page past the end with an empty list", async () => {
      const response = await list("page=99&count=true");
      expect(response.status).toBe(200);
      expect(success(response).data.users).toEqual([]);
      expect(success(response).data.counter).toBe(6);
    });

    it.each([
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=abc", "limit"],
      ["limit=1.5", "limit"],
      ["limit=-1", "limit"],
      ["page=0", "page"],
      ["page=x", "page"],
      ["count=yes", "count"],
      ["orderBy=up", "orderBy"],
      ["sort=colour", "sort"],
      // The specification's sortBy accepts modifiedAt only; another order is sort's.
      ["sortBy=createdAt", "sortBy"],
      ["sortBy=name", "sortBy"],
      ["isActive=maybe", "isActive"],
      ["id=123", "id.0"],
      ["bot=zz", "bot.0"],
      ["relatedUser=nope", "relatedUser"],
      ["property=1", "property"],
      ["accessRole=1", "accessRole"],
      ["job=1", "job"],
      ["modified=yesterday", "modified"],
      ["modified_gt=2026-13-01T00:00:00.000Z", "modified_gt"],
      ["created_lte=1700000000", "created_lte"],
      ["debug=maybe", "debug"],
    ])("refuses %s with 400 invalid_request naming %s", async (query, path) => {
      const response = await list(query);
      expect(response.status).toBe(400);
      expect(failure(response)).toMatchObject({ status: 400, code: "invalid_request" });
      expect(failure(response).details?.map((d) => d.path)).toContain(path);
      expect(failure(response).requestId).toBe(response.headers.get("x-request-id"));
    });

    it("names every bad parameter at once", async () => {
      const response = await list("limit=0&page=0&orderBy=x&created=x");
      expect(
        failure(response)
          .details?.map((d) => d.path)
          .sort(),
      ).toEqual(["created", "limit", "orderBy", "page"]);
    });

    it("accepts the largest limit", async () => {
      expect((await list("limit=100")).status).toBe(200);
    });
  });

  describe("filters", () => {
    it("isActive=all|true|false", async () => {
      expect(emails(await list("isActive=false"))).toEqual(["gone@acme.io"]);
      expect(emails(await list("isActive=all&limit=100"))).toContain("gone@acme.io");
      expect(emails(await list("isActive=true&limit=100"))).not.toContain("gone@acme.io");
    });

    it("email: repeated and comma-separated, case-insensitive, exact", async () => {
      expect(emails(await list("email=ANABEL@acme.io&email=pedro@other.org"))).toEqual([
        "anabel@acme.io",
        "pedro@other.org",
      ]);
      expect(emails(await list("email=anabel@acme.io,pedro@other.org"))).toEqual(["anabel@acme.io", "pedro@other.org"]);
      expect(emails(await list("email=anabel"))).toEqual([]);
    });

    it("id, bot, property, accessRole, job", async () => {
      expect(emails(await list(`id=${ids.ana},${ids.pedro}`))).toEqual(["ana.pérez@acme.io", "pedro@other.org"]);
      expect(emails(await list(`bot=${ref.bot1}&bot=${ref.bot2}`))).toEqual(["anabel@acme.io", "pedro@other.org"]);
      expect(emails(await list(`bot=${ref.bot2}`))).toEqual(["pedro@other.org"]);
      expect(emails(await list(`property=${ref.prop1}`))).toEqual(["ana.pérez@acme.io", "anabel@acme.io"]);
      expect(emails(await list(`property=${ref.prop2}`))).toEqual(["anabel@acme.io"]);
      expect(emails(await list(`accessRole=${ref.role}`))).toEqual(["anabel@acme.io"]);
      expect(emails(await list(`job=${ref.job2}`))).toEqual(["anabel@acme.io"]);
      expect(emails(await list(`job=${ref.job1}&property=${ref.prop2}`))).toEqual([]);
    });

    it("an unknown but well-formed id matches nothing", async () => {
      expect(emails(await list("id=0123456789abcdef01234567"))).toEqual([]);
    });

    it("modified, modified_gt, modified_gte at millisecond precision", async () => {
      const stamp = new Date("2030-01-02T03:04:05.678Z");
      await User.collection.updateOne({ _id: oid(ids.pedro) }, { $set: { modifiedAt: stamp } });
      expect(emails(await list("modified=2030-01-02T03:04:05.678Z"))).toEqual(["pedro@other.org"]);
      expect(emails(await list("modified=2030-01-02T03:04:05.677Z"))).toEqual([]);
      expect(emails(await list("modified=2030-01-02T04:04:05.678%2B01:00"))).toEqual(["pedro@other.org"]);
      expect(emails(await list("modified_gt=2030-01-02T03:04:05.677Z"))).toEqual(["pedro@other.org"]);
      expect(emails(await list("modified_gt=2030-01-02T03:04:05.678Z"))).toEqual([]);
      expect(emails(await list("modified_gte=2030-01-02T03:04:05.678Z"))).toEqual(["pedro@other.org"]);
    });

    it("created, created_gt, created_gte, created_lt, created_lte", async () => {
      await User.collection.updateOne(
        { _id: oid(ids.anabel) },
        { $set: { createdAt: new Date("2001-01-01T00:00:00.000Z") } },
      );
      await User.collection.updateOne(
        { _id: oid(ids.meta) },
        { $set: { createdAt: new Date("2001-01-01T00:00:00.001Z") } },
      );
      expect(emails(await list("created=2001-01-01T00:00:00.000Z"))).toEqual(["anabel@acme.io"]);
      expect(emails(await list("created_lt=2001-01-01T00:00:00.001Z"))).toEqual(["anabel@acme.io"]);
      expect(emails(await list("created_lte=2001-01-01T00:00:00.001Z"))).toEqual(["a.b+c@acme.io", "anabel@acme.io"]);
      expect(emails(await list("created_gt=2001-01-01T00:00:00.000Z&created_lt=2002-01-01T00:00:00.000Z"))).toEqual([
        "a.b+c@acme.io",
      ]);
      expect(emails(await list("created_gte=2001-01-01T00:00:00.000Z&created_lte=2001-01-01T00:00:00.000Z"))).toEqual([
        "anabel@acme.io",
      ]);
      expect(emails(await list("created_gt=2001-01-02T00:00:00.000Z&limit=100")).length).toBe(4);
    });

    it("ignores unknown parameters, with a debug warning each", async () => {
      const plain = await list("foo=1&email=pedro@other.org");
      expect(plain.status).toBe(200);
      expect(success(plain).debug).toBeUndefined();
      const debug = await list("foo=1&bar=2&email=pedro@other.org&debug=true");
      expect(emails(debug)).toEqual(["pedro@other.org"]);
      expect(success(debug).debug).toEqual([
        { level: "warning", code: "unknown_parameter", message: expect.any(String), path: "foo" },
        { level: "warning", code: "unknown_parameter", message: expect.any(String), path: "bar" },
      ]);
    });
  });

  describe("search", () => {
    it("matches prefixes of keywords, accents and case folded", async () => {
      expect(emails(await list("search=ana"))).toEqual(["ana.pérez@acme.io", "anabel@acme.io"]);
      expect(emails(await list("search=PÉR"))).toEqual(["ana.pérez@acme.io"]);
      expect(emails(await list("search=perez"))).toEqual(["ana.pérez@acme.io"]);
      expect(emails(await list("search=nunez"))).toEqual(["anabel@acme.io"]);
      expect(emails(await list("search=anaperezacme"))).toEqual(["ana.pérez@acme.io"]);
      expect(emails(await list("search=erez"))).toEqual([]);
    });

    it("requires every term: multi-term and e-mail-like queries", async () => {
      expect(emails(await list("search=ana%20ru"))).toEqual(["anabel@acme.io"]);
      expect(emails(await list("search=Ana.Pérez@Acme.io"))).toEqual(["ana.pérez@acme.io"]);
      expect(emails(await list("search=acme"))).toEqual(["a.b+c@acme.io", "ana.pérez@acme.io", "anabel@acme.io"]);
      expect(emails(await list("search=acme%20other"))).toEqual([]);
    });

    it("counts search matches and combines with other filters", async () => {
      const response = await list(`search=a&count=true&property=${ref.prop1}`);
      expect(success(response).data.counter).toBe(2);
    });

    it("treats regular-expression metacharacters literally", async () => {
      for (const query of [".*", "a.*", "^", "(x)", "[a-z]+", "\\", "$", "a|p"]) {
        const response = await list(`search=${encodeURIComponent(query)}&count=true`);
        expect(response.status, query).toBe(200);
      }
      expect(emails(await list(`search=${encodeURIComponent(".*")}`))).toHaveLength(6); // no terms: no filter
      expect(emails(await list(`search=${encodeURIComponent("a.*")}`))).toEqual(emails(await list("search=a")));
      expect(emails(await list(`search=${encodeURIComponent("(x)")}`))).toEqual(["a.b+c@acme.io"]);
      // "|" separates the terms "a" and "p" (both required), it is no alternation.
      expect(emails(await list(`search=${encodeURIComponent("a|p")}`))).toEqual(["ana.pérez@acme.io"]);
    });
  });

  describe("injection", () => {
    it("refuses object-ish parameters such as email[$ne]", async () => {
      const response = await list("email[$ne]=x");
      expect(response.status).toBe(400);
      expect(failure(response).details).toEqual([{ path: "email[$ne]", message: expect.any(String) }]);
      expect((await list("id[$gt]=")).status).toBe(400);
    });

    it("matches operator-looking values literally", async () => {
      expect(emails(await list(`email=${encodeURIComponent('{"$ne":"x"}')}`))).toEqual([]);
      expect(emails(await list(`email=${encodeURIComponent("$ne")}`))).toEqual([]);
    });
  });

  describe("relatedUser", () => {
    it("lists who names the user in the hierarchy and whom the user names", async () => {
      const set = (id: string, hierarchy: Record<string, string[]>) =>
        call(user.PATCH, `/v2/users/${id}`, {
          method: "PATCH",
          token: t.adminToken,
          admin: true,
          params: { id },
          body: { companies: [{ hierarchy }] },
        });
      expect((await set(ids.anabel, { boss: [ids.ana] })).status).toBe(200);
      expect((await set(ids.pedro, { peers: [ids.ana] })).status).toBe(200);
      expect((await set(ids.ana, { subordinate: [ids.meta] })).status).toBe(200);
      expect(emails(await list(`relatedUser=${ids.ana}`))).toEqual([
        "a.b+c@acme.io",
        "anabel@acme.io",
        "pedro@other.org",
      ]);
      expect(emails(await list(`relatedUser=${ids.anabel}`))).toEqual(["ana.pérez@acme.io"]);
      expect(emails(await list(`relatedUser=${ids.meta}`))).toEqual(["ana.pérez@acme.io"]);
    });

    it("an unknown user is related to nobody (with a debug warning)", async () => {
      const response = await list("relatedUser=0123456789abcdef01234567&debug=true");
      expect(success(response).data.users).toEqual([]);
      expect(success(response).debug).toContainEqual(
        expect.objectContaining({ level: "warning", code: "unknown_related_user" }),
      );
    });
  });
});

describe("GET /v2/users paging", () => {
  useTestDatabase();

  it("never repeats or skips a user, also when many share one modifiedAt", async () => {
    const t = await createTenant("Paging");
    for (let i = 0; i < 23; i++) {
      const response = await call(users.POST, "/v2/users", {
        token: t.adminToken,
        admin: true,
        body: { email: `p${i}@paging.io`, accessRoles: [t.memberRoleId] },
      });
      expect(response.status).toBe(201);
    }
    // 15 users share one instant; the others are spread before and after it.
    const all = await User.find({ "companies.companyId": oid(t.companyId) }, { _id: 1 }).lean();
    expect(all).toHaveLength(25);
    const tie = new Date("2026-01-31T08:15:00.000Z");
    for (const [index, { _id }] of all.entries()) {
      const modifiedAt = index < 15 ? tie : new Date(tie.getTime() + (index % 2 === 0 ? 1 : -1) * (index + 1) * 1000);
      await User.collection.updateOne({ _id }, { $set: { modifiedAt } });
    }
    for (const orderBy of ["desc", "asc"] as const) {
      for (const limit of [1, 4, 7, 10]) {
        const seen: UserRecord[] = [];
        for (let page = 1; page <= Math.ceil(25 / limit) + 1; page++) {
          const response = await call(
            users.GET,
            `/v2/users?orderBy=${orderBy}&limit=${limit}&page=${page}&count=true`,
            { token: t.adminToken },
          );
          expect(response.status).toBe(200);
          expect(success(response).data.counter).toBe(25);
          seen.push(...success(response).data.users);
        }
        const ids = seen.map((u) => u._id);
        expect(new Set(ids).size, `${orderBy} limit ${limit}`).toBe(25);
        expect(ids).toHaveLength(25);
        const keys = seen.map((u) => `${u.modifiedAt}|${u._id}`);
        const sorted = [...keys].sort();
        expect(keys).toEqual(orderBy === "asc" ? sorted : sorted.reverse());
      }
    }
  });
});
