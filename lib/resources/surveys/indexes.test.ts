/**
 * Every query of the surveys API walks an index, and reads about as many surveys as it answers:
 * checked with `explain` (executionStats) on a company of 300 surveys.
 */
import { oid } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import { Answer } from "@/lib/resources/answers/repository";
import { CreateSurveyBody } from "@/lib/resources/surveys/contract";
import { Survey } from "@/lib/resources/surveys/repository";
import { searchFilter } from "@/lib/resources/surveys/search";
import { createSurvey } from "@/lib/resources/surveys/service";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { createTenant, type Tenant } from "@/lib/tools/testing/http";
import { addSurveyParts } from "@/lib/tools/testing/surveys";
import type { Document } from "mongodb";
import { beforeAll, describe, expect, it } from "vitest";
import { Question, SurveyChat, SurveyRevision } from "./parts";

interface Explained {
  queryPlanner: { winningPlan: Document };
  executionStats: { nReturned: number; totalDocsExamined: number };
}

const stageOf = (plan: Document): Document => (plan.inputStage ? stageOf(plan.inputStage as Document) : plan);
/** Every stage of a plan, outermost first. */
const stagesOf = (plan: Document): string[] => [
  plan.stage as string,
  ...(plan.inputStage ? stagesOf(plan.inputStage as Document) : []),
  ...((plan.inputStages as Document[] | undefined) ?? []).flatMap(stagesOf),
];

