import { oid } from "@/lib/kernel/ids";
import { Survey } from "@/lib/resources/surveys/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { beforeAll, describe, expect, it } from "vitest";
import * as answers from "./[id]/answers/route";
import * as content from "./[id]/content/route";
import * as revisions from "./[id]/revisions/route";
import * as survey from "./[id]/route";
import * as surveys from "./route";

describe("PUT /v2/surveys/{id}/content", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  let n = 0;

  async function create(tenant = t, body: Record<string, unknown> = {}) {
    const response = await call(surveys.POST, "/v2/surveys", {
      token: tenant.adminToken,
      admin: true,
      body: {
        code: `content_${++n}`,
        name: `Survey ${n}`,
        version: 2,
        permissionsV2: [{ accessRole: tenant.memberRoleId, canAnswer: true }],
        ...body,
      },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return success(response);
  }

  const put = (id: string, body: unknown, options: { token?: string; admin?: boolean } = {}) =>
    call(content.PUT, `/v2/surveys/${id}/content`, {
      method: "PUT",
      token: options.token ?? t.adminToken,
      admin: options.admin ?? true,
      body,
      params: { id },
    });

  const populated = async (id: string, tenant = t) =>
    success(
      await call(survey.GET, `/v2/surveys/${id}?populate=true`, {
        token: tenant.adminToken,
        admin: true,
        params: { id },
      }),
    );

  const answer = (id: string, body: Record<string, unknown>, token = t.memberToken) =>
    call(answers.POST, `/v2/surveys/${id}/answers`, { token, body, params: { id } });

  const basic = {
    chat: [
      {
        name: "Welcome",
        questions: [
          { text: "Your name?", type: "text" },
          { text: "Pick one", type: "single_choice", options: ["A", "B"] },
        ],
      },
      { name: "Scores", questions: [{ text: "Rate us", type: "rating" }] },
    ],
  };

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Content"), createTenant("Content other")]);
  });

  it("holds to the version If-Match names, as PATCH does: a stale tag is 412 with nothing changed", async () => {
    const created = await create();
    const tag = (
      await call(survey.GET, `/v2/surveys/${created._id}`, {
        token: t.adminToken,
        admin: true,
        params: { id: created._id },
      })
    ).headers.get("etag")!;
    const first = await call(content.PUT, `/v2/surveys/${created._id}/content`, {
      method: "PUT",
      token: t.adminToken,
      admin: true,
      body: basic,
      params: { id: created._id },
      headers: { "If-Match": tag },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get("etag")).toMatch(/^W\//);
    const stale = await call(content.PUT, `/v2/surveys/${created._id}/content`, {
      method: "PUT",
      token: t.adminToken,
      admin: true,
      body: { chat: [] },
      params: { id: created._id },
      headers: { "If-Match": tag },
    });
    expect(stale.status).toBe(412);
    expect(failure(stale).code).toBe("precondition_failed");
    const now = await populated(created._id);
    expect(now.__v).toBe(1);
    expect(now.chat).toHaveLength(2);
    expect(stale.headers.get("etag")).toBe(
      (
        await call(survey.GET, `/v2/surveys/${created._id}`, {
          token: t.adminToken,
          admin: true,
          params: { id: created._id },
        })
      ).headers.get("etag"),
    );
  });

  it("replaces the content in order: a change of the survey with __v + 1, a later modifiedAt, the survey with chat", async () => {
    const before = await create();
    const response = await put(before._id, basic);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const after = success(response);
    expect(after.__v).toBe(1);
    expect(Date.parse(after.modifiedAt)).toBeGreaterThan(Date.parse(before.modifiedAt));
    expect(after.chat!.map((chat) => chat.name)).toEqual(["Welcome", "Scores"]);
    expect(after.chat![0].questions).toEqual([
      { _id: expect.any(String), text: "Your name?", type: "text", options: [], order: 1, answerCount: 0 },
      {
        _id: expect.any(String),
        text: "Pick one",
        type: "single_choice",
        options: ["A", "B"],
        order: 2,
        answerCount: 0,
      },
    ]);
    expect(await populated(before._id)).toEqual(after);
    // With ?debug=true, the same survey, its notes beside it (an unknown parameter's here).
    const debug = await call(survey.GET, `/v2/surveys/${before._id}?populate=true&colour=red&debug=true`, {
      token: t.adminToken,
      admin: true,
      params: { id: before._id },
    });
    expect(debug.status, JSON.stringify(debug.body)).toBe(200);
    const { debug: notes, ...shown } = debug.body as typeof after & { debug: { code: string }[] };
    expect(shown).toEqual(after);
    expect(notes.map((note) => note.code)).toContain("unknown_parameter");
  });

  it("stores a revision whose snapshot holds chat, so the history shows the content", async () => {
    const created = await create();
    const after = success(await put(created._id, basic));
    const history = await call(revisions.GET, `/v2/surveys/${created._id}/revisions`, {
      token: t.adminToken,
      admin: true,
      params: { id: created._id },
    });
    const [newest, first] = success(history).data.revisions;
    expect(newest.__v).toBe(1);
    expect(newest.snapshot.chat).toEqual(
      after.chat!.map((chat) => ({
        _id: chat._id,
        name: chat.name,
        order: chat.order,
        questions: chat.questions.map(({ answerCount, ...q }) => (void answerCount, q)),
      })),
    );
    expect(first.snapshot.chat).toBeUndefined();
    // A later PATCH keeps the content in its revision too.
    await call(survey.PATCH, `/v2/surveys/${created._id}`, {
      method: "PATCH",
      token: t.adminToken,
      admin: true,
      body: { name: "Renamed" },
      params: { id: created._id },
    });
    const later = await call(revisions.GET, `/v2/surveys/${created._id}/revisions`, {
      token: t.adminToken,
      admin: true,
      params: { id: created._id },
    });
    expect(success(later).data.revisions[0].snapshot.chat).toEqual(newest.snapshot.chat);
  });

  it("keeps chats and questions by _id (renamed, reordered, moved), creates those without, removes those left out", async () => {
    const created = await create();
    const first = success(await put(created._id, basic));
    const [welcome, scores] = first.chat!;
    const body = {
      chat: [
        {
          _id: scores._id,
          name: "Scores!",
          questions: [
            { _id: welcome.questions[1]._id, text: "Pick one", type: "single_choice", options: ["B", "A", "C"] },
            { _id: scores.questions[0]._id, text: "Rate", type: "rating" },
          ],
        },
        { name: "New", questions: [{ text: "When?", type: "date" }] },
      ],
    };
    const response = await put(created._id, body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const chat = success(response).chat;
    expect(chat!.map((c) => [c._id === scores._id, c.name, c.order])).toEqual([
      [true, "Scores!", 1],
      [false, "New", 2],
    ]);
    expect(chat![0].questions.map((q) => [q._id, q.text, q.order])).toEqual([
      [welcome.questions[1]._id, "Pick one", 1],
      [scores.questions[0]._id, "Rate", 2],
    ]);
    expect(chat![0].questions[0].options).toEqual(["B", "A", "C"]);
    expect(chat![1].questions[0]._id).not.toBe(welcome.questions[0]._id);
  });

  it("an answered question keeps its type (409) and its answers; an unanswered one may change type", async () => {
    const created = await create();
    const first = success(await put(created._id, basic));
    const [welcome, scores] = first.chat!;
    expect(
      (await answer(created._id, { answers: [{ question: welcome.questions[0]._id, value: "Ana" }] })).status,
    ).toBe(201);

    const retyped = await put(created._id, {
      chat: [
        {
          _id: welcome._id,
          name: "Welcome",
          questions: [{ _id: welcome.questions[0]._id, text: "Your age?", type: "number" }],
        },
      ],
    });
    expect(retyped.status).toBe(409);
    expect(failure(retyped)).toMatchObject({ code: "conflict", details: [{ path: "chat.0.questions.0.type" }] });
    expect((await populated(created._id)).__v).toBe(1);

    const unanswered = await put(created._id, {
      chat: [
        {
          _id: scores._id,
          name: "Scores",
          questions: [{ _id: scores.questions[0]._id, text: "Rate", type: "number" }],
        },
      ],
    });
    expect(unanswered.status, JSON.stringify(unanswered.body)).toBe(200);
    expect(success(unanswered).chat).toHaveLength(1);
    expect(success(unanswered).chat![0].questions[0].type).toBe("number");

    // The removed question's answer is still there, and naming the question again brings it back with it.
    const back = await put(created._id, {
      chat: [
        {
          _id: welcome._id,
          name: "Welcome",
          questions: [{ _id: welcome.questions[0]._id, text: "Your name?", type: "text" }],
        },
      ],
    });
    expect(back.status).toBe(200);
    expect(success(back).chat![0].questions[0]).toMatchObject({ _id: welcome.questions[0]._id, answerCount: 1 });
  });

  it("a restore (a PUT of a revision's chat) brings removed content back with its answers", async () => {
    const created = await create();
    const first = success(await put(created._id, basic));
    const q = first.chat![0].questions[1];
    expect((await answer(created._id, { answers: [{ question: q._id, value: "B" }] })).status).toBe(201);
    await put(created._id, { chat: [{ name: "Only", questions: [{ text: "Anything else?", type: "text" }] }] });
    expect((await populated(created._id)).chat!.flatMap((c) => c.questions).some((x) => x._id === q._id)).toBe(false);

    const history = await call(revisions.GET, `/v2/surveys/${created._id}/revisions`, {
      token: t.adminToken,
      admin: true,
      params: { id: created._id },
    });
    const snapshot = success(history).data.revisions.find((revision) => revision.__v === 1)!.snapshot;
    const restored = await put(created._id, {
      chat: snapshot.chat!.map((chat) => ({
        _id: chat._id,
        name: chat.name,
        questions: chat.questions.map((x) => ({
          _id: x._id,
          text: x.text,
          type: x.type,
          ...(x.options.length ? { options: x.options } : {}),
        })),
      })),
    });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(success(restored).__v).toBe(3);
    expect(success(restored).chat!.map((c) => c._id)).toEqual(first.chat!.map((c) => c._id));
    expect(success(restored).chat![0].questions[1]).toMatchObject({ _id: q._id, answerCount: 1 });
  });

  it("an _id of no chat or question of this survey (or of another survey) is 400 naming it; nothing changes", async () => {
    const created = await create();
    const elsewhere = success(await put((await create())._id, basic));
    const response = await put(created._id, {
      chat: [
        { _id: "0123456789abcdef01234567", name: "X", questions: [] },
        { name: "Y", questions: [{ _id: elsewhere.chat![0].questions[0]._id, text: "Q", type: "text" }] },
      ],
    });
    expect(response.status).toBe(400);
    expect(failure(response).code).toBe("invalid_request");
    expect(failure(response).details?.map((d) => d.path)).toEqual(["chat.0._id", "chat.1.questions.0._id"]);
    expect((await populated(created._id)).__v).toBe(0);
  });

  it.each([
    ["51 chats", { chat: Array.from({ length: 51 }, (_, i) => ({ name: `C${i}`, questions: [] })) }, "chat"],
    [
      "501 questions",
      {
        chat: Array.from({ length: 11 }, (_, i) => ({
          name: `C${i}`,
          questions: Array.from({ length: i === 0 ? 1 : 50 }, (_, k) => ({ text: `Q${k}`, type: "text" })),
        })),
      },
      "chat",
    ],
    [
      "a choice with one option",
      { chat: [{ name: "C", questions: [{ text: "Q", type: "single_choice", options: ["A"] }] }] },
      "chat.0.questions.0.options",
    ],
    [
      "a choice without options",
      { chat: [{ name: "C", questions: [{ text: "Q", type: "multiple_choice" }] }] },
      "chat.0.questions.0.options",
    ],
    [
      "51 options",
      {
        chat: [
          {
            name: "C",
            questions: [{ text: "Q", type: "single_choice", options: Array.from({ length: 51 }, (_, i) => `O${i}`) }],
          },
        ],
      },
      "chat.0.questions.0.options",
    ],
    [
      "a repeated option",
      { chat: [{ name: "C", questions: [{ text: "Q", type: "single_choice", options: ["A", "B", "A"] }] }] },
      "chat.0.questions.0.options.2",
    ],
    [
      "an empty option",
      { chat: [{ name: "C", questions: [{ text: "Q", type: "single_choice", options: ["A", "  "] }] }] },
      "chat.0.questions.0.options.1",
    ],
    [
      "options on a text question",
      { chat: [{ name: "C", questions: [{ text: "Q", type: "text", options: ["A", "B"] }] }] },
      "chat.0.questions.0.options",
    ],
    [
      "an unknown type",
      { chat: [{ name: "C", questions: [{ text: "Q", type: "essay" }] }] },
      "chat.0.questions.0.type",
    ],
    [
      "an empty question text",
      { chat: [{ name: "C", questions: [{ text: "", type: "text" }] }] },
      "chat.0.questions.0.text",
    ],
    ["an unknown field", { chat: [{ name: "C", questions: [], colour: "red" }] }, "chat.0.colour"],
    ["a malformed _id", { chat: [{ _id: "nope", name: "C", questions: [] }] }, "chat.0._id"],
    [
      "one _id twice",
      {
        chat: [
          { _id: "0123456789abcdef01234567", name: "C", questions: [] },
          { _id: "0123456789abcdef01234567", name: "D", questions: [] },
        ],
      },
      "chat.1._id",
    ],
    ["no chat", {}, "chat"],
  ])("refuses %s with 400 naming the field", async (_, body, path) => {
    const created = await create();
    const response = await put(created._id, body);
    expect(response.status).toBe(400);
    expect(failure(response).code).toBe("invalid_request");
    expect(failure(response).details?.map((d) => d.path)).toContain(path);
  });

  it("accepts 50 chats and 500 questions", async () => {
    const created = await create();
    const body = {
      chat: Array.from({ length: 50 }, (_, i) => ({
        name: `C${i}`,
        questions: Array.from({ length: 10 }, (_, k) => ({ text: `Q${k}`, type: "yes_no" })),
      })),
    };
    const response = await put(created._id, body);
    expect(response.status, JSON.stringify(response.body).slice(0, 500)).toBe(200);
    expect(success(response).chat!.flatMap((c) => c.questions)).toHaveLength(500);
  });

  it("is for admins: without Admin: true 403 admin_required, a member with it 403 forbidden", async () => {
    const created = await create();
    expect(failure(await put(created._id, basic, { token: t.memberToken, admin: false })).code).toBe("admin_required");
    const member = await put(created._id, basic, { token: t.memberToken, admin: true });
    expect(member.status).toBe(403);
    expect(failure(member).code).toBe("forbidden");
  });

  it("a survey of another company is 404, and is left as it was", async () => {
    const theirs = await create(other);
    const response = await put(theirs._id, basic);
    expect(response.status).toBe(404);
    expect((await populated(theirs._id, other)).chat).toEqual([]);
  });

  it("a content write stopped after the survey's write is finished by the next read", async () => {
    const created = await create();
    const done = success(await put(created._id, basic));
    // As if the process had died between the survey's write and the chats' and questions' writes.
    const chat = [
      {
        _id: oid(done.chat![1]._id),
        name: "Renamed half-way",
        order: 1,
        questions: [{ _id: oid(done.chat![1].questions[0]._id), text: "Rate", type: "rating", options: [], order: 1 }],
      },
    ];
    await Survey.collection.updateOne(
      { _id: oid(created._id) },
      { $set: { chat, contentPending: true }, $inc: { __v: 1 } },
    );
    const read = await populated(created._id);
    expect(read.chat!.map((c) => c.name)).toEqual(["Renamed half-way"]);
    expect((await Survey.collection.findOne({ _id: oid(created._id) }))?.contentPending).toBeUndefined();
  });
});
