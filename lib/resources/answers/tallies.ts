/**
 * Tallies: running counts of a survey's answers per calendar month (UTC) of their `createdAt`
 * (docs/api.md#results). Each response adds to them as it is stored; the results read the tallies
 * of the months a window covers whole, and count the answers of the rest (a window's partial
 * months) with the same figures computed by a pipeline in the database. Whatever the number of
 * answers, a month holds one tally per question, per option or value held, and of responses.
 *
 * A tally: `r` responses; `n` answers to a question, with the sum, min and max of number, rating
 * and date values; `v` answers holding a value (an option, a yes/no, a rating, a number; a date
 * counts under its month).
 */
import { createHash } from "node:crypto";
import type { AnyBulkWriteOperation, Document } from "mongodb";
import { driverCollection } from "@/lib/kernel/models/define";
import { aggregateDocs } from "@/lib/kernel/models/read";
import { isBulkOfDuplicates } from "@/lib/kernel/errors";
import type { ObjectId } from "@/lib/kernel/ids";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import { AnswerTally } from "@/lib/resources/surveys/parts";
import { aggregateAnswers, findAnswers, markTallied, type StoredAnswer } from "./repository";

export type TallyKind = "r" | "n" | "v";

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

export const monthOf = (date: Date): Date => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
export const nextMonth = (month: Date): Date => new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));

/** The types whose values are counted one by one, and those whose sum, min and max are kept. */
const COUNTED: QuestionType[] = ["single_choice", "multiple_choice", "yes_no", "rating", "number"];
const MEASURED: QuestionType[] = ["number", "rating", "date"];

const key = (survey: ObjectId, tally: Pick<Tally, "month" | "question" | "kind" | "value">) =>
  createHash("sha256")
    .update(JSON.stringify([survey.toHexString(), tally.month.toISOString(), tally.question?.toHexString() ?? null, tally.kind, tally.value instanceof Date ? { date: tally.value.toISOString() } : tally.value]))
    .digest("base64url")
    .slice(0, 22);

const earlier = (a: unknown, b: unknown) => (a instanceof Date && b instanceof Date ? a.getTime() < b.getTime() : (a as number) < (b as number));

/** What `answers` add to the tallies, computed here as they are stored (a response, a seed batch). */
export function talliesOf(answers: StoredAnswer[], typeOf: (question: ObjectId) => QuestionType | undefined): Tally[] {
  const byKey = new Map<string, Tally>();
  const add = (tally: Omit<Tally, "n">, measured?: unknown) => {
    const k = JSON.stringify([tally.month.getTime(), tally.question?.toHexString(), tally.kind, tally.value instanceof Date ? tally.value.getTime() : tally.value]);
    const entry = byKey.get(k) ?? { ...tally, n: 0 };
    entry.n += 1;
    if (measured !== undefined) {
      if (typeof measured === "number") entry.sum = (entry.sum ?? 0) + measured;
      if (entry.min === undefined || earlier(measured, entry.min)) entry.min = measured;
      if (entry.max === undefined || earlier(entry.max, measured)) entry.max = measured;
    }
    byKey.set(k, entry);
  };
  for (const answer of answers) {
    const month = monthOf(answer.createdAt);
    const type = typeOf(answer.question);
    if (answer.position === 0) add({ month, question: null, kind: "r", value: null });
    if (!type) continue;
    add({ month, question: answer.question, kind: "n", value: null }, MEASURED.includes(type) ? answer.value : undefined);
    if (type === "date" && answer.value instanceof Date) add({ month, question: answer.question, kind: "v", value: monthOf(answer.value) });
    else if (COUNTED.includes(type)) for (const value of Array.isArray(answer.value) ? answer.value : [answer.value]) add({ month, question: answer.question, kind: "v", value });
  }
  return [...byKey.values()];
}

/** Adds `counts` to the stored tallies: one upsert each, in one bulk write. */
export async function addTallies(survey: ObjectId, company: ObjectId, counts: Tally[]): Promise<void> {
  if (counts.length === 0) return;
  const operations: AnyBulkWriteOperation<StoredTally>[] = counts.map((tally) => {
    const update: Document = { $inc: { n: tally.n, ...(tally.sum !== undefined ? { sum: tally.sum } : {}) }, $setOnInsert: { survey, company, month: tally.month, question: tally.question, kind: tally.kind, value: tally.value } };
    if (tally.min !== undefined) {
      update.$min = { min: tally.min };
      update.$max = { max: tally.max };
    }
    return { updateOne: { filter: { _id: key(survey, tally) }, update, upsert: true } };
  });
  try {
    await tallies().bulkWrite(operations, { ordered: false });
  } catch (error) {
    // Two first counts of one tally at once: one upsert inserts, the other meets its key. Only
    // those failed (the others are applied): they are sent again, and now update.
    if (!isBulkOfDuplicates(error)) throw error;
    const writeErrors = (error as { writeErrors?: { index: number }[] | { index: number } }).writeErrors;
    const failed = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []).map((entry) => operations[entry.index]);
    if (failed.length > 0) await tallies().bulkWrite(failed, { ordered: false });
  }
}

/** A survey's questions by id, with their types: what the pipelines count and how. */
export type QuestionTypes = Map<string, { _id: ObjectId; type: QuestionType }>;

const MONTH_OF_CREATED = { $dateFromParts: { year: { $year: "$createdAt" }, month: { $month: "$createdAt" } } };

/**
 * The tallies of the answers `match` selects, computed by the database from the answers themselves
 * (the partial months of a window, and a recount): one `$group` of the counts, sums, minima and
 * maxima by question and month, one of the values held, one of the dates by their month, one of
 * responses.
 */
