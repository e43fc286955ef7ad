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
import type { ObjectId } from "@/lib/kernel/ids";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import type { Document, Filter } from "mongodb";
import {
  answersWithin,
  countAnswerTallies,
  type Months,
  replaceTallies,
  type StoredAnswer,
  type Tally,
  untalliedAnswers,
} from "./repository";

export const monthOf = (date: Date): Date => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
export const nextMonth = (month: Date): Date => new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));

/** The types whose values are counted one by one, and those whose sum, min and max are kept. */
const COUNTED: QuestionType[] = ["single_choice", "multiple_choice", "yes_no", "rating", "number"];
const MEASURED: QuestionType[] = ["number", "rating", "date"];

const earlier = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date ? a.getTime() < b.getTime() : (a as number) < (b as number);

/** What `answers` add to the tallies, computed here as they are stored (a response, a seed batch). */
export function talliesOf(answers: StoredAnswer[], typeOf: (question: ObjectId) => QuestionType | undefined): Tally[] {
  const byKey = new Map<string, Tally>();
  const add = (tally: Omit<Tally, "n">, measured?: unknown) => {
    const k = JSON.stringify([
      tally.month.getTime(),
      tally.question?.toHexString(),
      tally.kind,
      tally.value instanceof Date ? tally.value.getTime() : tally.value,
    ]);
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
    add(
      { month, question: answer.question, kind: "n", value: null },
      MEASURED.includes(type) ? answer.value : undefined,
    );
    if (type === "date" && answer.value instanceof Date)
      add({ month, question: answer.question, kind: "v", value: monthOf(answer.value) });
    else if (COUNTED.includes(type))
      for (const value of Array.isArray(answer.value) ? answer.value : [answer.value])
        add({ month, question: answer.question, kind: "v", value });
  }
  return [...byKey.values()];
}

/** A survey's questions by id, with their types: what the pipelines count and how. */
export type QuestionTypes = Map<string, { _id: ObjectId; type: QuestionType }>;

/**
 * The tallies of the answers `match` selects (./repository.ts's `answersWithin`), computed by the
 * database from the answers themselves (the partial months of a window, and a recount).
 */
export function countTallies(match: Filter<Document>, questions: QuestionTypes): Promise<Tally[]> {
  const ofTypes = (types: QuestionType[]) =>
    [...questions.values()].filter((question) => types.includes(question.type)).map((question) => question._id);
  return countAnswerTallies(match, {
    counted: ofTypes(COUNTED),
    measured: ofTypes(MEASURED),
    dates: ofTypes(["date"]),
  });
}

/**
 * Counts again, from the answers, the tallies of every month in which a response was stored but
 * not added to the tallies (its process died in between; such a response's first answer keeps the
 * mark `untallied`), and replaces those months' tallies. Responses younger than a minute are left
 * to their own request.
 */
export async function repairTallies(survey: ObjectId, company: ObjectId, questions: QuestionTypes): Promise<void> {
  const marked = await untalliedAnswers(survey);
  const minuteAgo = Date.now() - 60_000;
  const stale = marked.filter((answer) => answer.company.equals(company) && answer.createdAt.getTime() < minuteAgo);
  const months = new Map(stale.map((answer) => [monthOf(answer.createdAt).getTime(), monthOf(answer.createdAt)]));
  for (const month of months.values())
    await recountMonths(survey, company, questions, { from: month, to: nextMonth(month) });
}

/** Replaces the tallies of the months from `from` to `to` (all when absent) by a count of the answers. */
export async function recountMonths(
  survey: ObjectId,
  company: ObjectId,
  questions: QuestionTypes,
  months: Months = {},
): Promise<void> {
  const counted = await countTallies(answersWithin(survey, company, months), questions);
  await replaceTallies(survey, company, months, counted);
}
