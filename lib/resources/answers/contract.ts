/**
 * Answers to a survey and its results: recording one response, listing the answers (also as
 * CSV), and the per-question summaries (docs/api.md#answers, docs/api.md#results).
 */
import { isoDateTime, objectId, queryDateTime, queryInt, singleLineText } from "@/lib/base/schemas/common";
import { type ComponentNames, operation } from "@/lib/base/schemas/operation";
import { QuestionType, SurveyIdParams } from "@/lib/resources/surveys/contract";
import { z } from "zod";

export const MAX_TEXT_ANSWER = 10_000;
/** Answers in one response: a survey holds at most 500 questions, each answered once. */
export const MAX_RESPONSE_ANSWERS = 500;
export const MIN_RATING = 1;
export const MAX_RATING = 5;
/** How many of a text question's answers the results show. */
export const LATEST_TEXT_ANSWERS = 5;
/** Bins of a number question's histogram. */
export const NUMBER_BINS = 10;

/** What an answer holds, by its question's type (a date leaves the service as an ISO date-time). */
export const AnswerValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export type AnswerValue = z.infer<typeof AnswerValue>;

// ---------------------------------------------------------------------------------------------
// Recording a response

export const PostAnswersBody = z
  .strictObject({
    answers: z
      .array(
        z.strictObject({
          question: objectId,
          /** Checked against the question's type by the service: the body alone cannot say which applies. */
          value: z.unknown().refine((value) => value !== undefined, { error: "is required" }),
        }),
      )
      .min(1, { error: "must hold at least one answer" })
      .max(MAX_RESPONSE_ANSWERS),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.answers.forEach((answer, index) => {
      if (seen.has(answer.question))
        ctx.addIssue({
          code: "custom",
          path: ["answers", index, "question"],
          message: `question ${answer.question} is answered twice`,
        });
      seen.add(answer.question);
    });
  });
export type PostAnswersBody = z.infer<typeof PostAnswersBody>;

export const RecordedAnswer = z.object({
  uuid: objectId,
  question: objectId,
  value: AnswerValue,
  createdAt: isoDateTime,
});
export type RecordedAnswer = z.infer<typeof RecordedAnswer>;

export const RecordedResponse = z.object({
  responseId: objectId,
  answers: z.array(RecordedAnswer),
});
export type RecordedResponse = z.infer<typeof RecordedResponse>;

// ---------------------------------------------------------------------------------------------
// Listing answers

export const AnswerRecord = z.object({
  uuid: objectId,
  responseId: objectId.nullable(),
  chat: objectId,
  question: objectId,
  type: QuestionType,
  value: AnswerValue.nullable(),
  createdAt: isoDateTime,
  /** The answering user; `null` when the answer names none or the user is gone. */
  user: z.object({ _id: objectId, displayName: z.string() }).nullable(),
});
export type AnswerRecord = z.infer<typeof AnswerRecord>;

export const AnswerList = z.object({
  data: z.object({
    answers: z.array(AnswerRecord),
    limit: z.number().int(),
    /** The cursor of the next page; `null` after the last one. */
    next: z.string().nullable(),
  }),
});
export type AnswerList = z.infer<typeof AnswerList>;

const MAX_CURSOR = 512;

/** `from` and `to` (both inclusive); `from` after `to` is refused. */
const window = {
  from: queryDateTime.optional(),
  to: queryDateTime.optional(),
};
const orderedWindow = (query: { from?: Date; to?: Date }, ctx: z.core.$RefinementCtx) => {
  if (query.from && query.to && query.from > query.to)
    ctx.addIssue({ code: "custom", path: ["from"], message: "must not be after to" });
};

/** The filters of the answers list and of the CSV export. */
const answerFilters = {
  question: objectId.optional(),
  /** Matched, case-insensitively and literally, inside text answers; blank is no search, as in the other lists. */
  search: singleLineText({ max: 200 }).optional(),
  ...window,
};

export const ListAnswersQuery = z
  .object({
    ...answerFilters,
    cursor: z.string().min(1).max(MAX_CURSOR, { error: "is not a cursor of this list" }).optional(),
    limit: queryInt(1, 100).default(20),
  })
  .superRefine(orderedWindow);
export type ListAnswersQuery = z.infer<typeof ListAnswersQuery>;

/** The CSV export takes the list's filters, without paging: it streams every match. */
export const ExportAnswersQuery = z.object(answerFilters).superRefine(orderedWindow);
export type ExportAnswersQuery = z.infer<typeof ExportAnswersQuery>;

// ---------------------------------------------------------------------------------------------
// Results

export const ResultsQuery = z.object({ ...window }).superRefine(orderedWindow);
export type ResultsQuery = z.infer<typeof ResultsQuery>;

const Bin = z.object({ from: z.number(), to: z.number(), count: z.number().int() });
const DateBin = z.object({ from: isoDateTime, to: isoDateTime, count: z.number().int() });