export async function countTallies(match: Document, questions: QuestionTypes): Promise<Tally[]> {
  const ofTypes = (types: QuestionType[]) => [...questions.values()].filter((question) => types.includes(question.type)).map((question) => question._id);
  const measured = ofTypes(MEASURED);
  const [answered, values, dates, responses] = await Promise.all([
    aggregateAnswers<{ _id: { q: ObjectId; m: Date }; n: number; sum: number; min: unknown; max: unknown }>([
      { $match: match },
      { $group: { _id: { q: "$question", m: MONTH_OF_CREATED }, n: { $sum: 1 }, sum: { $sum: "$value" }, min: { $min: "$value" }, max: { $max: "$value" } } },
    ]),
    aggregateAnswers<{ _id: { q: ObjectId; m: Date; v: unknown }; n: number }>([
      { $match: { ...match, question: { $in: ofTypes(COUNTED) } } },
      // A single value is unwound as a list of one (spelled out: not every server unwinds a scalar).
      { $project: { question: 1, createdAt: 1, value: { $cond: [{ $isArray: "$value" }, "$value", ["$value"]] } } },
      { $unwind: "$value" },
      { $group: { _id: { q: "$question", m: MONTH_OF_CREATED, v: "$value" }, n: { $sum: 1 } } },
    ]),
    aggregateAnswers<{ _id: { q: ObjectId; m: Date; v: Date }; n: number }>([
      { $match: { ...match, question: { $in: ofTypes(["date"]) }, value: { $type: "date" } } },
      { $group: { _id: { q: "$question", m: MONTH_OF_CREATED, v: { $dateFromParts: { year: { $year: "$value" }, month: { $month: "$value" } } } }, n: { $sum: 1 } } },
    ]),
    aggregateAnswers<{ _id: Date; n: number }>([{ $match: { ...match, position: 0 } }, { $group: { _id: MONTH_OF_CREATED, n: { $sum: 1 } } }]),
  ]);
  const isMeasured = (question: ObjectId) => measured.some((id) => id.equals(question));
  return [
    ...answered.map((group): Tally => ({ month: group._id.m, question: group._id.q, kind: "n", value: null, n: group.n, ...(isMeasured(group._id.q) ? { sum: group.sum, min: group.min, max: group.max } : {}) })),
    ...[...values, ...dates].map((group): Tally => ({ month: group._id.m, question: group._id.q, kind: "v", value: group._id.v, n: group.n })),
    ...responses.map((group): Tally => ({ month: group._id, question: null, kind: "r", value: null, n: group.n })),
  ];
}

/** The stored tallies of the months from `from` (inclusive) to `to` (exclusive), summed over the months. */
export function storedTallies(survey: ObjectId, company: ObjectId, months: { from?: Date; to?: Date }): Promise<Tally[]> {
  const month: Document = {};
  if (months.from) month.$gte = months.from;
  if (months.to) month.$lt = months.to;
  return aggregateDocs<{ _id: { q: ObjectId | null; k: TallyKind; v: unknown }; n: number; sum: number; min: unknown; max: unknown }>(AnswerTally, [
    { $match: { survey, company, ...(months.from || months.to ? { month } : {}) } },
    { $group: { _id: { q: "$question", k: "$kind", v: "$value" }, n: { $sum: "$n" }, sum: { $sum: "$sum" }, min: { $min: "$min" }, max: { $max: "$max" } } },
  ]).then((groups) => groups.map((group) => ({ month: months.from ?? new Date(0), question: group._id.q, kind: group._id.k, value: group._id.v, n: group.n, sum: group.sum, min: group.min ?? undefined, max: group.max ?? undefined })));
}

/**
 * Counts again, from the answers, the tallies of every month in which a response was stored but
 * not added to the tallies (its process died in between; such a response's first answer keeps the
 * mark `untallied`), and replaces those months' tallies. Responses younger than a minute are left
 * to their own request.
 */
export async function repairTallies(survey: ObjectId, company: ObjectId, questions: QuestionTypes): Promise<void> {
  const marked = await findAnswers({ untallied: true, survey }, { projection: { createdAt: 1, company: 1 }, limit: 1000 });
  const minuteAgo = Date.now() - 60_000;
  const stale = marked.filter((answer) => answer.company.equals(company) && answer.createdAt.getTime() < minuteAgo);
  const months = new Map(stale.map((answer) => [monthOf(answer.createdAt).getTime(), monthOf(answer.createdAt)]));
  for (const month of months.values()) await recountMonths(survey, company, questions, { from: month, to: nextMonth(month) });
}

/** Replaces the tallies of the months from `from` to `to` (all when absent) by a count of the answers. */
export async function recountMonths(survey: ObjectId, company: ObjectId, questions: QuestionTypes, months: { from?: Date; to?: Date } = {}): Promise<void> {
  const range: Document = {};
  if (months.from) range.$gte = months.from;
  if (months.to) range.$lt = months.to;
  const window = months.from || months.to ? { createdAt: range } : {};
  const counted = await countTallies({ survey, company, ...window }, questions);
  const ids = counted.map((tally) => key(survey, tally));
  const operations: AnyBulkWriteOperation<StoredTally>[] = counted.map((tally, i) => ({
    replaceOne: { filter: { _id: ids[i] }, replacement: { ...tally, survey, company, _id: ids[i] }, upsert: true },
  }));
  operations.push({ deleteMany: { filter: { survey, company, _id: { $nin: ids }, ...(months.from || months.to ? { month: range } : {}) } } });
  await tallies().bulkWrite(operations, { ordered: true });
  await markTallied({ survey, company, untallied: true, ...window });
}
