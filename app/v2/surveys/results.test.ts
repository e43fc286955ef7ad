import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, type Json, type Tenant } from "@/lib/testing/http";
import { useTestDatabase } from "@/lib/testing/database";
import { EVERY_TYPE_CONTENT } from "@/lib/testing/surveys";
import { Answer } from "@/lib/surveys/parts";
import { oid } from "@/lib/server/ids";
import * as surveys from "./route";
import * as content from "./[id]/content/route";
import * as answers from "./[id]/answers/route";
import * as results from "./[id]/results/route";



/** Four responses; each row is one response's values by type (undefined: not answered). */
const RESPONSES: Record<string, unknown>[] = [
  { text: "first", number: 1, date: "2026-01-15", yes_no: true, single_choice: "Red", multiple_choice: ["Tea", "Coffee"], rating: 1 },
  { text: "second", number: 2, date: "2026-03-02T10:00:00Z", yes_no: true, single_choice: "Red", multiple_choice: ["Coffee"], rating: 2 },
  { text: "third", number: 3, yes_no: false, single_choice: "Blue", rating: 2 },
  { text: "fourth", number: 10, rating: 5 },
];

describe("GET /v2/surveys/{id}/results", () => {
  useTestDatabase();
  let t: Tenant;
  let other: Tenant;
  let id: string;
  let q: Record<string, string>;
  let chats: string[];
  const times: Date[] = [];

  const get = (query = "", token = t.adminToken, surveyId = id) => call(results.GET, `/v2/surveys/${surveyId}/results${query}`, { token, admin: true, params: { id: surveyId } });
  const byType = (body: Json) => Object.fromEntries(body.questions.map((question: Json) => [question.type, question]));

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Results"), createTenant("Results other")]);
    const made = await call(surveys.POST, "/v2/surveys", { token: t.adminToken, admin: true, body: { code: "results", name: "Results", version: 2, permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true }] } });
    id = made.body._id;
    const put = await call(content.PUT, `/v2/surveys/${id}/content`, { method: "PUT", token: t.adminToken, admin: true, body: EVERY_TYPE_CONTENT, params: { id } });
    chats = put.body.chat.map((chat: Json) => chat._id);
    q = Object.fromEntries(put.body.chat.flatMap((chat: Json) => chat.questions).map((question: Json) => [question.type, question._id]));
    for (const [index, response] of RESPONSES.entries()) {
      const body = { answers: Object.entries(response).map(([type, value]) => ({ question: q[type], value })) };
      const answered = await call(answers.POST, `/v2/surveys/${id}/answers`, { token: t.memberToken, body, params: { id } });
      expect(answered.status, JSON.stringify(answered.body)).toBe(201);
      // A day between responses, so that windows can tell them apart.
      const at = new Date(Date.UTC(2026, 5, 1 + index, 12));
      times.push(at);
      await Answer.collection.updateMany({ response: oid(answered.body.responseId) }, { $set: { createdAt: at } });
    }
  });

  it("summarises every question by its type, zero counts included", async () => {
    const response = await get();
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({ responses: 4, answers: 22, from: null, to: null });
    expect(body.questions.map((question: Json) => question.type)).toEqual(["text", "number", "date", "yes_no", "single_choice", "multiple_choice", "rating"]);
    const r = byType(body);
    expect(r.single_choice).toEqual({ _id: q.single_choice, chat: chats[1], text: "Pick one", type: "single_choice", removed: false, answered: 3, summary: { counts: [{ option: "Red", count: 2 }, { option: "Green", count: 0 }, { option: "Blue", count: 1 }] } });
    expect(r.multiple_choice.summary.counts).toEqual([{ option: "Tea", count: 1 }, { option: "Coffee", count: 2 }, { option: "Water", count: 0 }]);
    expect(r.multiple_choice.answered).toBe(2);
    expect(r.yes_no.summary.counts).toEqual([{ option: "true", count: 2 }, { option: "false", count: 1 }]);
    expect(r.text.summary.latest).toEqual(["fourth", "third", "second", "first"].map((value, i) => ({ value, createdAt: times[3 - i].toISOString() })));
  });

  it("number: min, max, mean, the median of an even count as the mean of the two middle values, ten bins", async () => {
    const { summary } = byType((await get()).body).number;
    expect(summary).toMatchObject({ min: 1, max: 10, mean: 4, median: 2.5 });
    expect(summary.histogram).toHaveLength(10);
    expect(summary.histogram[0]).toEqual({ from: 1, to: 1.9, count: 1 });
    expect(summary.histogram[1]).toMatchObject({ count: 1 });
    expect(summary.histogram[2]).toMatchObject({ count: 1 });
    expect(summary.histogram[9]).toEqual({ from: expect.closeTo(9.1), to: 10, count: 1 });
    expect(summary.histogram.reduce((sum: number, bin: Json) => sum + bin.count, 0)).toBe(4);
    // An odd count: the middle value.
    const three = byType((await get(`?to=${times[2].toISOString()}`)).body).number.summary;
    expect(three).toMatchObject({ min: 1, max: 3, mean: 2, median: 2 });
  });

  it("rating: five bins 1–5 with zero counts, the median read off the counts", async () => {
    const { summary } = byType((await get()).body).rating;
    expect(summary).toEqual({
      min: 1,
      max: 5,
      mean: 2.5,
      median: 2,
      histogram: [1, 2, 3, 4, 5].map((value) => ({ from: value, to: value, count: { 1: 1, 2: 2, 3: 0, 4: 0, 5: 1 }[value] })),
    });
  });

  it("date: min, max and every month between them, empty months included", async () => {
    const { summary } = byType((await get()).body).date;
    expect(summary).toEqual({
      min: "2026-01-15T00:00:00.000Z",
      max: "2026-03-02T10:00:00.000Z",
      histogram: [
        { from: "2026-01-01T00:00:00.000Z", to: "2026-01-31T23:59:59.999Z", count: 1 },
        { from: "2026-02-01T00:00:00.000Z", to: "2026-02-28T23:59:59.999Z", count: 0 },
        { from: "2026-03-01T00:00:00.000Z", to: "2026-03-31T23:59:59.999Z", count: 1 },
      ],
    });
  });

  it("from and to bound the answers counted, both inclusive, and are echoed", async () => {
    const response = await get(`?from=${times[1].toISOString()}&to=${times[2].toISOString()}`);
    expect(response.body).toMatchObject({ responses: 2, from: times[1].toISOString(), to: times[2].toISOString() });
    const r = byType(response.body);
    expect(r.single_choice.summary.counts).toEqual([{ option: "Red", count: 1 }, { option: "Green", count: 0 }, { option: "Blue", count: 1 }]);
    expect(r.date.summary.histogram).toEqual([{ from: "2026-03-01T00:00:00.000Z", to: "2026-03-31T23:59:59.999Z", count: 1 }]);
    const none = await get("?from=2030-01-01T00:00:00.000Z");
    expect(none.body).toMatchObject({ responses: 0, answers: 0 });
    expect(byType(none.body).number.summary).toEqual({ min: null, max: null, mean: null, median: null, histogram: [] });
    expect(byType(none.body).rating.summary.histogram.every((bin: Json) => bin.count === 0)).toBe(true);
    expect(byType(none.body).text.summary.latest).toEqual([]);
  });

  it("refuses bad parameters with 400", async () => {
    for (const query of ["?from=soon", "?to=2026-06-01", "?from=2026-06-02T00:00:00Z&to=2026-06-01T00:00:00Z"]) {
      const response = await get(query);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe("invalid_request");
    }
  });

  it("a removed question and a removed option stay listed while answers hold them", async () => {
    const made = await call(surveys.POST, "/v2/surveys", { token: t.adminToken, admin: true, body: { code: "removals", name: "Removals", version: 2, permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true }] } });
    const sid = made.body._id;
    const put = (body: Json) => call(content.PUT, `/v2/surveys/${sid}/content`, { method: "PUT", token: t.adminToken, admin: true, body, params: { id: sid } });
    const first = (await put({ chat: [{ name: "C", questions: [{ text: "Colour", type: "single_choice", options: ["Red", "Green"] }, { text: "Score", type: "number" }, { text: "Unused", type: "text" }] }] })).body;
    const [colour, score] = first.chat[0].questions;
    await call(answers.POST, `/v2/surveys/${sid}/answers`, { token: t.memberToken, body: { answers: [{ question: colour._id, value: "Green" }, { question: score._id, value: 7 }] }, params: { id: sid } });
    await put({ chat: [{ _id: first.chat[0]._id, name: "C", questions: [{ _id: colour._id, text: "Colour", type: "single_choice", options: ["Red", "Blue"] }] }] });
    const body = (await get("", t.adminToken, sid)).body;
    expect(body.questions.map((question: Json) => [question.text, question.removed])).toEqual([["Colour", false], ["Score", true]]);
    expect(body.questions[0].summary.counts).toEqual([{ option: "Red", count: 0 }, { option: "Blue", count: 0 }, { option: "Green", count: 1 }]);
    expect(body.questions[1].summary).toMatchObject({ min: 7, max: 7, median: 7, histogram: [{ from: 7, to: 7, count: 1 }] });
  });

  it("nothing of another company: its admin gets 404, and its answers never count here", async () => {
    expect((await get("", other.adminToken)).status).toBe(404);
    const theirs = await call(surveys.POST, "/v2/surveys", { token: other.adminToken, admin: true, body: { code: "results", name: "Theirs", version: 1, permissions: [other.memberRoleId] } });
    const theirId = theirs.body._id;
    // Their answers name our question: still not counted in our results.
    await Answer.collection.insertOne({ uuid: oid(theirId), company: oid(other.companyId), survey: oid(id), chat: oid(chats[0]), question: oid(q.number), user: null, value: 1000, response: oid(theirId), position: 0, createdAt: new Date(), modifiedAt: new Date() });
    const body = (await get()).body;
    expect(body.responses).toBe(4);
    expect(byType(body).number.summary.max).toBe(10);
  });
});
