/**
 * The answers and their tallies (./tallies.ts): the models, the only code that writes them, and
 * every read of them beyond a survey's answer counts and `answer=` (lib/resources/surveys/repository.ts).
 * One way to the database: the driver, typed by {@link StoredAnswer} and {@link StoredTally};
 * pages with the one-command reads of lib/kernel/models/read.ts, exports with a driver cursor, results
 * with aggregation pipelines that run in the database.
 */
import { isBulkOfDuplicates } from "@/lib/kernel/errors";
import { newId, oid, type ObjectId } from "@/lib/kernel/ids";
import { defineModel, driverCollection, ObjectId as ObjectIdType, schemaOptions } from "@/lib/kernel/models/define";
import { aggregateDocs, findDocs, type ReadOptions } from "@/lib/kernel/models/read";
import { escapeRegExp } from "@/lib/kernel/text";
import type { AnyBulkWriteOperation, Document, Filter, FindCursor } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { createHash } from "node:crypto";

/** A user's answer to one question; identified to clients by `uuid` (docs/api.md#records-behind-a-survey). */
const answerSchema = new Schema(
  {
    uuid: { type: ObjectIdType, required: true },
    company: { type: ObjectIdType, required: true },
    survey: { type: ObjectIdType, required: true },
    chat: { type: ObjectIdType, required: true },
    question: { type: ObjectIdType, required: true },
    user: { type: ObjectIdType, default: null },
    /** A `date` answer is stored as a Date, so the database can order and bucket it. */
    value: { type: Schema.Types.Mixed, default: null },
    /** The response (one POST) the answer belongs to, and its place in it: 0 counts the response. */
    response: { type: ObjectIdType, default: null },
    position: { type: Number, default: 0 },
    /** Set on a response's first answer until the response is in the tallies (./tallies.ts). */
    untallied: { type: Boolean, default: undefined },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "answers" },
);
// `GET /v2/surveys?answer=<uuid>`: the answers of those uuids, within the company.
answerSchema.index({ uuid: 1, company: 1 }, { unique: true });
// `populate`: the answer count of each question of a survey.
answerSchema.index({ survey: 1, question: 1 });
// The answers list (newest first, by cursor) and the results' counts within a date window.
answerSchema.index({ survey: 1, createdAt: -1, _id: -1 });
// One question's answers newest first: the list by question and the latest text answers.
answerSchema.index({ survey: 1, question: 1, createdAt: -1, _id: -1 });
// Responses within a window's partial months: their first answers.
answerSchema.index({ survey: 1, position: 1, createdAt: 1 });
// Responses whose process died before they were added to the tallies (normally none): the
// marked answers lead, so finding them reads only them (a partial index would be smaller, but
// the embedded database plans with full indexes only).
answerSchema.index({ untallied: 1, survey: 1 });

export const Answer = defineModel("Answer", answerSchema);

export type AnswerDoc = mongoose.InferSchemaType<typeof answerSchema> & { _id: mongoose.Types.ObjectId };

/**
 * Running counts of a survey's answers by calendar month (UTC) of `createdAt`, kept with each
 * response, so that results read a few documents a month instead of every answer
 * (./tallies.ts). `_id` names the tally: survey, month, question, kind and value.
 */
const answerTallySchema = new Schema(
  {
    _id: { type: String, required: true },
    survey: { type: ObjectIdType, required: true },
    company: { type: ObjectIdType, required: true },
    /** The first instant of the month the counted answers were given in. */
    month: { type: Date, required: true },
    /** `null` for the count of responses. */
    question: { type: ObjectIdType, default: null },
    /** `r` responses, `n` answers of the question (with min, max and sum of its values), `v` answers holding `value`. */
    kind: { type: String, required: true },
    value: { type: Schema.Types.Mixed, default: null },
    n: { type: Number, required: true },
    sum: { type: Number, default: undefined },
    min: { type: Schema.Types.Mixed, default: undefined },
    max: { type: Schema.Types.Mixed, default: undefined },
  },
  { ...schemaOptions, collection: "answertallies" },
);
// A survey's tallies, of all months or of a range of months.
answerTallySchema.index({ survey: 1, month: 1 });

export const AnswerTally = defineModel("AnswerTally", answerTallySchema);

/** An answer as stored. */
export interface StoredAnswer {
  _id: ObjectId;
  uuid: ObjectId;
  company: ObjectId;
  survey: ObjectId;
  chat: ObjectId;
  question: ObjectId;
  user: ObjectId | null;
  /** A string, number, boolean, Date (a `date` answer) or array of strings. */
  value: unknown;
  response: ObjectId | null;
  /** Its place in its response: the answer at 0 counts the response. */
  position: number;
  createdAt: Date;
  modifiedAt: Date;
  /** On a response's first answer until the response is added to the tallies (./tallies.ts). */
  untallied?: true;
}

