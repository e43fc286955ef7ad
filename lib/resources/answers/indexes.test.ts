/**
 * The answers list, one question's answers and the search for untallied responses each walk an
 * index of the answers collection and read about as many answers as they return (explain,
 * executionStats).
 */
import { newId, oid, type ObjectId } from "@/lib/kernel/ids";
import { Answer } from "@/lib/resources/answers/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant } from "@/lib/tools/testing/http";
import type { Document } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import { newAnswerDoc } from "./repository";

interface Explained {
  queryPlanner: { winningPlan: Document };
  executionStats: { nReturned: number; totalDocsExamined: number };
}

const stageOf = (plan: Document): Document => (plan.inputStage ? stageOf(plan.inputStage as Document) : plan);

describe("indexes of the answers API", () => {
  useTestDatabase();
  let company: ObjectId;
  const survey = newId();
  const questions = [newId(), newId(), newId()];

  beforeAll(async () => {
    const t = await createTenant("Answer indexes");
    company = oid(t.companyId);
    const start = Date.UTC(2026, 0, 1);
    const docs = Array.from({ length: 3000 }, (_, i) =>
      newAnswerDoc({
        company,
        survey,
        chat: newId(),
        question: questions[i % 3],
        user: null,
        value: i % 97,
        response: newId(),
        position: i % 3,
        createdAt: new Date(start + i * 60_000),
      }),
    );
    // Another survey's answers, which no plan may wander into.
    const others = Array.from({ length: 1000 }, (_, i) =>
      newAnswerDoc({
        company,
        survey: newId(),
        chat: newId(),
        question: questions[0],
        user: null,
        value: i,
        response: null,
        position: 0,
        createdAt: new Date(start + i),
      }),
    );
    await Answer.collection.insertMany([...docs, ...others]);
    await Answer.syncIndexes();
  });

  const explain = async (filter: Document, options: Document) =>
    (await Answer.collection.find(filter, options).explain("executionStats")) as unknown as Explained;

  it("a page of the list reads one page of the newest-first index", async () => {
    const explained = await explain({ survey, company }, { sort: { createdAt: -1, _id: -1 }, limit: 21 });
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { survey: 1, createdAt: -1, _id: -1 },
    });
    expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(21);
  });

  it("one question's latest answers read the question's newest-first index", async () => {
    const explained = await explain(
      { survey, company, question: questions[1] },
      { sort: { createdAt: -1, _id: -1 }, limit: 5 },
    );
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { survey: 1, question: 1, createdAt: -1, _id: -1 },
    });
    expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(5);
  });

  it("looking for responses left out of the tallies reads only the marked answers", async () => {
    const explained = await explain({ untallied: true, survey }, { limit: 1000 });
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { untallied: 1, survey: 1 },
    });
    expect(explained.executionStats.totalDocsExamined).toBe(0);
  });
});
