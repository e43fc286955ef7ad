import { newId, oid } from "@/lib/kernel/ids";
import {
  CountsSummary,
  DateSummary,
  NumberSummary,
  type QuestionResult,
  type SurveyResults,
  TextSummary,
} from "@/lib/resources/answers/contract";
import { Answer, newAnswerDoc } from "@/lib/resources/answers/repository";
import { recountMonths } from "@/lib/resources/answers/tallies";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { call, createTenant, failure, success, type Tenant } from "@/lib/tools/testing/http";
import { EVERY_TYPE_CONTENT } from "@/lib/tools/testing/surveys";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import * as answers from "./[id]/answers/route";
import * as content from "./[id]/content/route";
import * as results from "./[id]/results/route";
import * as surveys from "./route";

/** Four responses; each row is one response's values by type (undefined: not answered). */
const RESPONSES: Record<string, unknown>[] = [
  {
    text: "first",
    number: 1,
    date: "2026-01-15",
    yes_no: true,
    single_choice: "Red",
    multiple_choice: ["Tea", "Coffee"],
    rating: 1,
  },
  {
    text: "second",
    number: 2,
    date: "2026-03-02T10:00:00Z",
    yes_no: true,
    single_choice: "Red",
    multiple_choice: ["Coffee"],
    rating: 2,
  },
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

  const get = (query = "", token = t.adminToken, surveyId = id) =>
    call(results.GET, `/v2/surveys/${surveyId}/results${query}`, { token, admin: true, params: { id: surveyId } });
  const byType = (body: SurveyResults): Record<string, QuestionResult> =>
    Object.fromEntries(body.questions.map((question) => [question.type, question]));
  /** A question's summary read as the summary of its type (docs/api.md#survey-results). */
  const summaryAs = <S extends z.ZodType>(question: QuestionResult, schema: S): z.output<S> =>
    schema.parse(question.summary);

  beforeAll(async () => {
    [t, other] = await Promise.all([createTenant("Results"), createTenant("Results other")]);
    const made = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: {
        code: "results",
        name: "Results",
        version: 2,
        permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true }],
      },
    });
    id = success(made)._id;
    const put = await call(content.PUT, `/v2/surveys/${id}/content`, {
      method: "PUT",
      token: t.adminToken,
      admin: true,
      body: EVERY_TYPE_CONTENT,
      params: { id },
    });
    chats = success(put).chat!.map((chat) => chat._id);
    q = Object.fromEntries(
      success(put)
        .chat!.flatMap((chat) => chat.questions)
        .map((question) => [question.type, question._id]),
    );
    for (const [index, response] of RESPONSES.entries()) {
      const body = { answers: Object.entries(response).map(([type, value]) => ({ question: q[type], value })) };
      const answered = await call(answers.POST, `/v2/surveys/${id}/answers`, {
        token: t.memberToken,
        body,
        params: { id },
      });
      expect(answered.status, JSON.stringify(answered.body)).toBe(201);
      times.push(new Date(success(answered).answers[0].createdAt));
      // A few milliseconds between responses, so that windows can tell them apart.
      await new Promise((resolve) => setTimeout(resolve, 5 * (index + 1)));
    }
  });

  it("summarises every question by its type, zero counts included", async () => {
    const response = await get();
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const body = success(response);
    expect(body).toMatchObject({ responses: 4, answers: 22, from: null, to: null });
    expect(body.questions.map((question) => question.type)).toEqual([
      "text",
      "number",
      "date",
      "yes_no",
      "single_choice",
      "multiple_choice",
      "rating",
    ]);
    const r = byType(body);
    expect(r.single_choice).toEqual({
      _id: q.single_choice,
      chat: chats[1],
      text: "Pick one",
      type: "single_choice",
      removed: false,
      answered: 3,
      summary: {
        counts: [
          { option: "Red", count: 2 },
          { option: "Green", count: 0 },
          { option: "Blue", count: 1 },
        ],
      },
    });
    expect(summaryAs(r.multiple_choice, CountsSummary).counts).toEqual([
      { option: "Tea", count: 1 },
      { option: "Coffee", count: 2 },
      { option: "Water", count: 0 },
    ]);
    expect(r.multiple_choice.answered).toBe(2);
    expect(summaryAs(r.yes_no, CountsSummary).counts).toEqual([
      { option: "true", count: 2 },
      { option: "false", count: 1 },
    ]);
    expect(summaryAs(r.text, TextSummary).latest).toEqual(
      ["fourth", "third", "second", "first"].map((value, i) => ({ value, createdAt: times[3 - i].toISOString() })),
    );
  });

  it("number: min, max, mean, the median of an even count as the mean of the two middle values, ten bins", async () => {
    const summary = summaryAs(byType(success(await get())).number, NumberSummary);
    expect(summary).toMatchObject({ min: 1, max: 10, mean: 4, median: 2.5 });
    expect(summary.histogram).toHaveLength(10);
    expect(summary.histogram[0]).toEqual({ from: 1, to: 1.9, count: 1 });
    expect(summary.histogram[1]).toMatchObject({ count: 1 });
    expect(summary.histogram[2]).toMatchObject({ count: 1 });
    expect(summary.histogram[9]).toEqual({ from: expect.closeTo(9.1), to: 10, count: 1 });
    expect(summary.histogram.reduce((sum, bin) => sum + bin.count, 0)).toBe(4);
    // An odd count: the middle value.
    const three = byType(success(await get(`?to=${times[2].toISOString()}`))).number.summary;
    expect(three).toMatchObject({ min: 1, max: 3, mean: 2, median: 2 });
  });

  it("rating: five bins 1–5 with zero counts, the median read off the counts", async () => {
    const { summary } = byType(success(await get())).rating;
    expect(summary).toEqual({
      min: 1,
      max: 5,
      mean: 2.5,
      median: 2,
      histogram: [1, 2, 3, 4, 5].map((value) => ({
        from: value,
        to: value,
        count: { 1: 1, 2: 2, 3: 0, 4: 0, 5: 1 }[value],
      })),
    });
  });

  it("date: min, max and every month between them, empty months included", async () => {
    const { summary } = byType(success(await get())).date;
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
    const r = byType(success(response));
    expect(summaryAs(r.single_choice, CountsSummary).counts).toEqual([
      { option: "Red", count: 1 },
      { option: "Green", count: 0 },
      { option: "Blue", count: 1 },
    ]);
    expect(summaryAs(r.date, DateSummary).histogram).toEqual([
      { from: "2026-03-01T00:00:00.000Z", to: "2026-03-31T23:59:59.999Z", count: 1 },
    ]);
    const none = await get("?from=2030-01-01T00:00:00.000Z");
    expect(none.body).toMatchObject({ responses: 0, answers: 0 });
    expect(byType(success(none)).number.summary).toEqual({
      min: null,
      max: null,
      mean: null,
      median: null,
      histogram: [],
    });
    expect(summaryAs(byType(success(none)).rating, NumberSummary).histogram.every((bin) => bin.count === 0)).toBe(true);
    expect(summaryAs(byType(success(none)).text, TextSummary).latest).toEqual([]);
  });

  it("refuses bad parameters with 400", async () => {
    for (const query of ["?from=soon", "?to=2026-06-01", "?from=2026-06-02T00:00:00Z&to=2026-06-01T00:00:00Z"]) {
      const response = await get(query);
      expect(response.status, query).toBe(400);
      expect(failure(response).code).toBe("invalid_request");
    }
  });

  it("a removed question and a removed option stay listed while answers hold them", async () => {
    const made = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: {
        code: "removals",
        name: "Removals",
        version: 2,
        permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true }],
      },
    });
    const sid = success(made)._id;
    const put = (body: Record<string, unknown>) =>
      call(content.PUT, `/v2/surveys/${sid}/content`, {
        method: "PUT",
        token: t.adminToken,
        admin: true,
        body,
        params: { id: sid },
      });
    const first = success(
      await put({
        chat: [
          {
            name: "C",
            questions: [
              { text: "Colour", type: "single_choice", options: ["Red", "Green"] },
              { text: "Score", type: "number" },
              { text: "Unused", type: "text" },
            ],
          },
        ],
      }),
    );
    const [colour, score] = first.chat![0].questions;
    await call(answers.POST, `/v2/surveys/${sid}/answers`, {
      token: t.memberToken,
      body: {
        answers: [
          { question: colour._id, value: "Green" },
          { question: score._id, value: 7 },
        ],
      },
      params: { id: sid },
    });
    await put({
      chat: [
        {
          _id: first.chat![0]._id,
          name: "C",
          questions: [{ _id: colour._id, text: "Colour", type: "single_choice", options: ["Red", "Blue"] }],
        },
      ],
    });
    const body = success(await get("", t.adminToken, sid));
    expect(body.questions.map((question) => [question.text, question.removed])).toEqual([
      ["Colour", false],
      ["Score", true],
    ]);
    expect(summaryAs(body.questions[0], CountsSummary).counts).toEqual([
      { option: "Red", count: 0 },
      { option: "Blue", count: 0 },
      { option: "Green", count: 1 },
    ]);
    expect(body.questions[1].summary).toMatchObject({
      min: 7,
      max: 7,
      median: 7,
      histogram: [{ from: 7, to: 7, count: 1 }],
    });
  });

  it("whole months come from the tallies, partial months from the answers, and the two agree", async () => {
    const made = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: { code: "months", name: "Months", version: 2 },
    });
    const sid = success(made)._id;
    const put = await call(content.PUT, `/v2/surveys/${sid}/content`, {
      method: "PUT",
      token: t.adminToken,
      admin: true,
      body: {
        chat: [
          {
            name: "C",
            questions: [
              { text: "Score", type: "number" },
              { text: "Pick", type: "single_choice", options: ["A", "B"] },
            ],
          },
        ],
      },
      params: { id: sid },
    });
    const [score, pick] = success(put).chat![0].questions.map((question) => oid(question._id));
    const chat = oid(success(put).chat![0]._id);
    // One response a day from 2026-01-01 to 2026-03-31, written as an import would, then counted.
    const docs = Array.from({ length: 90 }, (_, day) => {
      const createdAt = new Date(Date.UTC(2026, 0, 1 + day, 12));
      const response = newId();
      const base = { company: oid(t.companyId), survey: oid(sid), chat, user: null, response, createdAt };
      return [
        newAnswerDoc({ ...base, question: score, value: day, position: 0 }),
        newAnswerDoc({ ...base, question: pick, value: day % 3 === 0 ? "A" : "B", position: 1 }),
      ];
    }).flat();
    await Answer.collection.insertMany(docs);
    const types = new Map(
      [score, pick].map((q, i) => [
        q.toHexString(),
        { _id: q, type: (i === 0 ? "number" : "single_choice") as "number" | "single_choice" },
      ]),
    );
    await recountMonths(oid(sid), oid(t.companyId), types);

    const all = success(await get("", t.adminToken, sid));
    expect(all).toMatchObject({ responses: 90, answers: 180 });
    expect(all.questions[0].summary).toMatchObject({ min: 0, max: 89, mean: 44.5, median: 44.5 });
    expect(summaryAs(all.questions[1], CountsSummary).counts).toEqual([
      { option: "A", count: 30 },
      { option: "B", count: 60 },
    ]);

    // 2026-01-20 … 2026-03-10: a partial January, all of February, a partial March.
    const from = "2026-01-20T00:00:00.000Z";
    const to = "2026-03-10T23:59:59.999Z";
    const inWindow = Array.from({ length: 90 }, (_, day) => day).filter((day) => day >= 19 && day <= 68);
    const windowed = success(await get(`?from=${from}&to=${to}`, t.adminToken, sid));
    expect(windowed).toMatchObject({ responses: inWindow.length, answers: 2 * inWindow.length, from, to });
    expect(windowed.questions[0].summary).toMatchObject({ min: 19, max: 68, mean: 43.5, median: 43.5 });
    expect(summaryAs(windowed.questions[1], CountsSummary).counts).toEqual([
      { option: "A", count: inWindow.filter((day) => day % 3 === 0).length },
      { option: "B", count: inWindow.filter((day) => day % 3 !== 0).length },
    ]);
    // Exactly February: the stored tallies of one month.
    const february = success(
      await get("?from=2026-02-01T00:00:00.000Z&to=2026-02-28T23:59:59.999Z", t.adminToken, sid),
    );
    expect(february).toMatchObject({ responses: 28, answers: 56 });
    expect(february.questions[0].summary).toMatchObject({ min: 31, max: 58, median: 44.5 });
  });

  it("a response stored but never added to the tallies (its process died) is counted after a repair", async () => {
    const before = success(await get());
    const createdAt = new Date(Date.now() - 120_000);
    const response = newId();
    const base = { company: oid(t.companyId), survey: oid(id), chat: oid(chats[1]), user: null, response, createdAt };
    const first = newAnswerDoc({ ...base, question: oid(q.rating), value: 5, position: 0 });
    await Answer.collection.insertMany([
      { ...first, untallied: true },
      newAnswerDoc({ ...base, question: oid(q.single_choice), value: "Green", position: 1 }),
    ]);
    const after = success(await get());
    expect(after.responses).toBe(before.responses + 1);
    expect(summaryAs(byType(after).rating, NumberSummary).histogram[4].count).toBe(
      summaryAs(byType(before).rating, NumberSummary).histogram[4].count + 1,
    );
    expect(summaryAs(byType(after).single_choice, CountsSummary).counts[1]).toEqual({ option: "Green", count: 1 });
    expect(await Answer.collection.countDocuments({ survey: oid(id), untallied: true })).toBe(0);
    // Counted once: a second read changes nothing.
    expect((await get()).body).toEqual(after);
    await Answer.collection.deleteMany({ response });
    await recountMonths(
      oid(id),
      oid(t.companyId),
      new Map(Object.entries(q).map(([type, question]) => [question, { _id: oid(question), type: type as "text" }])),
    );
    expect((await get()).body).toEqual(before);
  });

  it("concurrent responses are each counted once", async () => {
    const made = await call(surveys.POST, "/v2/surveys", {
      token: t.adminToken,
      admin: true,
      body: {
        code: "concurrent",
        name: "Concurrent",
        version: 2,
        permissionsV2: [{ accessRole: t.memberRoleId, canAnswer: true }],
      },
    });
    const sid = success(made)._id;
    const put = await call(content.PUT, `/v2/surveys/${sid}/content`, {
      method: "PUT",
      token: t.adminToken,
      admin: true,
      body: {
        chat: [
          {
            name: "C",
            questions: [
              { text: "Rate", type: "rating" },
              { text: "Yes?", type: "yes_no" },
            ],
          },
        ],
      },
      params: { id: sid },
    });
    const [rate, yes] = success(put).chat![0].questions.map((question) => question._id);
    const posted = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(answers.POST, `/v2/surveys/${sid}/answers`, {
          token: t.memberToken,
          body: {
            answers: [
              { question: rate, value: (i % 5) + 1 },
              { question: yes, value: i % 2 === 0 },
            ],
          },
          params: { id: sid },
        }),
      ),
    );
    expect(posted.map((response) => response.status)).toEqual(Array(20).fill(201));
    const body = success(await get("", t.adminToken, sid));
    expect(body).toMatchObject({ responses: 20, answers: 40 });
    expect(summaryAs(body.questions[0], NumberSummary).histogram.map((bin) => bin.count)).toEqual([4, 4, 4, 4, 4]);
    expect(summaryAs(body.questions[1], CountsSummary).counts).toEqual([
      { option: "true", count: 10 },
      { option: "false", count: 10 },
    ]);
  });

  it("nothing of another company: its admin gets 404, and its answers never count here", async () => {
    expect((await get("", other.adminToken)).status).toBe(404);
    const theirs = await call(surveys.POST, "/v2/surveys", {
      token: other.adminToken,
      admin: true,
      body: { code: "results", name: "Theirs", version: 1, permissions: [other.memberRoleId] },
    });
    const theirId = success(theirs)._id;
    // Their answers name our question: still not counted in our results.
    await Answer.collection.insertOne({
      uuid: oid(theirId),
      company: oid(other.companyId),
      survey: oid(id),
      chat: oid(chats[0]),
      question: oid(q.number),
      user: null,
      value: 1000,
      response: oid(theirId),
      position: 0,
      createdAt: new Date(),
      modifiedAt: new Date(),
    });
    const body = success(await get());
    expect(body.responses).toBe(4);
    expect(summaryAs(byType(body).number, NumberSummary).max).toBe(10);
  });
});