/** What an answer is made of; `uuid` and `_id` are new unless given. */
export type NewAnswer = Omit<StoredAnswer, "_id" | "uuid" | "modifiedAt" | "untallied"> &
  Partial<Pick<StoredAnswer, "_id" | "uuid">>;

/** An answer document as stored, built in this one place for the service, the seed and the benchmark. */
export const newAnswerDoc = (answer: NewAnswer): StoredAnswer => ({
  ...answer,
  _id: answer._id ?? newId(),
  uuid: answer.uuid ?? newId(),
  modifiedAt: answer.createdAt,
});

const answers = () => driverCollection<StoredAnswer>(Answer);

/** Inserts answers in one unordered bulk (the seed and the benchmark). */
export async function insertAnswers(docs: StoredAnswer[]): Promise<void> {
  if (docs.length > 0) await answers().insertMany(docs, { ordered: false });
}

/**
 * Stores one response as one `insertMany`, ordered: the values are all checked before, so the
 * only failure left is the database's own; then whatever part of the response it stored is
 * deleted again before the error goes on, and no reader is left with half a response.
 */
export async function insertResponse(docs: StoredAnswer[]): Promise<void> {
  try {
    await answers().insertMany(docs, { ordered: true });
  } catch (error) {
    const [first] = docs;
    await answers()
      .deleteMany({ survey: first.survey, company: first.company, response: first.response })
      .catch(() => undefined);
    throw error;
  }
}

const findAnswers = (filter: Filter<Document>, options: ReadOptions): Promise<StoredAnswer[]> =>
  findDocs<StoredAnswer>(Answer, filter, options);

/** What the answers list and its export select of a survey's answers (docs/api.md#answers). */
interface AnswerFilters {
  question?: string;
  from?: Date;
  to?: Date;
  /** Matched literally, ignoring case, in the answers to `textQuestions` only. */
  search?: string;
  /** The survey's questions of type `text` (of them, `question` when given). */
  textQuestions?: ObjectId[];
}

/** The answers of the survey (of the company) that `filters` select. */
export function answersMatching(survey: ObjectId, company: ObjectId, filters: AnswerFilters): Filter<Document> {
  const filter: Filter<Document> = { survey, company };
  if (filters.question) filter.question = oid(filters.question);
  if (filters.from || filters.to)
    filter.createdAt = { ...(filters.from ? { $gte: filters.from } : {}), ...(filters.to ? { $lte: filters.to } : {}) };
  if (filters.search) {
    filter.question = { $in: filters.textQuestions ?? [] };
    filter.value = { $regex: escapeRegExp(filters.search), $options: "i" };
  }
  return filter;
}

/** Newest first, `_id` breaking ties: the answers list and its export. */
const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/**
 * A page of the answers `filter` selects, newest first, after the answer at `after` (the last
 * of the page before) when given; `limit` at most.
 */
export function answerPage(
  filter: Filter<Document>,
  after: Pick<StoredAnswer, "createdAt" | "_id"> | undefined,
  limit: number,
): Promise<StoredAnswer[]> {
  const page = after
    ? {
        $and: [
          filter,
          { $or: [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after._id } }] },
        ],
      }
    : filter;
  return findAnswers(page, { sort: NEWEST_FIRST, limit });
}

/**
 * Every answer `filter` selects, newest first, in batches of `batchSize` read through one cursor
 * as they are taken (the CSV export); the cursor is closed when the walk ends or is abandoned.
 */
export async function* answerBatches(filter: Filter<Document>, batchSize: number): AsyncGenerator<StoredAnswer[]> {
  const cursor = answers().find(filter, { sort: NEWEST_FIRST, batchSize }) as unknown as FindCursor<StoredAnswer>;
  try {
    for (;;) {
      const batch: StoredAnswer[] = [];
      while (batch.length < batchSize && (await cursor.hasNext())) batch.push((await cursor.next())!);
      if (batch.length > 0) yield batch;
      if (batch.length < batchSize) return;
    }
  } finally {
    await cursor.close().catch(() => undefined);
  }
}

export const countAnswers = (filter: Filter<Document>): Promise<number> => answers().countDocuments(filter);

/** Clears the mark `untallied` of the answers `filter` selects: their responses are in the tallies. */
async function markTallied(filter: Filter<Document>): Promise<void> {
  await answers().updateMany(filter, { $unset: { untallied: "" } });
}

/** The response whose first answer is `answerId` is in the tallies now. */
export const markResponseTallied = (answerId: ObjectId): Promise<void> => markTallied({ _id: answerId });

// ---------------------------------------------------------------------------------------------
// Tallies (./tallies.ts)

