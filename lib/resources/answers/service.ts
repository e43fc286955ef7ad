/**
 * Answers to a survey (docs/api.md#answers): recording one response of the caller, all or
 * nothing; the answers list, newest first by cursor; the same answers streamed as CSV.
 */
import type { ErrorDetail } from "@/lib/base/schemas/common";
import { ServiceError } from "@/lib/kernel/errors";
import type { ExportSource } from "@/lib/kernel/export/stream";
import { newId, oid } from "@/lib/kernel/ids";
import type { Notes } from "@/lib/kernel/notes";
import type { Principal } from "@/lib/kernel/principal";
import { requireScope } from "@/lib/kernel/scopes";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import { allChatsAndQuestions, liveQuestions } from "@/lib/resources/surveys/repository";
import { userDisplayNames } from "@/lib/resources/users/repository";
import { type AccessSurvey, checkMayRead, mayAnswer, surveyOf } from "./access";
import type {
  AnswerList,
  AnswerRecord,
  ExportAnswersQuery,
  ListAnswersQuery,
  PostAnswersBody,
  RecordedResponse,
} from "./contract";
import { decodeCursor, encodeCursor, listKey } from "./cursor";
import {
  addTallies,
  answerBatches,
  answerPage,
  answersMatching,
  insertResponse,
  markResponseTallied,
  newAnswerDoc,
  type StoredAnswer,
} from "./repository";
import { talliesOf } from "./tallies";
import { shownValue, valueSchema } from "./values";

export async function recordResponse(auth: Principal, id: string, body: PostAnswersBody): Promise<RecordedResponse> {
  requireScope(auth, "answers:write", "answering a survey");
  const survey = await surveyOf(auth, id);
  if (!mayAnswer(survey, auth)) {
    const rule = survey.version === 2 ? "a permissionsV2 entry with canAnswer: true" : "a role in permissions";
    throw new ServiceError("forbidden", `Your access roles may not answer this survey: it needs ${rule}.`);
  }
  if (!survey.isActive) throw new ServiceError("conflict", "The survey is inactive: it takes no answers.");

  const questions = new Map(
    (await liveQuestions(survey._id, survey.company)).map((question) => [question._id.toHexString(), question]),
  );
  const details: ErrorDetail[] = [];
  const values = body.answers.map((answer, index) => {
    const question = questions.get(answer.question);
    if (!question) {
      details.push({
        path: `answers.${index}.question`,
        message: `${answer.question} names no question of this survey`,
      });
      return undefined;
    }
    const result = valueSchema(question.type as QuestionType, question.options ?? []).safeParse(answer.value);
    if (!result.success)
      details.push({ path: `answers.${index}.value`, message: result.error.issues[0]?.message ?? "is not valid" });
    return result.data;
  });
  if (details.length > 0)
    throw new ServiceError("invalid_request", "The request is not valid; nothing was stored.", details);

  const now = new Date();
  const response = newId();
  // An API key is no user: its answers name none (docs/security.md#scopes).
  const user = auth.apiKey ? null : oid(auth.userId);
  const docs: StoredAnswer[] = body.answers.map((answer, position) => {
    const question = questions.get(answer.question)!;
    return newAnswerDoc({
      company: survey.company,
      survey: survey._id,
      chat: question.chat,
      question: question._id,
      user,
      value: values[position],
      response,
      position,
      createdAt: now,
    });
  });
  // The first answer is marked until the response is in the tallies: a crash in between is repaired by a recount.
  docs[0].untallied = true;
  await insertResponse(docs);
  await addTallies(
    survey._id,
    survey.company,
    talliesOf(docs, (question) => questions.get(question.toHexString())?.type as QuestionType | undefined),
  );
  await markResponseTallied(docs[0]._id);
  return {
    responseId: response.toHexString(),
    answers: docs.map((doc) => ({
      uuid: doc.uuid.toHexString(),
      question: doc.question.toHexString(),
      value: shownValue(doc.value)!,
      createdAt: now.toISOString(),
    })),
  };
}

type Filters = Omit<ListAnswersQuery, "cursor" | "limit">;

/** The answers of the survey the filters match, within the company. */
function answerFilter(survey: AccessSurvey, filters: Filters, types: Map<string, QuestionType>) {
  // Only text answers are searched; the query is matched literally.
  const textQuestions = [...types].filter(([, type]) => type === "text").map(([question]) => oid(question));
  const inText = filters.question
    ? textQuestions.filter((question) => question.equals(filters.question!))
    : textQuestions;
  return answersMatching(survey._id, survey.company, {
    question: filters.question,
    from: filters.from,
    to: filters.to,
    search: filters.search,
    textQuestions: inText,
  });
}

