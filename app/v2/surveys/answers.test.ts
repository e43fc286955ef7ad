import { newId, oid } from "@/lib/kernel/ids";
import { Answer } from "@/lib/resources/answers/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { EVERY_TYPE_CONTENT } from "@/lib/tools/testing/surveys";
import { beforeAll, describe, expect, it } from "vitest";
import * as accessRoles from "../access-roles/route";
import * as users from "../users/route";
import * as csv from "./[id]/answers.csv/route";
import * as answers from "./[id]/answers/route";
import * as content from "./[id]/content/route";
import * as results from "./[id]/results/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("answers: POST and GET /v2/surveys/{id}/answers, GET .../answers.csv", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  let viewerRole: string;
  let viewerToken: string;
  let n = 0;

  async function create(
    body: Record<string, unknown> = {},
    tenant = t,
  ): Promise<{ id: string; q: Record<string, string> }> {
    const made = await call(surveys.POST, "/v2/surveys", {
      token: tenant.adminToken,
      admin: true,
      body: {
        code: `answers_${++n}`,
        name: `Survey ${n}`,
        version: 2,
        permissionsV2: [{ accessRole: tenant.memberRoleId, canAnswer: true }],
        ...body,
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const put = await call(content.PUT, `/v2/surveys/${success(made)._id}/content`, {
      method: "PUT",
      token: tenant.adminToken,
      admin: true,
      body: EVERY_TYPE_CONTENT,
      params: { id: success(made)._id },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const q = Object.fromEntries(
      success(put)
        .chat!.flatMap((chat) => chat.questions)
        .map((question) => [question.type, question._id]),
    );
    return { id: success(made)._id, q };
  }

  const post = (id: string, body: unknown, token = t.memberToken) =>
    call(answers.POST, `/v2/surveys/${id}/answers`, { token, body, params: { id } });
  const list = (id: string, query = "", options: { token?: string; admin?: boolean } = {}) =>
    call(answers.GET, `/v2/surveys/${id}/answers${query}`, {
      token: options.token ?? t.adminToken,
      admin: options.admin ?? true,
      params: { id },
    });
  const stored = (id: string) => Answer.collection.countDocuments({ survey: oid(id) });

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Answers"), createTenant("Answers other")]);
    viewerRole = success(
      await call(accessRoles.POST, "/v2/access-roles", { token: t.adminToken, admin: true, body: { name: "Viewer" } }),
    )._id;
    const viewer = await call(users.POST, "/v2/users", {
      token: t.adminToken,
      admin: true,
      body: {
        email: `viewer-${Date.now()}@answers.test`,
        accessRoles: [viewerRole],
        name: { names: "Vera", lastName: "Viewer", secondLastName: "", displayName: "Vera Viewer" },
      },
    });
    expect(viewer.status, JSON.stringify(viewer.body)).toBe(201);
    const { createApiToken } = await import("@/lib/resources/auth/service");
    viewerToken = (await createApiToken(success(viewer).email, 3600, t.companyId)).accessToken;
  });

  describe("each type's values", () => {
    const valid: [string, unknown, unknown][] = [
      ["text", "Hello\nworld", "Hello\nworld"],
      ["text", "x".repeat(10_000), "x".repeat(10_000)],
      ["number", -3.5, -3.5],
      ["number", 0, 0],
      ["date", "2026-01-31", "2026-01-31T00:00:00.000Z"],
      ["date", "2026-01-31T08:15:00+02:00", "2026-01-31T06:15:00.000Z"],
      ["yes_no", false, false],
      ["single_choice", "Green", "Green"],
      ["multiple_choice", ["Water", "Tea"], ["Water", "Tea"]],
      ["rating", 1, 1],
      ["rating", 5, 5],
    ];
    it.each(valid)("%s accepts value %#", async (type, value, shown) => {
      const { id, q } = await create();
      const response = await post(id, { answers: [{ question: q[type], value }] });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(success(response).answers).toEqual([
        { uuid: expect.any(String), question: q[type], value: shown, createdAt: expect.any(String) },
      ]);
      expect(response.headers.get("location")).toBe(`/v2/surveys/${id}/answers`);
    });

    const invalid: [string, unknown][] = [
      ["text", "x".repeat(10_001)],
      ["text", 42],
      ["text", "bell\u0007"],
      ["number", "42"],
      ["number", null],
      ["date", "31/01/2026"],
      ["date", "2026-02-30"],
      ["date", 1767225600000],
      ["yes_no", "yes"],
      ["single_choice", "Purple"],
      ["single_choice", ["Red"]],
      ["multiple_choice", []],
      ["multiple_choice", ["Tea", "Tea"]],
      ["multiple_choice", ["Tea", "Milk"]],
      ["multiple_choice", "Tea"],
      ["rating", 0],
      ["rating", 6],
      ["rating", 2.5],
      ["rating", "5"],
    ];
    it.each(invalid)(
      "%s refuses value %#: 400 naming answers.N.value, nothing of the response stored",
      async (type, value) => {
        const { id, q } = await create();
        const filler = type === "text" ? { question: q.yes_no, value: true } : { question: q.text, value: "fine" };
        const response = await post(id, { answers: [filler, { question: q[type], value }] });
        expect(response.status).toBe(400);
        expect(failure(response).code).toBe("invalid_request");
        expect(failure(response).details).toEqual([{ path: "answers.1.value", message: expect.any(String) }]);
        expect(await stored(id)).toBe(0);
      },
    );

    it("a number beyond what JSON's doubles hold (Infinity) is refused", async () => {
      const { id, q } = await create();
      const response = await call(answers.POST, `/v2/surveys/${id}/answers`, {
        token: t.memberToken,
        rawBody: `{"answers":[{"question":"${q.number}","value":1e999}]}`,
        headers: { "content-type": "application/json" },
        params: { id },
      });
      expect(response.status).toBe(400);
      expect(failure(response).details![0].path).toBe("answers.0.value");
    });

    it("refuses a missing value, a question of no survey of ours, one answered twice, an empty response", async () => {
      const { id, q } = await create();
      const elsewhere = await create({}, other);
      const cases: [unknown, string][] = [
        [{ answers: [{ question: q.text }] }, "answers.0.value"],
        [{ answers: [{ question: elsewhere.q.text, value: "x" }] }, "answers.0.question"],
        [
          {
            answers: [
              { question: q.text, value: "a" },
              { question: q.text, value: "b" },
            ],
          },
          "answers.1.question",
        ],
        [{ answers: [] }, "answers"],
        [{ answers: [{ question: "nope", value: 1 }] }, "answers.0.question"],
      ];
      for (const [body, path] of cases) {
        const response = await post(id, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(failure(response).details?.map((d) => d.path)).toContain(path);
      }
      expect(await stored(id)).toBe(0);
    });
  });

  it("records a whole response: one uuid per answer, each of them finds the survey by GET /v2/surveys?answer=", async () => {
    const { id, q } = await create();
    const response = await post(id, {
      answers: [
        { question: q.text, value: "All good" },
        { question: q.rating, value: 4 },
        { question: q.multiple_choice, value: ["Coffee"] },
      ],
    });
    expect(response.status).toBe(201);
    expect(success(response).responseId).toMatch(/^[0-9a-f]{24}$/);
    const uuids = success(response).answers.map((a) => a.uuid);
    expect(new Set(uuids).size).toBe(3);
    const found = await call(surveys.GET, `/v2/surveys?answer=${uuids.join(",")}`, { token: t.adminToken });
    expect(success(found).data.surveys.map((s) => s._id)).toEqual([id]);
    // Another company's admin finds nothing by them.
    const theirs = await call(surveys.GET, `/v2/surveys?answer=${uuids[0]}`, { token: other.adminToken });
    expect(success(theirs).data.surveys).toEqual([]);
  });

  describe("who may answer", () => {
    it("version 2: a permissionsV2 entry of one of the caller's roles with canAnswer: true", async () => {
      const allowed = await create({
        permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true, canViewAnswers: false }],
      });
      expect((await post(allowed.id, { answers: [{ question: allowed.q.yes_no, value: true }] })).status).toBe(201);
      const refused = await create({
        permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: false, canViewAnswers: true }],
      });
      const response = await post(refused.id, { answers: [{ question: refused.q.yes_no, value: true }] });
      expect(response.status).toBe(403);
      expect(failure(response).code).toBe("forbidden");
      const noEntry = await create({ permissionsV2: [{ accessRole: viewerRole, canAnswer: true }] });
      expect((await post(noEntry.id, { answers: [{ question: noEntry.q.yes_no, value: true }] })).status).toBe(403);
      // The admin is bound by the same rule: its Admin role has no entry.
      expect(
        (await post(allowed.id, { answers: [{ question: allowed.q.yes_no, value: true }] }, t.adminToken)).status,
      ).toBe(403);
    });

    it("version 1: a role of the caller in permissions; permissionsV2 plays no part", async () => {
      const allowed = await create({ version: 1, permissionsV2: [], permissions: [t.memberRoleId] });
      expect((await post(allowed.id, { answers: [{ question: allowed.q.number, value: 7 }] })).status).toBe(201);
      const refused = await create({
        version: 1,
        permissions: [viewerRole],
        permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true }],
      });
      const response = await post(refused.id, { answers: [{ question: refused.q.number, value: 7 }] });
      expect(response.status).toBe(403);
      expect(failure(response).code).toBe("forbidden");
    });

    it("an inactive survey is 409 conflict", async () => {
      const { id, q } = await create({ isActive: false });
      const response = await post(id, { answers: [{ question: q.text, value: "late" }] });
      expect(response.status).toBe(409);
      expect(failure(response).code).toBe("conflict");
      expect(await stored(id)).toBe(0);
    });

    it("a removed question takes no new answers (400), and keeps those it has", async () => {
      const { id, q } = await create();
      expect((await post(id, { answers: [{ question: q.rating, value: 3 }] })).status).toBe(201);
      await call(content.PUT, `/v2/surveys/${id}/content`, {
        method: "PUT",
        token: t.adminToken,
        admin: true,
        body: { chat: [{ name: "Rest", questions: [{ _id: q.text, text: "Tell us", type: "text" }] }] },
        params: { id },
      });
      const response = await post(id, { answers: [{ question: q.rating, value: 3 }] });
      expect(response.status).toBe(400);
      expect(failure(response).details![0].path).toBe("answers.0.question");
      expect(success(await list(id, `?question=${q.rating}`)).data.answers).toHaveLength(1);
    });

    it("a survey of another company is 404", async () => {
      const theirs = await create({}, other);
      expect((await post(theirs.id, { answers: [{ question: theirs.q.text, value: "x" }] })).status).toBe(404);
      expect(await stored(theirs.id)).toBe(0);
    });
  });

  describe("the list", () => {
    let id: string;
    let q: Record<string, string>;
    const texts = ["Great coffee", "more TEA please", "Coffee was cold", "ok", "100% (really) [sure]", "coffee?"];

    beforeAll(async () => {
      ({ id, q } = await create());
      for (const text of texts) {
        const response = await post(id, {
          answers: [
            { question: q.text, value: text },
            { question: q.number, value: text.length },
          ],
        });
        expect(response.status).toBe(201);
      }
    });

    it("lists newest first with the answering user's _id and display name", async () => {
      const response = await list(id);
      expect(response.status).toBe(200);
      const page = success(response).data;
      expect(page.answers).toHaveLength(12);
      expect(page.next).toBeNull();
      const created = page.answers.map((a) => Date.parse(a.createdAt));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      expect(page.answers.filter((a) => a.type === "text").map((a) => a.value)).toEqual([...texts].reverse());
      expect(page.answers[0].user).toEqual({ _id: t.memberId, displayName: expect.any(String) });
    });

    it("walks by cursor: every answer once, a Link to the next page, null after the last", async () => {
      const seen: string[] = [];
      let query = "?limit=5";
      for (let pages = 0; pages < 10; pages++) {
        const response = await list(id, query);
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        seen.push(...success(response).data.answers.map((a) => a.uuid));
        const next = success(response).data.next;
        if (!next) {
          expect(response.headers.get("link")).toBeNull();
          break;
        }
        expect(response.headers.get("link")).toBe(
          `</v2/surveys/${id}/answers?limit=5&cursor=${encodeURIComponent(next)}>; rel="next"`,
        );
        query = `?limit=5&cursor=${encodeURIComponent(next)}`;
      }
      expect(seen).toHaveLength(12);
      expect(new Set(seen).size).toBe(12);
    });

    it("refuses an altered cursor, one of another list, and bad parameters with 400", async () => {
      const first = await list(id, "?limit=2");
      const cursor: string = success(first).data.next!;
      const [body, mac] = cursor.split(".");
      const tampered = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), t: 0 })).toString("base64url")}.${mac}`;
      for (const query of [
        `?cursor=${encodeURIComponent(tampered)}`,
        `?cursor=garbage`,
        `?limit=2&search=coffee&cursor=${encodeURIComponent(cursor)}`,
        "?limit=0",
        "?limit=101",
        "?from=yesterday",
        "?to=2026-13-01T00:00:00Z",
        "?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
        "?question=nope",
      ]) {
        const response = await list(id, query);
        expect(response.status, query).toBe(400);
        expect(failure(response).code).toBe("invalid_request");
      }
      const otherSurvey = await create();
      const foreign = await list(otherSurvey.id, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(foreign.status).toBe(400);
    });

    it("search matches text answers, case-insensitively and literally", async () => {
      const coffee = await list(id, "?search=coffee");
      expect(success(coffee).data.answers.map((a) => a.value)).toEqual(["coffee?", "Coffee was cold", "Great coffee"]);
      expect(
        success(await list(id, `?search=${encodeURIComponent("(really) [")}`)).data.answers.map((a) => a.value),
      ).toEqual(["100% (really) [sure]"]);
      expect(success(await list(id, "?search=.*")).data.answers).toEqual([]);
      // A number answer is never a text match.
      expect(success(await list(id, "?search=4")).data.answers).toEqual([]);
      // Blank is no search, as in the users and surveys lists.
      const all = success(await list(id, "")).data.answers;
      expect(success(await list(id, "?search=")).data.answers).toEqual(all);
      expect(success(await list(id, "?search=%20%20")).data.answers).toEqual(all);
      const noted = await list(id, "?search=%20&debug=true");
      expect(success(noted).debug).toContainEqual(expect.objectContaining({ code: "empty_search", path: "search" }));
    });

    it("filters by question and by from/to (both inclusive)", async () => {
      const all = success(await list(id, `?question=${q.number}`)).data.answers;
      expect(all).toHaveLength(6);
      expect(all.every((a) => a.question === q.number && typeof a.value === "number")).toBe(true);
      const middle = all[2].createdAt;
      const from = await list(id, `?question=${q.number}&from=${middle}`);
      expect(success(from).data.answers.map((a) => a.uuid)).toEqual(
        all.filter((a) => a.createdAt >= middle).map((a) => a.uuid),
      );
      const to = await list(id, `?question=${q.number}&to=${middle}`);
      expect(success(to).data.answers.map((a) => a.uuid)).toEqual(
        all.filter((a) => a.createdAt <= middle).map((a) => a.uuid),
      );
      expect(success(await list(id, "?to=2000-01-01T00:00:00.000Z")).data.answers).toEqual([]);
    });

    it("is for admins and, on a version 2 survey, for roles with canViewAnswers: true; others 403", async () => {
      expect((await list(id, "", { token: t.memberToken, admin: false })).status).toBe(403);
      expect(failure(await list(id, "", { token: t.memberToken, admin: true })).code).toBe("forbidden");
      expect((await list(id, "", { token: viewerToken, admin: false })).status).toBe(403);
      const viewable = await create({
        permissionsV2: [
          { accessRole: t.memberRoleId, canAnswer: true },
          { accessRole: viewerRole, canAnswer: false, canViewAnswers: true },
        ],
      });
      expect((await list(viewable.id, "", { token: viewerToken, admin: false })).status).toBe(200);
      expect(
        (
          await call(results.GET, `/v2/surveys/${viewable.id}/results`, {
            token: viewerToken,
            params: { id: viewable.id },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(results.GET, `/v2/surveys/${viewable.id}/results`, {
            token: t.memberToken,
            params: { id: viewable.id },
          })
        ).status,
      ).toBe(403);
      // Version 1 has no such flag: only admins read the answers.
      const v1 = await create({ version: 1, permissions: [viewerRole, t.memberRoleId], permissionsV2: [] });
      expect((await list(v1.id, "", { token: viewerToken, admin: false })).status).toBe(403);
      expect((await list(v1.id, "")).status).toBe(200);
    });

    it("a survey of another company is 404 for its list, export and results, even to its roles", async () => {
      for (const handler of [
        () => list(id, "", { token: other.adminToken }),
        () => call(csv.GET, `/v2/surveys/${id}/answers.csv`, { token: other.adminToken, admin: true, params: { id } }),
        () => call(results.GET, `/v2/surveys/${id}/results`, { token: other.adminToken, admin: true, params: { id } }),
      ]) {
        const response = await handler();
        expect(response.status).toBe(404);
        expect(failure(response).code).toBe("not_found");
      }
    });
  });

  describe("CSV export", () => {
    const exportCsv = async (id: string, query = "") => {
      const request = new Request(`http://localhost/v2/surveys/${id}/answers.csv${query}`, {
        headers: { authorization: `Bearer ${t.adminToken}`, admin: "true" },
      });
      const response = await csv.GET(request, { params: Promise.resolve({ id }) });
      return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
    };

    it("streams every answer as text/csv with a header row, quoting and formula cells defused", async () => {
      const { id, q } = await create();
      await post(id, {
        answers: [
          { question: q.text, value: 'He said "hi", then left\nfor good' },
          { question: q.multiple_choice, value: ["Tea", "Water"] },
        ],
      });
      await post(id, {
        answers: [
          { question: q.text, value: '=HYPERLINK("http://evil")' },
          { question: q.date, value: "2026-03-04" },
        ],
      });
      const response = await exportCsv(id);
      expect(response.status).toBe(200);
      expect(response.type).toBe("text/csv; charset=utf-8");
      const [header, ...rows] = response.text.trimEnd().split(/\r?\n(?=[0-9a-f]{24},|$)/);
      expect(header).toBe("uuid,responseId,createdAt,chat,question,questionText,type,value,userId,userName");
      expect(rows).toHaveLength(4);
      expect(response.text).toContain('"He said ""hi"", then left\nfor good"');
      expect(response.text).toContain(",multiple_choice,Tea; Water,");
      expect(response.text).toContain(",date,2026-03-04T00:00:00.000Z,");
      expect(response.text).toContain(`"'=HYPERLINK(""http://evil"")"`);
      expect(response.text).toContain(t.memberId);
    });

    it("goes through more answers than one batch, each once, and takes the list's filters", async () => {
      const { id, q } = await create();
      const now = new Date();
      const docs = Array.from({ length: 1234 }, (_, i) => ({
        uuid: newId(),
        company: oid(t.companyId),
        survey: oid(id),
        chat: newId(),
        question: oid(q.rating),
        user: oid(t.memberId),
        value: (i % 5) + 1,
        response: newId(),
        position: 0,
        createdAt: new Date(now.getTime() - i * 1000),
        modifiedAt: now,
      }));
      await Answer.collection.insertMany(docs);
      const all = await exportCsv(id);
      const lines = all.text.trimEnd().split("\r\n");
      expect(lines).toHaveLength(1235);
      expect(new Set(lines.slice(1).map((line) => line.split(",")[0])).size).toBe(1234);
      const windowed = await exportCsv(id, `?from=${new Date(now.getTime() - 9_000).toISOString()}`);
      expect(windowed.text.trimEnd().split("\r\n")).toHaveLength(11);
    });

    it("is for those who may read the answers", async () => {
      const { id } = await create();
      const request = new Request(`http://localhost/v2/surveys/${id}/answers.csv`, {
        headers: { authorization: `Bearer ${t.memberToken}` },
      });
      const response = await csv.GET(request, { params: Promise.resolve({ id }) });
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toContain("application/json");
    });
  });

  it("reading the survey with populate shows each question's answer count", async () => {
    const { id, q } = await create();
    await post(id, { answers: [{ question: q.yes_no, value: true }] });
    await post(id, {
      answers: [
        { question: q.yes_no, value: false },
        { question: q.rating, value: 2 },
      ],
    });
    const read = await call(survey.GET, `/v2/surveys/${id}?populate=true`, {
      token: t.adminToken,
      admin: true,
      params: { id },
    });
    const counts = Object.fromEntries(
      success(read)
        .chat!.flatMap((chat) => chat.questions)
        .map((question) => [question.type, question.answerCount]),
    );
    expect(counts).toMatchObject({ yes_no: 2, rating: 1, text: 0 });
  });
});