type TallyKind = "r" | "n" | "v";

export interface Tally {
  month: Date;
  question: ObjectId | null;
  kind: TallyKind;
  value: unknown;
  n: number;
  sum?: number;
  min?: unknown;
  max?: unknown;
}

interface StoredTally extends Tally {
  _id: string;
  survey: ObjectId;
  company: ObjectId;
}

const tallies = () => driverCollection<StoredTally>(AnswerTally);

/** The `_id` of a tally: its survey, month, question, kind and value. */
const tallyKey = (survey: ObjectId, tally: Pick<Tally, "month" | "question" | "kind" | "value">) =>
  createHash("sha256")
    .update(
      JSON.stringify([
        survey.toHexString(),
        tally.month.toISOString(),
        tally.question?.toHexString() ?? null,
        tally.kind,
        tally.value instanceof Date ? { date: tally.value.toISOString() } : tally.value,
      ]),
    )
    .digest("base64url")
    .slice(0, 22);

/** Adds `counts` to the stored tallies: one upsert each, in one bulk write. */
export async function addTallies(survey: ObjectId, company: ObjectId, counts: Tally[]): Promise<void> {
  if (counts.length === 0) return;
  const operations: AnyBulkWriteOperation<StoredTally>[] = counts.map((tally) => {
    const update: Document = {
      $inc: { n: tally.n, ...(tally.sum !== undefined ? { sum: tally.sum } : {}) },
      $setOnInsert: {
        survey,
        company,
        month: tally.month,
        question: tally.question,
        kind: tally.kind,
        value: tally.value,
      },
    };
    if (tally.min !== undefined) {
      update.$min = { min: tally.min };
      update.$max = { max: tally.max };
    }
    return { updateOne: { filter: { _id: tallyKey(survey, tally) }, update, upsert: true } };
  });
  try {
    await tallies().bulkWrite(operations, { ordered: false });
  } catch (error) {
    // Two first counts of one tally at once: one upsert inserts, the other meets its key. Only
    // those failed (the others are applied): they are sent again, and now update.
    if (!isBulkOfDuplicates(error)) throw error;
    const writeErrors = (error as { writeErrors?: { index: number }[] | { index: number } }).writeErrors;
    const failed = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []).map(
      (entry) => operations[entry.index],
    );
    if (failed.length > 0) await tallies().bulkWrite(failed, { ordered: false });
  }
}

/** The answers of the survey given from `from` (inclusive) to `to` (inclusive) or `until` (exclusive); all when none is given. */
export function answersGiven(
  survey: ObjectId,
  company: ObjectId,
  { from, to, until }: { from?: Date; to?: Date; until?: Date },
): Filter<Document> {
  const range: Document = {};
  if (from) range.$gte = from;
  if (to) range.$lte = to;
  if (until) range.$lt = until;
  return { survey, company, ...(Object.keys(range).length ? { createdAt: range } : {}) };
}

/** The newest `limit` answers to `question` among those `match` selects: their values and dates. */
export const latestAnswers = (match: Filter<Document>, question: ObjectId, limit: number): Promise<StoredAnswer[]> =>
  findAnswers({ ...match, question }, { sort: NEWEST_FIRST, limit, projection: { value: 1, createdAt: 1 } });

/** A window of months: from `from` (inclusive) to `to` (exclusive); all of them when both are absent. */
export interface Months {
  from?: Date;
  to?: Date;
}

const range = (months: Months): Document | undefined => {
  if (!months.from && !months.to) return undefined;
  const range: Document = {};
  if (months.from) range.$gte = months.from;
  if (months.to) range.$lt = months.to;
  return range;
};

/** The answers of a survey given within `months` (by `createdAt`), or within a window of instants. */
export function answersWithin(survey: ObjectId, company: ObjectId, months: Months): Filter<Document> {
  const within = range(months);
  return { survey, company, ...(within ? { createdAt: within } : {}) };
}

/** Which questions a count of tallies counts how: by value held, measured (sum, min, max), dates by month. */
interface TalliedQuestions {
  counted: ObjectId[];
  measured: ObjectId[];
  dates: ObjectId[];
}

const MONTH_OF_CREATED = { $dateFromParts: { year: { $year: "$createdAt" }, month: { $month: "$createdAt" } } };

/**
 * The tallies of the answers `match` selects (a survey's, scoped to its company), computed by the
 * database from the answers themselves: one `$group` of the counts, sums, minima and maxima by
 * question and month, one of the values held, one of the dates by their month, one of responses.
 */
