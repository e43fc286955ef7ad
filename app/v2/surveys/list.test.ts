import { Answer } from "@/lib/resources/answers/repository";
import { Survey } from "@/lib/resources/surveys/repository";
import { surveySearchPrefixes } from "@/lib/resources/surveys/search";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { addSurveyParts, type SeededParts } from "@/lib/tools/testing/surveys";
import { ObjectId } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("GET /v2/surveys and GET /v2/surveys/{id}", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  const ids: Record<string, string> = {};
  let parts: SeededParts;
  let otherParts: SeededParts;

  const list = (query = "", token = t.adminToken) =>
    call(surveys.GET, `/v2/surveys${query ? `?${query}` : ""}`, { token });
  const codes = (response: Awaited<ReturnType<typeof list>>): string[] =>
    success(response).data.surveys.map((s) => s.code!);
  const sorted = (response: Awaited<ReturnType<typeof list>>): string[] => [...codes(response)].sort();
  const read = (id: string, query = "", options: { token?: string; admin?: boolean } = {}) =>
    call(survey.GET, `/v2/surveys/${id}${query ? `?${query}` : ""}`, {
      token: options.token ?? t.adminToken,
      admin: options.admin ?? true,
      params: { id },
    });

  async function create(tenant: Tenant, body: Record<string, unknown>): Promise<string> {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: tenant.adminToken,
      admin: true,
      body: { version: 1, ...body },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response)._id;
  }

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Surveys list"), createTenant("Surveys list other")]);
    // Created one after another: the last one is the newest.
    ids.onboarding = await create(t, { code: "onboarding", name: "Welcome aboard" });
    ids.climate = await create(t, { code: "climate_2026", name: "Work climate", version: 2 });
    ids.exit = await create(t, { code: "exit_interview", name: "Onboarding feedback" });
    ids.retired = await create(t, { code: "retired", name: "Old survey", isActive: false });
    ids.dots = await create(t, { code: "dots", name: "a.b (test)* [x] | y^$ \\ z?" });
    ids.plus = await create(t, { code: "plus", name: "C++ survey + more" });
    ids.unicode = await create(t, { code: "unicode", name: "Ñandú ÉXITO" });
    ids.star = await create(t, { code: "star", name: ".* everything" });
    ids.long = await create(t, { code: "l".repeat(60), name: `${"Long name ".repeat(5)}with a tail` });
    ids.theirs = await create(other, { code: "onboarding", name: "Their onboarding" });

    parts = await addSurveyParts(t.companyId, ids.onboarding, t.memberId, [
      // Given out of order: populate orders chats and questions by `order`.
      { name: "Second chat", order: 2, questions: [{ text: "Anything else?", order: 1, answers: 1 }] },
      {
        name: "First chat",
        order: 1,
        questions: [
          { text: "Rate us", type: "rating", order: 2, answers: 3 },
          { text: "Which team?", type: "single_choice", options: ["A", "B"], order: 1, answers: 2 },
          { text: "Unanswered", order: 3 },
        ],
      },
    ]);
    await addSurveyParts(t.companyId, ids.retired, t.memberId, [
      { name: "Only", order: 1, questions: [{ text: "Q", order: 1, answers: 1 }] },
    ]);
    await addSurveyParts(t.companyId, ids.climate, t.memberId, [
      { name: "Only", order: 1, questions: [{ text: "Q", order: 1, answers: 2 }] },
    ]);
    otherParts = await addSurveyParts(other.companyId, ids.theirs, other.adminId, [
      { name: "Theirs", order: 1, questions: [{ text: "Q", order: 1, answers: 1 }] },
    ]);
  });

  const answerOf = (chat: number, question: number, k = 0) => parts.answers[chat][question][k].toHexString();

  describe("id", () => {
    it("lists the surveys of these ids in the company (inactive ones with isActive=all), never another company's; a malformed id → 400", async () => {
      expect(sorted(await list(`id=${ids.climate}&id=${ids.exit}&id=${ids.theirs}`))).toEqual([
        "climate_2026",
        "exit_interview",
      ]);
      expect(codes(await list(`id=${ids.retired}`))).toEqual([]);
      expect(codes(await list(`id=${ids.retired}&isActive=all`))).toEqual(["retired"]);
      expect(codes(await list(`id=${ids.theirs}`))).toEqual([]);
      expect(codes(await list(`id=${ids.climate}&search=work`))).toEqual(["climate_2026"]);
      expect(codes(await list(`id=${ids.climate}&answer=${answerOf(0, 0)}`))).toEqual([]);
      const bad = await list("id=nope");
      expect(bad.status).toBe(400);
      expect(failure(bad).details![0].path).toMatch(/^id/);
    });
  });

  describe("defaults and envelope", () => {
    it("answers { data: { surveys, page, limit } }: active surveys, newest modifiedAt first", async () => {
      const response = await list();
      expect(response.status).toBe(200);
      expect(Object.keys(success(response).data).sort()).toEqual(["limit", "next", "page", "surveys"]);
      expect(success(response).data).toMatchObject({ page: 1, limit: 10 });
      expect(codes(response)).toEqual([
        "l".repeat(60),
        "star",
        "unicode",
        "plus",
        "dots",
        "exit_interview",
        "climate_2026",
        "onboarding",
      ]);
      expect(success(response).debug).toBeUndefined();
    });

    it("shows full records without internal fields or chats", async () => {
      const record = success(await list()).data.surveys.find((s) => s.code === "unicode");
      expect(Object.keys(record!).sort()).toEqual(
        [
          "_id",
          "code",
          "name",
          "version",
          "company",
          "isActive",
          "isSystemModel",
          "permissions",
          "group",
          "groupPermissions",
          "permissionsV2",
          "groupPermissionsV2",
          "onlySubSurvey",
          "propertiesChannel",
          "propertiesLimit",
          "responders",
          "createdAt",
          "modifiedAt",
          "__v",
        ].sort(),
      );
      expect(record).toMatchObject({ _id: ids.unicode, name: "Ñandú ÉXITO", company: t.companyId, __v: 0 });
    });

    it("needs a token but not the Admin header", async () => {
      expect((await call(surveys.GET, "/v2/surveys")).status).toBe(401);
      expect((await list("", t.memberToken)).status).toBe(200);
    });

    it("ignores unknown parameters, with a debug warning each", async () => {
      const response = await list("colour=red&flavour=sweet&debug=true");
      expect(response.status).toBe(200);
      expect(
        success(response)
          .debug!.filter((note) => note.code === "unknown_parameter")
          .map((note) => note.path),
      ).toEqual(["colour", "flavour"]);
      expect((await list("debug=maybe")).status).toBe(400);
    });
  });

  describe("limit, page, count", () => {
    it("pages without repeating or skipping, and counts every match", async () => {
      const all = codes(await list("limit=100"));
      const pages = [];
      for (let page = 1; page <= 3; page++) pages.push(...codes(await list(`limit=3&page=${page}`)));
      expect(pages).toEqual(all);
      const counted = await list("limit=2&count=true");
      expect(success(counted).data).toMatchObject({ limit: 2, page: 1, counter: 8 });
      expect(codes(counted)).toHaveLength(2);
      expect(success(await list("count=false")).data.counter).toBeUndefined();
      expect(success(await list("page=50")).data.surveys).toEqual([]);
      expect((await list("limit=100")).status).toBe(200);
    });

    it.each([
      "limit=0",
      "limit=101",
      "limit=-1",
      "limit=abc",
      "limit=1.5",
      "limit=",
      "page=0",
      "page=x",
      "count=yes",
      "count=1",
      "limit=5&limit=6",
    ])("%s → 400 invalid_request", async (query) => {
      const response = await list(query);
      expect(response.status).toBe(400);
      expect(failure(response).code).toBe("invalid_request");
      expect(failure(response).details![0].path).toBe(query.split("=")[0]);
    });
  });

  describe("isActive", () => {
    it("true by default; all; false", async () => {
      expect(codes(await list("isActive=true"))).toEqual(codes(await list()));
      expect(codes(await list("isActive=false"))).toEqual(["retired"]);
      expect(sorted(await list("isActive=all&count=true"))).toHaveLength(9);
      expect(success(await list("isActive=all&count=true")).data.counter).toBe(9);
    });

    it("anything else → 400", async () => {
      for (const value of ["yes", "TRUE", "", "1"]) expect((await list(`isActive=${value}`)).status).toBe(400);
    });
  });

  describe("search", () => {
    it("is a case-insensitive prefix of code or name", async () => {
      expect(sorted(await list("search=onboard"))).toEqual(["exit_interview", "onboarding"]);
      expect(sorted(await list("search=ONBOARDING"))).toEqual(["exit_interview", "onboarding"]);
      expect(sorted(await list("search=Welcome"))).toEqual(["onboarding"]);
      expect(sorted(await list("search=exit_"))).toEqual(["exit_interview"]);
      expect(sorted(await list("search=work%20cl"))).toEqual(["climate_2026"]);
      expect(sorted(await list("search=climate"))).toEqual(["climate_2026"]);
    });

    it("is a prefix, not a substring", async () => {
      expect(codes(await list("search=aboard"))).toEqual([]);
      expect(codes(await list("search=interview"))).toEqual([]);
    });

    it("matches Unicode names ignoring case", async () => {
      expect(codes(await list("search=%C3%B1and%C3%BA%20%C3%A9x"))).toEqual(["unicode"]);
      expect(codes(await list("search=%C3%91AND%C3%9A"))).toEqual(["unicode"]);
      // Case, not accents: "nandu" is another word.
      expect(codes(await list("search=nandu"))).toEqual([]);
    });

    it("treats regular-expression metacharacters literally", async () => {
      const cases: [string, string[]][] = [
        [".", ["star"]],
        [".*", ["star"]],
        ["*", []],
        ["a.b (test)* [x] | y^$ \\ z?", ["dots"]],
        ["a.b (", ["dots"]],
        ["a?b", []],
        ["(", []],
        ["[", []],
        ["\\", []],
        ["^", []],
        ["$", []],
        ["|", []],
        ["c++", ["plus"]],
        ["C+", ["plus"]],
        ["+", []],
        ["a.", ["dots"]],
        ["ab", []],
      ];
      for (const [query, expected] of cases) {
        const response = await list(`search=${encodeURIComponent(query)}`);
        expect(response.status, query).toBe(200);
        expect(sorted(response), query).toEqual(expected);
      }
    });

    it("matches queries longer than 32 characters, by code and by name", async () => {
      const name = `${"long name ".repeat(5)}with a tail`;
      for (const query of [
        name.slice(0, 32),
        name.slice(0, 33),
        name.toUpperCase(),
        "l".repeat(33),
        "l".repeat(60),
        name.slice(0, 45),
      ]) {
        expect(codes(await list(`search=${encodeURIComponent(query)}&count=true`)), query).toEqual(["l".repeat(60)]);
      }
      for (const query of [`${name.slice(0, 40)}x`, "l".repeat(61), `${"l".repeat(40)}.`]) {
        const response = await list(`search=${encodeURIComponent(query)}&count=true`);
        expect(codes(response), query).toEqual([]);
        expect(success(response).data.counter).toBe(0);
      }
    });

    it("follows PATCHes of the code and of the name", async () => {
      const id = await create(t, { code: "renamed_before", name: "Before rename" });
      const patch = (body: Record<string, unknown>) =>
        call(survey.PATCH, `/v2/surveys/${id}`, {
          method: "PATCH",
          token: t.adminToken,
          admin: true,
          body,
          params: { id },
        });
      expect(codes(await list("search=before"))).toEqual(["renamed_before"]);
      expect((await patch({ name: "After Rename" })).status).toBe(200);
      // The code still matches; the old name does not, the new one does.
      expect(codes(await list("search=before%20r"))).toEqual([]);
      expect(codes(await list("search=renamed_b"))).toEqual(["renamed_before"]);
      expect(codes(await list("search=after%20re"))).toEqual(["renamed_before"]);
      expect((await patch({ code: "renamed_after" })).status).toBe(200);
      expect(codes(await list("search=renamed_b"))).toEqual([]);
      expect(codes(await list("search=renamed_a&count=true"))).toEqual(["renamed_after"]);
      expect((await patch({ isActive: false })).status).toBe(200);
      expect(codes(await list("search=after"))).toEqual([]);
      expect(codes(await list("search=after&isActive=false"))).toEqual(["renamed_after"]);
      expect(codes(await list("search=after&isActive=all"))).toEqual(["renamed_after"]);
      // Both at once, and prefixes shared by the code and the name: stored as a create stores them.
      const LONG_NAME = "Both_No Ñoño 😀, a name of more than thirty-two code points";
      expect((await patch({ code: "both_no", name: LONG_NAME })).status).toBe(200);
      const stored = await Survey.collection.findOne({ _id: new ObjectId(id) });
      expect([...(stored?.searchPrefixes as string[])].sort()).toEqual(
        surveySearchPrefixes("both_no", LONG_NAME).sort(),
      );
      expect(codes(await list("search=both&isActive=all&count=true"))).toEqual(["both_no"]);
      expect((await patch({ name: "Zeta" })).status).toBe(200);
      const renamed = await Survey.collection.findOne({ _id: new ObjectId(id) });
      expect([...(renamed?.searchPrefixes as string[])].sort()).toEqual(surveySearchPrefixes("both_no", "Zeta").sort());
    });

    it("counts each matching survey once, whether by code, name or both", async () => {
      // "onboarding" matches its own code and name of exit_interview ("Onboarding feedback").
      expect(success(await list("search=onboarding&count=true")).data.counter).toBe(2);
      // "climate_2026"'s name "Work climate" does not start with "c"; "C++ survey" does.
      expect(success(await list("search=c&count=true")).data.counter).toBe(2);
      expect(success(await list("search=o&count=true&isActive=all")).data.counter).toBe(3);
    });

    it("pages and orders matches like the list", async () => {
      const all = codes(await list("search=o&isActive=all"));
      expect(all).toEqual(["retired", "exit_interview", "onboarding"]);
      expect(codes(await list("search=o&isActive=all&limit=1&page=2"))).toEqual(["exit_interview"]);
      expect(codes(await list("search=o&isActive=all&limit=2&page=2"))).toEqual(["onboarding"]);
    });

    it("combines with isActive", async () => {
      expect(codes(await list("search=old"))).toEqual([]);
      expect(codes(await list("search=old&isActive=false"))).toEqual(["retired"]);
    });

    it("an empty search is ignored with a debug warning; a long one → 400", async () => {
      const response = await list("search=&debug=true");
      expect(codes(response)).toEqual(codes(await list()));
      expect(success(response).debug).toContainEqual(expect.objectContaining({ code: "empty_search", path: "search" }));
      expect((await list(`search=${"x".repeat(201)}`)).status).toBe(400);
      expect(failure(await list("search=a&search=b")).details).toEqual([
        { path: "search", message: "must be given once" },
      ]);
    });

    it("refuses object-ish parameters such as search[$ne]", async () => {
      const response = await list("search[$ne]=x");
      expect(response.status).toBe(400);
      expect(failure(response).details![0].path).toBe("search[$ne]");
    });
  });

  describe("select", () => {
    it("returns only the named fields and _id", async () => {
      const response = await list("select=code&select=version");
      expect(response.status).toBe(200);
      for (const record of success(response).data.surveys)
        expect(Object.keys(record!).sort()).toEqual(["_id", "code", "version"]);
      expect(codes(response)).toEqual(codes(await list()));
    });

    it("accepts select[] and comma-separated values; _id alone", async () => {
      const brackets = await list("select[]=name&select[]=__v");
      expect(Object.keys(success(brackets).data.surveys[0]).sort()).toEqual(["__v", "_id", "name"]);
      const commas = await list("select=name,modifiedAt,name");
      expect(Object.keys(success(commas).data.surveys[0]).sort()).toEqual(["_id", "modifiedAt", "name"]);
      const only = await list("select=_id");
      expect(success(only).data.surveys.map((s) => Object.keys(s))).toEqual(
        success(only).data.surveys.map(() => ["_id"]),
      );
    });

    it("works with search, paging and answer", async () => {
      const response = await list("select=name&search=onboarding&limit=1&page=2");
      expect(success(response).data.surveys).toEqual([{ _id: ids.onboarding, name: "Welcome aboard" }]);
      const byAnswer = await list(`select=code&answer=${answerOf(0, 0)}`);
      expect(success(byAnswer).data.surveys).toEqual([{ _id: ids.onboarding, code: "onboarding" }]);
    });

    it("an unknown field name → 400 naming it", async () => {
      for (const query of [
        "select=colour",
        "select=code,nameLower",
        "select=chat",
        "select=company.name",
        "select=Code",
      ]) {
        const response = await list(query);
        expect(response.status, query).toBe(400);
        expect(failure(response).code).toBe("invalid_request");
        expect(failure(response).details![0].path).toMatch(/^select\.\d$/);
      }
    });
  });

  describe("answer", () => {
    it("returns the surveys of the given answer uuids", async () => {
      expect(codes(await list(`answer=${answerOf(1, 0)}`))).toEqual(["onboarding"]);
      const both = await list(`answer=${answerOf(0, 0)}&answer=${answerOf(1, 0, 2)}&count=true`);
      expect(codes(both)).toEqual(["onboarding"]);
      expect(success(both).data.counter).toBe(1);
    });

    it("several surveys, repeated or comma-separated, uppercase hex accepted", async () => {
      const climate = success(await list("isActive=all")).data.surveys.find((s) => s.code === "climate_2026");
      expect(climate).toBeDefined();
      const climateAnswer = await Answer.findOne({ survey: climate!._id }).lean();
      const query = `answer[]=${answerOf(0, 0).toUpperCase()},${climateAnswer?.uuid.toHexString()}`;
      expect(sorted(await list(query))).toEqual(["climate_2026", "onboarding"]);
    });

    it("combines with isActive: an inactive survey's answer needs isActive=all", async () => {
      const retired = await Answer.findOne({ survey: ids.retired }).lean();
      const uuid = retired?.uuid.toHexString();
      expect(codes(await list(`answer=${uuid}`))).toEqual([]);
      expect(codes(await list(`answer=${uuid}&isActive=all`))).toEqual(["retired"]);
    });

    it("an answer of another company or of nothing matches nothing, with a debug warning", async () => {
      const theirs = otherParts.answers[0][0][0].toHexString();
      const response = await list(`answer=${theirs}&answer=0123456789abcdef01234567&debug=true&count=true`);
      expect(success(response).data).toMatchObject({ surveys: [], counter: 0 });
      expect(success(response).debug!.filter((note) => note.code === "unknown_answer")).toHaveLength(2);
      // The other company sees its own.
      expect(codes(await list(`answer=${theirs}`, other.adminToken))).toEqual(["onboarding"]);
    });

    it("a malformed uuid → 400 naming it", async () => {
      const response = await list(`answer=${answerOf(0, 0)}&answer=nope`);
      expect(response.status).toBe(400);
      expect(failure(response).details).toEqual([{ path: "answer.1", message: "must be a 24-hex ObjectId" }]);
      expect((await list(`answer=${Array.from({ length: 101 }, () => answerOf(0, 0)).join(",")}`)).status).toBe(400);
    });
  });

  describe("tenancy", () => {
    it("another company sees none of these surveys and has its own with the same code", async () => {
      const theirs = await list("isActive=all&count=true", other.adminToken);
      expect(success(theirs).data.counter).toBe(1);
      expect(success(theirs).data.surveys[0]).toMatchObject({
        _id: ids.theirs,
        code: "onboarding",
        company: other.companyId,
      });
      expect(codes(await list("search=their"))).toEqual([]);
      expect((await read(ids.onboarding, "", { token: other.adminToken })).status).toBe(404);
      expect((await read(ids.theirs)).status).toBe(404);
      expect((await read(ids.theirs, "populate=true")).status).toBe(404);
    });
  });

  describe("GET /v2/surveys/{id}", () => {
    it("answers the survey; populate=false or absent adds no chat", async () => {
      const response = await read(ids.climate);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ _id: ids.climate, code: "climate_2026", version: 2 });
      expect(success(response).chat).toBeUndefined();
      expect((await read(ids.climate, "populate=false")).body).toEqual(response.body);
    });

    it("populate=true adds chat: chats by order, each with its questions by order and answer counts", async () => {
      const response = await read(ids.onboarding, "populate=true");
      expect(response.status).toBe(200);
      const { chat } = success(response);
      expect(chat!.map((c) => c.name)).toEqual(["First chat", "Second chat"]);
      expect(chat![0]).toEqual({
        _id: parts.chats[1].toHexString(),
        name: "First chat",
        order: 1,
        createdAt: expect.stringMatching(/Z$/),
        modifiedAt: expect.stringMatching(/Z$/),
        questions: [
          {
            _id: parts.questions[1][1].toHexString(),
            text: "Which team?",
            type: "single_choice",
            options: ["A", "B"],
            order: 1,
            answerCount: 2,
          },
          {
            _id: parts.questions[1][0].toHexString(),
            text: "Rate us",
            type: "rating",
            options: [],
            order: 2,
            answerCount: 3,
          },
          {
            _id: parts.questions[1][2].toHexString(),
            text: "Unanswered",
            type: "text",
            options: [],
            order: 3,
            answerCount: 0,
          },
        ],
      });
      expect(chat![1].questions).toEqual([expect.objectContaining({ text: "Anything else?", answerCount: 1 })]);
    });

    it("a survey without chats has chat: []", async () => {
      expect(success(await read(ids.dots, "populate=true")).chat).toEqual([]);
    });

    it("bad populate → 400; bad id → 400 invalid_id; unknown id → 404", async () => {
      expect(failure(await read(ids.dots, "populate=yes")).details).toEqual([
        { path: "populate", message: "must be true or false" },
      ]);
      expect(failure(await read("not-an-id")).code).toBe("invalid_id");
      const missing = await read("0123456789abcdef01234567");
      expect(missing.status).toBe(404);
      expect(failure(missing).code).toBe("not_found");
    });

    it("requires Admin: true from an admin", async () => {
      expect(failure(await read(ids.dots, "", { admin: false })).code).toBe("admin_required");
      expect(failure(await read(ids.dots, "", { token: t.memberToken })).code).toBe("forbidden");
      expect(
        (await call(survey.GET, `/v2/surveys/${ids.dots}`, { admin: true, params: { id: ids.dots } })).status,
      ).toBe(401);
    });
  });
});
