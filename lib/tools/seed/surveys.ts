/**
 * Demo surveys for `npm run seed` (docs/api.md#command-line-tools): surveys of both permission models, each with
 * chats, questions and answers from the company's users, so `populate` and `answer` show real
 * data. Ids derive from names and every write is an insert-only upsert: running it again changes
 * nothing.
 */
import { isBulkOfDuplicates } from "@/lib/kernel/errors";
import { oid, stableId, type ObjectId } from "@/lib/kernel/ids";
import { newAnswerDoc } from "@/lib/resources/answers/repository";
import { recountMonths, type QuestionTypes } from "@/lib/resources/answers/tallies";
import { idsByName } from "@/lib/resources/reference/repository";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import {
  existingSurveyIds,
  insertOnce,
  newChatDoc,
  newDoc,
  newQuestionDoc,
  newRevisionDoc,
  type LeanSurvey,
  type RevisionDoc,
  type StoredChat,
} from "@/lib/resources/surveys/repository";
import { companyUserIds } from "@/lib/resources/users/repository";
import type { Document } from "mongodb";

const TOPICS = [
  ["onboarding", "Onboarding experience"],
  ["work_climate", "Work climate"],
  ["exit_interview", "Exit interview"],
  ["training_feedback", "Training feedback"],
  ["customer_satisfaction", "Customer satisfaction"],
  ["remote_work", "Remote work"],
  ["benefits", "Benefits and perks"],
  ["manager_review", "Manager review"],
  ["event_feedback", "Event feedback"],
  ["it_support", "IT support"],
  ["canteen", "Canteen menu"],
  ["wellbeing", "Wellbeing check-in"],
] as const;

export const QUESTIONS: { text: string; type: QuestionType; options?: string[] }[] = [
  { text: "How would you rate it overall?", type: "rating" },
  { text: "Would you recommend it to a colleague?", type: "yes_no" },
  { text: "Which team are you in?", type: "single_choice", options: ["Engineering", "Sales", "Support", "Operations"] },
  { text: "What could we improve?", type: "text" },
  {
    text: "Which topics interest you?",
    type: "multiple_choice",
    options: ["Tools", "Processes", "People", "Training"],
  },
  { text: "How many hours a week does it take?", type: "number" },
  { text: "When did you start?", type: "date" },
];

export interface SeedSurveysOptions {
  companyId: string;
  /** Default: two per topic, one of each version. */
  surveys?: number;
}

export interface SeedSurveysResult {
  created: { surveys: number; chats: number; questions: number; answers: number };
}