export async function countAnswerTallies(match: Filter<Document>, questions: TalliedQuestions): Promise<Tally[]> {
  const aggregate = <T extends Document>(pipeline: Document[]) => aggregateDocs<T>(Answer, pipeline);
  const [answered, values, dates, responses] = await Promise.all([
    aggregate<{ _id: { q: ObjectId; m: Date }; n: number; sum: number; min: unknown; max: unknown }>([
      { $match: match },
      {
        $group: {
          _id: { q: "$question", m: MONTH_OF_CREATED },
          n: { $sum: 1 },
          sum: { $sum: "$value" },
          min: { $min: "$value" },
          max: { $max: "$value" },
        },
      },
    ]),
    aggregate<{ _id: { q: ObjectId; m: Date; v: unknown }; n: number }>([
      { $match: { ...match, question: { $in: questions.counted } } },
      // A single value is unwound as a list of one (spelled out: not every server unwinds a scalar).
      { $project: { question: 1, createdAt: 1, value: { $cond: [{ $isArray: "$value" }, "$value", ["$value"]] } } },
      { $unwind: "$value" },
      { $group: { _id: { q: "$question", m: MONTH_OF_CREATED, v: "$value" }, n: { $sum: 1 } } },
    ]),
    aggregate<{ _id: { q: ObjectId; m: Date; v: Date }; n: number }>([
      { $match: { ...match, question: { $in: questions.dates }, value: { $type: "date" } } },
      {
        $group: {
          _id: {
            q: "$question",
            m: MONTH_OF_CREATED,
            v: { $dateFromParts: { year: { $year: "$value" }, month: { $month: "$value" } } },
          },
          n: { $sum: 1 },
        },
      },
    ]),
    aggregate<{ _id: Date; n: number }>([
      { $match: { ...match, position: 0 } },
      { $group: { _id: MONTH_OF_CREATED, n: { $sum: 1 } } },
    ]),
  ]);
  const isMeasured = (question: ObjectId) => questions.measured.some((id) => id.equals(question));
  return [
    ...answered.map((group): Tally => ({
      month: group._id.m,
      question: group._id.q,
      kind: "n",
      value: null,
      n: group.n,
      ...(isMeasured(group._id.q) ? { sum: group.sum, min: group.min, max: group.max } : {}),
    })),
    ...[...values, ...dates].map((group): Tally => ({
      month: group._id.m,
      question: group._id.q,
      kind: "v",
      value: group._id.v,
      n: group.n,
    })),
    ...responses.map((group): Tally => ({ month: group._id, question: null, kind: "r", value: null, n: group.n })),
  ];
}

/** The stored tallies of the months from `from` (inclusive) to `to` (exclusive), summed over the months. */
export function storedTallies(survey: ObjectId, company: ObjectId, months: Months): Promise<Tally[]> {
  const month = range(months);
  return aggregateDocs<{
    _id: { q: ObjectId | null; k: TallyKind; v: unknown };
    n: number;
    sum: number;
    min: unknown;
    max: unknown;
  }>(AnswerTally, [
    { $match: { survey, company, ...(month ? { month } : {}) } },
    {
      $group: {
        _id: { q: "$question", k: "$kind", v: "$value" },
        n: { $sum: "$n" },
        sum: { $sum: "$sum" },
        min: { $min: "$min" },
        max: { $max: "$max" },
      },
    },
  ]).then((groups) =>
    groups.map((group) => ({
      month: months.from ?? new Date(0),
      question: group._id.q,
      kind: group._id.k,
      value: group._id.v,
      n: group.n,
      sum: group.sum,
      min: group.min ?? undefined,
      max: group.max ?? undefined,
    })),
  );
}

/** The first answers of responses of the survey not yet in the tallies (at most 1,000), with their month and company. */
export const untalliedAnswers = (survey: ObjectId): Promise<StoredAnswer[]> =>
  findAnswers({ untallied: true, survey }, { projection: { createdAt: 1, company: 1 }, limit: 1000 });

/**
 * Replaces the stored tallies of the months from `from` to `to` (all when absent) by `counted`
 * (a count of their answers), and clears the marks of the responses of those months.
 */
export async function replaceTallies(
  survey: ObjectId,
  company: ObjectId,
  months: Months,
  counted: Tally[],
): Promise<void> {
  const month = range(months);
  const ids = counted.map((tally) => tallyKey(survey, tally));
  const operations: AnyBulkWriteOperation<StoredTally>[] = counted.map((tally, i) => ({
    replaceOne: { filter: { _id: ids[i] }, replacement: { ...tally, survey, company, _id: ids[i] }, upsert: true },
  }));
  operations.push({ deleteMany: { filter: { survey, company, _id: { $nin: ids }, ...(month ? { month } : {}) } } });
  await tallies().bulkWrite(operations, { ordered: true });
  await markTallied({ ...answersWithin(survey, company, months), untallied: true });
}