describe("indexes of the surveys API", () => {
  useTestDatabase();
  let t: Tenant;
  let company: ReturnType<typeof oid>;
  let someSurvey: string;

  beforeAll(async () => {
    t = await createTenant("Survey indexes");
    company = oid(t.companyId);
    const auth = { userId: t.adminId, companyId: t.companyId, sessionId: "", accessRoles: [] };
    const topics = ["Onboarding", "Climate", "Exit", "Training", "Benefits", "Events"];
    for (let i = 0; i < 300; i += 30) {
      await Promise.all(
        Array.from({ length: 30 }, (_, k) =>
          createSurvey(
            auth,
            // The body as the route would pass it: the schema fills in every default.
            CreateSurveyBody.parse({
              code: `survey_${i + k}`,
              name: `${topics[(i + k) % topics.length]} ${i + k}`,
              version: 1,
              isActive: (i + k) % 10 !== 0,
            }),
            new Notes(),
          ),
        ),
      );
    }
    const first = await Survey.findOne({ company, code: "survey_7" }).lean();
    someSurvey = first!._id.toHexString();
    await addSurveyParts(t.companyId, someSurvey, t.memberId, [
      { name: "Only", order: 1, questions: [{ text: "Q", order: 1, answers: 3 }] },
    ]);
  });

  const explainFind = async (
    collection: { collection: { find: typeof Survey.collection.find } },
    filter: Document,
    options: Document = {},
  ) => (await collection.collection.find(filter, options).explain("executionStats")) as unknown as Explained;

  it("the default list reads one page of the newest-first index", async () => {
    const explained = await explainFind(
      Survey,
      { company, isActive: true },
      { sort: { modifiedAt: -1, _id: -1 }, limit: 10 },
    );
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { company: 1, isActive: 1, modifiedAt: 1, _id: 1 },
    });
    expect(explained.executionStats.totalDocsExamined).toBe(10);
  });

  it("isActive=all has an index that serves the order too", async () => {
    const explained = await explainFind(Survey, { company }, { sort: { modifiedAt: -1, _id: -1 }, limit: 10 });
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { company: 1, modifiedAt: 1, _id: 1 },
    });
    expect(explained.executionStats.totalDocsExamined).toBe(10);
  });

  it("a search reads one page however many surveys match", async () => {
    // "onboarding" matches 50 surveys by name; "survey_1" matches 111 by code.
    for (const query of ["onboarding", "Survey_1", "o"]) {
      const explained = await explainFind(
        Survey,
        { company, isActive: true, ...searchFilter(query) },
        { sort: { modifiedAt: -1, _id: -1 }, limit: 10 },
      );
      expect(stageOf(explained.queryPlanner.winningPlan), query).toMatchObject({
        stage: "IXSCAN",
        keyPattern: { company: 1, searchPrefixes: 1, isActive: 1, modifiedAt: 1, _id: 1 },
      });
      expect(explained.executionStats.nReturned, query).toBe(10);
      expect(explained.executionStats.totalDocsExamined, query).toBe(10);
    }
  });

  it("a search longer than the stored prefixes is narrowed by the index first", async () => {
    const long = "onboarding 1".padEnd(40, "x");
    const explained = await explainFind(
      Survey,
      { company, isActive: true, ...searchFilter(long) },
      { sort: { modifiedAt: -1, _id: -1 }, limit: 10 },
    );
    expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({
      stage: "IXSCAN",
      keyPattern: { company: 1, searchPrefixes: 1, isActive: 1, modifiedAt: 1, _id: 1 },
    });
    expect(explained.executionStats.totalDocsExamined).toBe(0);
  });

  // The orders by name and by code (docs/api.md#sorting), with isActive=true (the default) and all.
  const ORDERS: [string, Document, Document, Document][] = [
    ["name, active", { isActive: true }, { nameLower: 1, _id: 1 }, { company: 1, isActive: 1, nameLower: 1, _id: 1 }],
    ["name, all", {}, { nameLower: 1, _id: 1 }, { company: 1, nameLower: 1, _id: 1 }],
    ["code, active", { isActive: true }, { code: 1 }, { company: 1, isActive: 1, code: 1 }],
    ["code, all", {}, { code: 1 }, { company: 1, code: 1 }],
  ];
  for (const [name, filter, sort, keyPattern] of ORDERS) {
    for (const direction of [1, -1]) {
      it(`the order by ${name} (${direction}) reads one page of its index, without a SORT stage`, async () => {
        const directed = Object.fromEntries(Object.keys(sort).map((field) => [field, direction]));
        const explained = await explainFind(Survey, { company, ...filter }, { sort: directed, limit: 11 });
        expect(stagesOf(explained.queryPlanner.winningPlan)).not.toContain("SORT");
        expect(stageOf(explained.queryPlanner.winningPlan)).toMatchObject({ stage: "IXSCAN", keyPattern });
        expect(explained.executionStats.totalDocsExamined).toBe(11);
      });
    }
  }

  it("code uniqueness, answers by uuid, chats, questions and revisions use their indexes", async () => {
    const answer = await Answer.findOne({ survey: oid(someSurvey) }).lean();
    const cases: [{ collection: { find: typeof Survey.collection.find } }, Document, Document, Document][] = [
      [Survey, { company, code: "survey_7" }, {}, { company: 1, code: 1 }],
      [Answer, { uuid: { $in: [answer!.uuid] }, company }, {}, { uuid: 1, company: 1 }],
      [Answer, { survey: oid(someSurvey), company }, {}, { survey: 1, question: 1 }],
      [SurveyChat, { survey: oid(someSurvey), company }, { sort: { order: 1, _id: 1 } }, { survey: 1, order: 1 }],
      [Question, { survey: oid(someSurvey), company }, {}, { survey: 1, chat: 1, order: 1 }],
      [SurveyRevision, { survey: oid(someSurvey), company }, { sort: { __v: -1 }, limit: 10 }, { survey: 1, __v: 1 }],
    ];
    for (const [model, filter, options, keyPattern] of cases) {
      const explained = await explainFind(model, filter, options);
      expect(stageOf(explained.queryPlanner.winningPlan), JSON.stringify(keyPattern)).toMatchObject({
        stage: "IXSCAN",
        keyPattern,
      });
      expect(explained.executionStats.totalDocsExamined).toBe(explained.executionStats.nReturned);
    }
  });
});