/** Every question of the survey, removed ones too: an answer's chat and type. */
async function questionTypes(survey: AccessSurvey): Promise<Map<string, QuestionType>> {
  const { questions } = await allChatsAndQuestions(survey._id, survey.company);
  return new Map(questions.map((question) => [question._id.toHexString(), question.type as QuestionType]));
}

/** A blank `search` is no search, as in the users and surveys lists: a debug warning says it was ignored. */
function withoutBlankSearch<Q extends { search?: string }>(query: Q, notes?: Notes): Q {
  if (query.search !== "") return query;
  notes?.warning("empty_search", "The search is empty and was ignored.", "search");
  return { ...query, search: undefined };
}

export async function listAnswers(
  auth: Principal,
  id: string,
  query: ListAnswersQuery,
  adminHeader: string | null,
  notes?: Notes,
): Promise<AnswerList> {
  const survey = await surveyOf(auth, id);
  await checkMayRead(survey, auth, adminHeader);
  const { cursor, limit, ...filters } = withoutBlankSearch(query, notes);
  const key = listKey(id, { ...filters, from: filters.from?.toISOString(), to: filters.to?.toISOString() });
  const after = cursor ? await decodeCursor(key, cursor) : undefined;
  const types = await questionTypes(survey);
  // One more than the page: whether a next page exists, without counting.
  const docs = await answerPage(answerFilter(survey, filters, types), after, limit + 1);
  const more = docs.length > limit;
  const shown = docs.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    data: {
      answers: await toAnswerRecords(shown, survey, types),
      limit,
      next: more && last ? await encodeCursor(key, last) : null,
    },
  };
}

async function toAnswerRecords(
  docs: StoredAnswer[],
  survey: AccessSurvey,
  types: Map<string, QuestionType>,
): Promise<AnswerRecord[]> {
  const userIds = [
    ...new Map(docs.filter((doc) => doc.user).map((doc) => [doc.user!.toHexString(), doc.user!])).values(),
  ];
  const names = await userDisplayNames(survey.company, userIds);
  return docs.map((doc) => {
    const userId = doc.user?.toHexString();
    const name = userId ? names.get(userId) : undefined;
    return {
      uuid: doc.uuid.toHexString(),
      responseId: doc.response ? doc.response.toHexString() : null,
      chat: doc.chat.toHexString(),
      question: doc.question.toHexString(),
      type: types.get(doc.question.toHexString()) ?? "text",
      value: shownValue(doc.value),
      createdAt: doc.createdAt.toISOString(),
      user: userId && name !== undefined ? { _id: userId, displayName: name } : null,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// CSV

/** Answers read from the database per batch of the export: the memory the export holds at most. */
const CSV_BATCH = 500;
const CSV_COLUMNS = [
  "uuid",
  "responseId",
  "createdAt",
  "chat",
  "question",
  "questionText",
  "type",
  "value",
  "userId",
  "userName",
];

const csvValue = (value: AnswerRecord["value"]): string =>
  Array.isArray(value) ? value.join("; ") : value === null ? "" : String(value);

/** A cell a spreadsheet would run as a formula starts with a quote (docs/security.md#csv-exports). */
const safeCell = (cell: string): string => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);

/**
 * The answers the filters match, newest first, for a CSV stream (lib/kernel/export/stream.ts): read
 * batch by batch as the client takes the body, so neither the whole set nor the whole file is
 * ever in memory.
 */
export async function exportAnswers(
  auth: Principal,
  id: string,
  query: ExportAnswersQuery,
  adminHeader: string | null,
): Promise<ExportSource<StoredAnswer>> {
  const survey = await surveyOf(auth, id);
  await checkMayRead(survey, auth, adminHeader);
  const { questions } = await allChatsAndQuestions(survey._id, survey.company);
  const types = new Map(questions.map((question) => [question._id.toHexString(), question.type as QuestionType]));
  const texts = new Map(questions.map((question) => [question._id.toHexString(), question.text]));
  return {
    name: "answers",
    fileName: `survey-${id}-answers.csv`,
    batches: answerBatches(answerFilter(survey, withoutBlankSearch(query), types), CSV_BATCH),
    columns: CSV_COLUMNS,
    rows: async (batch) =>
      (await toAnswerRecords(batch, survey, types)).map((record) => [
        record.uuid,
        record.responseId ?? "",
        record.createdAt,
        record.chat,
        record.question,
        texts.get(record.question) ?? "",
        record.type,
        csvValue(record.value),
        record.user?._id ?? "",
        record.user?.displayName ?? "",
      ]),
    records: (batch) => batch,
    protect: safeCell,
  };
}