export const CountsSummary = z.object({ counts: z.array(z.object({ option: z.string(), count: z.number().int() })) });
export const NumberSummary = z.object({
  min: z.number().nullable(),
  max: z.number().nullable(),
  mean: z.number().nullable(),
  median: z.number().nullable(),
  histogram: z.array(Bin),
});
export const DateSummary = z.object({
  min: isoDateTime.nullable(),
  max: isoDateTime.nullable(),
  histogram: z.array(DateBin),
});
export const TextSummary = z.object({ latest: z.array(z.object({ value: z.string(), createdAt: isoDateTime })) });
export type CountsSummary = z.infer<typeof CountsSummary>;
export type NumberSummary = z.infer<typeof NumberSummary>;
export type DateSummary = z.infer<typeof DateSummary>;
export type TextSummary = z.infer<typeof TextSummary>;

export const QuestionResult = z.object({
  _id: objectId,
  /** The chat's `_id`. */
  chat: objectId,
  text: z.string(),
  type: QuestionType,
  /** Removed from the content; listed while answers hold it. */
  removed: z.boolean(),
  /** Answers to the question within the window. */
  answered: z.number().int(),
  summary: z.union([CountsSummary, NumberSummary, DateSummary, TextSummary]),
});
export type QuestionResult = z.infer<typeof QuestionResult>;

export const SurveyResults = z.object({
  /** Responses within the window. */
  responses: z.number().int(),
  /** Answers within the window. */
  answers: z.number().int(),
  from: isoDateTime.nullable(),
  to: isoDateTime.nullable(),
  questions: z.array(QuestionResult),
});
export type SurveyResults = z.infer<typeof SurveyResults>;

// ---------------------------------------------------------------------------------------------
// The operations

const windowParameters = {
  from: { description: "ISO date-time; answers from this instant on (inclusive)." },
  to: { description: "ISO date-time; answers up to this instant (inclusive)." },
};
const filterParameters = {
  question: { description: "Only the answers to this question." },
  search: {
    description:
      "Text answers that contain this text (case-insensitive, literal, trimmed). Empty or blank is no search, as in the users and surveys lists.",
  },
  ...windowParameters,
};

export const answer = operation({
  scope: "answers:write",
  method: "post",
  path: "/v2/surveys/{id}/answers",
  params: SurveyIdParams,
  body: PostAnswersBody,
  doc: {
    tag: "Answers",
    summary: "Answer a survey",
    description:
      "Records one response of the caller, all or nothing. Allowed when the caller's access roles reach the survey: version 2, a `permissionsV2` entry with `canAnswer: true`; version 1, a role in `permissions` (else `403 forbidden`). An API key (scope `answers:write`) holds no role: it answers for its company any survey some role may answer, and its answers name no user. An inactive survey is `409 conflict`. Each `value` must suit its question's type (`text` a string of at most 10,000 characters, `number` a finite number, `date` an ISO date or date-time, `yes_no` a boolean, `single_choice` one of `options`, `multiple_choice` a non-empty array of distinct `options`, `rating` an integer 1–5); a bad one is `400 invalid_request` naming `answers.N.value` and nothing is stored. Each `uuid` works with `GET /v2/surveys?answer=`.",
    status: 201,
    response: RecordedResponse,
    errors: ["forbidden", "conflict"],
  },
});

export const list = operation({
  scope: "answers:read",
  method: "get",
  path: "/v2/surveys/{id}/answers",
  params: SurveyIdParams,
  query: ListAnswersQuery,
  doc: {
    tag: "Answers",
    summary: "List a survey's answers",
    description:
      'Newest first, with the answering user\'s `_id` and display name, paged by cursor (`next`, and a `Link: rel="next"` header). For admins (`Admin: true`), for API keys with `answers:read` sending `Admin: true`, and for users whose access roles have `canViewAnswers: true` on a version 2 survey; others get `403 forbidden`.',
    status: 200,
    response: AnswerList,
    errors: ["forbidden"],
    adminOptional: true,
    parameters: {
      ...filterParameters,
      cursor: { description: "The `next` of the previous page; a cursor of another list, or altered, is `400`." },
      limit: { description: "Answers per page." },
    },
  },
});

export const exportCsv = operation({
  scope: "answers:read",
  method: "get",
  path: "/v2/surveys/{id}/answers.csv",
  params: SurveyIdParams,
  query: ExportAnswersQuery,
  doc: {
    tag: "Answers",
    summary: "Export a survey's answers as CSV",
    description:
      "Every answer the list's filters match, newest first, streamed as `text/csv` (UTF-8, a header row, RFC 4180 quoting): `uuid`, `responseId`, `createdAt`, `chat`, `question`, `questionText`, `type`, `value` (a multiple choice as its options joined by `; `), `userId`, `userName`. Who may read it as for the list.",
    status: 200,
    csv: true,
    errors: ["forbidden"],
    adminOptional: true,
    parameters: filterParameters,
  },
});

export const results = operation({
  scope: "answers:read",
  method: "get",
  path: "/v2/surveys/{id}/results",
  params: SurveyIdParams,
  query: ResultsQuery,
  doc: {
    tag: "Answers",
    summary: "A survey's results",
    description:
      "Per question, a summary computed by the database: for the choice types and `yes_no` the count of every option (zero counts included); for `number` and `rating` min, max, mean, median and a histogram; for `date` min, max and a histogram by month; for `text` the latest 5 answers. Removed questions that hold answers are listed with `removed: true`. Who may read it as for the list.",
    status: 200,
    response: SurveyResults,
    errors: ["forbidden"],
    adminOptional: true,
    parameters: windowParameters,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { answers: { RecordedResponse, AnswerList, SurveyResults } };