export async function seedSurveys(options: SeedSurveysOptions): Promise<SeedSurveysResult> {
  const company = oid(options.companyId);
  const count = options.surveys ?? TOPICS.length * 2;
  const id = (kind: string, key: string | number) => stableId(`seed:${company.toHexString()}:${kind}:${key}`);
  const base = new Date();

  const roles = await idsByName("accessRoles", company, ["Admin", "Member"]);
  const member = roles.get("Member");
  const admin = roles.get("Admin");
  const respondents = await companyUserIds(company, 300);

  const surveys: LeanSurvey[] = [];
  const revisions: RevisionDoc[] = [];
  const chats: Document[] = [];
  const questions: Document[] = [];
  const answers: Document[] = [];
  const insert = <T>(list: T[], doc: T) => list.push(doc);

  for (let i = 0; i < count; i++) {
    const [topic, title] = TOPICS[i % TOPICS.length];
    const round = Math.floor(i / TOPICS.length);
    const version = i % 2 === 0 ? 1 : 2;
    const surveyId = id("survey", i);
    // Spread over the last weeks, so the list has an order to show.
    const at = new Date(base.getTime() - (count - i) * 3_600_000);
    const granted = [member, ...(i % 3 === 0 ? [admin] : [])].filter((role): role is ObjectId => Boolean(role));
    const code = round === 0 ? topic : `${topic}_${round + 1}`;
    const name = round === 0 ? title : `${title} ${round + 1}`;
    const survey = newDoc({
      _id: surveyId,
      code,
      name,
      version,
      company,
      isActive: i % 7 !== 6,
      isSystemModel: i === 0,
      permissions: version === 1 ? granted : [],
      group: version === 1 && i % 4 === 0 ? "People" : null,
      groupPermissions: version === 1 && i % 4 === 0 && admin ? [admin] : [],
      permissionsV2:
        version === 2 ? granted.map((accessRole, k) => ({ accessRole, canAnswer: true, canViewAnswers: k > 0 })) : [],
      groupPermissionsV2: version === 2 && i % 4 === 1 && admin ? [{ group: "People", accessRoles: [admin] }] : [],
      onlySubSurvey: version === 2 && i % 5 === 0,
      createdAt: at,
    });
    insert(surveys, survey);
    const content: StoredChat[] = [];

    const chatCount = 1 + (i % 3);
    for (let c = 0; c < chatCount; c++) {
      const chatId = id("survey-chat", `${i}:${c}`);
      insert(
        chats,
        newChatDoc({ _id: chatId, survey: surveyId, company, name: `Part ${c + 1}`, order: c + 1, createdAt: at }),
      );
      const chatContent: StoredChat = { _id: chatId, name: `Part ${c + 1}`, order: c + 1, questions: [] };
      content.push(chatContent);
      const questionCount = 2 + ((i + c) % 3);
      for (let q = 0; q < questionCount; q++) {
        const spec = QUESTIONS[(i + c * 3 + q) % QUESTIONS.length];
        const questionId = id("question", `${i}:${c}:${q}`);
        insert(
          questions,
          newQuestionDoc({
            _id: questionId,
            chat: chatId,
            survey: surveyId,
            company,
            text: spec.text,
            type: spec.type,
            options: spec.options ?? [],
            order: q + 1,
            createdAt: at,
          }),
        );
        chatContent.questions.push({
          _id: questionId,
          text: spec.text,
          type: spec.type,
          options: spec.options ?? [],
          order: q + 1,
        });
        // About one respondent in six answers each question of the survey.
        respondents.forEach((user, u) => {
          if ((u + i) % 6 !== 0) return;
          const key = `${i}:${c}:${q}:${u}`;
          insert(
            answers,
            newAnswerDoc({
              _id: id("answer", key),
              uuid: id("answer-uuid", key),
              company,
              survey: surveyId,
              chat: chatId,
              question: questionId,
              user,
              value: sampleValue(spec, u),
              // A respondent's answers to one survey are one response, counted by its first answer.
              response: id("response", `${i}:${u}`),
              position: c * QUESTIONS.length + q,
              createdAt: at,
            }),
          );
        });
      }
    }
    // The survey holds its content, so its first revision shows it (docs/api.md#survey-content).
    survey.chat = content;
    insert(revisions, newRevisionDoc(survey, id("survey-revision", i)));
  }

  const write = async (kind: Parameters<typeof insertOnce>[0], docs: Document[]) => {
    try {
      return await insertOnce(kind, docs);
    } catch (error) {
      // A survey code taken by a survey someone else made: that demo survey is skipped.
      if (!isBulkOfDuplicates(error)) throw error;
      return (error as { result?: { upsertedCount?: number } }).result?.upsertedCount ?? 0;
    }
  };
  const createdSurveys = await write("surveys", surveys);
  // The parts of a demo survey that could not be written are left out too.
  const present = await existingSurveyIds(surveys.map((doc) => doc._id));
  const ofPresent = (docs: Document[]) => docs.filter((doc) => present.has((doc.survey as ObjectId).toHexString()));
  const created = {
    surveys: createdSurveys,
    chats: await write("chats", ofPresent(chats)),
    questions: await write("questions", ofPresent(questions)),
    answers: await write("answers", ofPresent(answers)),
  };
  await write("revisions", ofPresent(revisions));
  // The results read tallies of the answers: counted again for every demo survey (idempotent).
  for (const survey of surveys.filter((doc) => present.has(doc._id.toHexString()))) {
    const types: QuestionTypes = new Map(
      ofPresent(questions)
        .filter((question) => (question.survey as ObjectId).equals(survey._id))
        .map((question) => [
          (question._id as ObjectId).toHexString(),
          { _id: question._id as ObjectId, type: question.type as QuestionType },
        ]),
    );
    await recountMonths(survey._id, company, types);
  }
  return { created };
}

/** A plausible value for a question of `spec`, varied by `n`. */
export function sampleValue(spec: (typeof QUESTIONS)[number], n: number): unknown {
  switch (spec.type) {
    case "rating":
      return 1 + (n % 5);
    case "yes_no":
      return n % 3 !== 0;
    case "single_choice":
      return spec.options?.[n % spec.options.length] ?? null;
    case "multiple_choice":
      return spec.options?.filter((_, k) => (n + k) % 2 === 0) ?? [];
    case "number":
      return n % 40;
    case "date":
      return new Date(Date.UTC(2020 + (n % 6), n % 12, 1 + (n % 28)));
    default:
      return ["More coffee, please.", "Shorter meetings.", "All good!", "Clearer goals."][n % 4];
  }
}
