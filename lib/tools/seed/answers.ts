/**
 * A survey with many answers, for `npm run seed -- --answers N` and `npm run bench:results`
 * (docs/benchmarks.md): the survey `load_test` of the company, one question of each type, and
 * answers added in bulk until it holds N, with their tallies. Each response answers every
 * question; responses are spread over the last year. Running it again with the same N adds
 * nothing. (A seed stopped half-way may leave its last batch out of the tallies.)
 */
import { newId, oid, stableId, type ObjectId } from "@/lib/kernel/ids";
import {
  addTallies,
  countAnswers,
  insertAnswers,
  newAnswerDoc,
  type StoredAnswer,
} from "@/lib/resources/answers/repository";
import { talliesOf } from "@/lib/resources/answers/tallies";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import { insertOnce, newDoc, newRevisionDoc, syncContent, type StoredChat } from "@/lib/resources/surveys/repository";
import { companyUserIds } from "@/lib/resources/users/repository";
import { QUESTIONS, sampleValue } from "./surveys";

export const LOAD_SURVEY_CODE = "load_test";
/** Answers written per bulk insert. */
const BATCH = 10_000;
const YEAR_MS = 365 * 24 * 3_600_000;

export interface SeedAnswersOptions {
  companyId: string;
  answers: number;
  onStart?: (total: number) => void;
  onProgress?: (done: number) => void;
}

export async function seedAnswers(options: SeedAnswersOptions): Promise<{ surveyId: string; created: number }> {
  const company = oid(options.companyId);
  const id = (key: string) => stableId(`seed:${company.toHexString()}:load:${key}`);
  const surveyId = id("survey");
  const at = new Date();
  const content: StoredChat[] = [
    {
      _id: id("chat"),
      name: "Everything",
      order: 1,
      questions: QUESTIONS.map((spec, q) => ({
        _id: id(`question:${q}`),
        text: spec.text,
        type: spec.type,
        options: spec.options ?? [],
        order: q + 1,
      })),
    },
  ];
  const survey = newDoc({
    _id: surveyId,
    code: LOAD_SURVEY_CODE,
    name: "Load test",
    version: 2,
    company,
    createdAt: at,
    chat: content,
  });
  if ((await insertOnce("surveys", [survey])) === 1) {
    await syncContent(surveyId, company, content, at);
    await insertOnce("revisions", [newRevisionDoc(survey)]);
  }

  const questions = content[0].questions;
  const typeOf = (question: ObjectId) =>
    questions.find((entry) => entry._id.equals(question))?.type as QuestionType | undefined;
  const users = await companyUserIds(company, 300);
  const have = await countAnswers({ survey: surveyId, company });
  const total = Math.max(0, options.answers - have);
  options.onStart?.(total);
  const now = Date.now();
  let done = 0;
  let response: ObjectId = newId();
  while (done < total) {
    const batch: StoredAnswer[] = [];
    for (let k = 0; k < BATCH && done + batch.length < total; k++) {
      const n = have + done + batch.length;
      const position = n % questions.length;
      if (position === 0) response = newId();
      const question = questions[position];
      batch.push(
        newAnswerDoc({
          company,
          survey: surveyId,
          chat: content[0]._id,
          question: question._id,
          user: users.length ? users[Math.floor(n / questions.length) % users.length] : null,
          value: sampleValue(QUESTIONS[position], Math.floor(n / questions.length)),
          response,
          position,
          // Responses spread over the last year, so that windows and month histograms have something to show.
          createdAt: new Date(now - YEAR_MS + ((Math.floor(n / questions.length) * 7919) % YEAR_MS)),
        }),
      );
    }
    await insertAnswers(batch);
    await addTallies(surveyId, company, talliesOf(batch, typeOf));
    done += batch.length;
    options.onProgress?.(done);
  }
  return { surveyId: surveyId.toHexString(), created: total };
}
