/**
 * A survey's results (docs/api.md#results): per question a summary, from the tallies of the
 * answers (./tallies.ts). The months a window covers whole are read from the stored tallies (a
 * `$group` over a few documents a month); its partial months are counted from the answers by the
 * same pipelines in the database, on the `{ survey, createdAt }` index. What reaches the server is
 * one small document per question, option or value, never the answers themselves. Only standard
 * stages and operators are used, so it runs on MongoDB and the embedded database alike.
 */
import type { ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import type { QuestionType } from "@/lib/resources/surveys/contract";
import { allChatsAndQuestions } from "@/lib/resources/surveys/repository";
import type { Document } from "mongodb";
import { checkMayRead, surveyOf } from "./access";
import {
  LATEST_TEXT_ANSWERS,
  MAX_RATING,
  MIN_RATING,
  NUMBER_BINS,
  type CountsSummary,
  type DateSummary,
  type NumberSummary,
  type QuestionResult,
  type ResultsQuery,
  type SurveyResults,
  type TextSummary,
} from "./contract";
import { answersGiven, latestAnswers, storedTallies, type Tally } from "./repository";
import { countTallies, monthOf, nextMonth, repairTallies, type QuestionTypes } from "./tallies";
import { shownValue } from "./values";

type Question = Awaited<ReturnType<typeof allChatsAndQuestions>>["questions"][number];

/** A question's figures in the window, summed from its tallies. */
interface Figures {
  n: number;
  sum: number;
  min: unknown;
  max: unknown;
  /** By value (as a string key): the value and how many answers hold it. */
  values: Map<string, { value: unknown; n: number }>;
}

const valueKey = (value: unknown) => (value instanceof Date ? `d:${value.toISOString()}` : JSON.stringify(value));
const before = (a: unknown, b: unknown) =>
  a instanceof Date && b instanceof Date ? a.getTime() < b.getTime() : (a as number) < (b as number);
const present = (value: unknown) => value !== undefined && value !== null;

export async function surveyResults(
  auth: Principal,
  id: string,
  query: ResultsQuery,
  adminHeader: string | null,
): Promise<SurveyResults> {
  const survey = await surveyOf(auth, id);
  await checkMayRead(survey, auth, adminHeader);
  const { chats, questions } = await allChatsAndQuestions(survey._id, survey.company);
  const types: QuestionTypes = new Map(
    questions.map((question) => [
      question._id.toHexString(),
      { _id: question._id, type: question.type as QuestionType },
    ]),
  );
  await repairTallies(survey._id, survey.company, types);

  const counted = await windowTallies(survey._id, survey.company, types, query);
  let responses = 0;
  const figures = new Map<string, Figures>();
  for (const tally of counted) {
    if (tally.kind === "r") {
      responses += tally.n;
      continue;
    }
    const key = tally.question!.toHexString();
    const entry = figures.get(key) ?? { n: 0, sum: 0, min: undefined, max: undefined, values: new Map() };
    if (tally.kind === "n") {
      entry.n += tally.n;
      entry.sum += tally.sum ?? 0;
      if (present(tally.min) && (entry.min === undefined || before(tally.min, entry.min))) entry.min = tally.min;
      if (present(tally.max) && (entry.max === undefined || before(entry.max, tally.max))) entry.max = tally.max;
    } else {
      const held = entry.values.get(valueKey(tally.value)) ?? { value: tally.value, n: 0 };
      held.n += tally.n;
      entry.values.set(valueKey(tally.value), held);
    }
    figures.set(key, entry);
  }

  // Live questions in the order of the content, then removed ones that answers in the window hold.
  const chatOf = new Map(
    chats.map((chat) => [chat._id.toHexString(), { order: chat.order, removed: chat.removedAt != null }]),
  );
  const removed = (question: Question) =>
    question.removedAt != null || chatOf.get(question.chat.toHexString())?.removed !== false;
  const answered = (question: Question) => figures.get(question._id.toHexString())?.n ?? 0;
  const listed = questions
    .filter((question) => !removed(question) || answered(question) > 0)
    .sort(
      (a, b) =>
        Number(removed(a)) - Number(removed(b)) ||
        (chatOf.get(a.chat.toHexString())?.order ?? 0) - (chatOf.get(b.chat.toHexString())?.order ?? 0) ||
        a.order - b.order,
    );
  const match = answersGiven(survey._id, survey.company, { from: query.from, to: query.to });
  const summaries = await Promise.all(
    listed.map((question) => summarise(question, figures.get(question._id.toHexString()), match)),
  );

  return {
    responses,
    answers: [...figures.values()].reduce((sum, entry) => sum + entry.n, 0),
    from: query.from?.toISOString() ?? null,
    to: query.to?.toISOString() ?? null,
    questions: listed.map((question, index): QuestionResult => ({
      _id: question._id.toHexString(),
      chat: question.chat.toHexString(),
      text: question.text,
      type: question.type as QuestionType,
      removed: removed(question),
      answered: answered(question),
      summary: summaries[index],
    })),
  };
}

/**
 * The tallies of the window: stored ones for the months it covers whole, counted ones for the
 * rest of it (at most a partial month at each end).
 */
async function windowTallies(
  survey: ObjectId,
  company: ObjectId,
  types: QuestionTypes,
  window: ResultsQuery,
): Promise<Tally[]> {
  const firstWhole = window.from
    ? monthOf(window.from).getTime() === window.from.getTime()
      ? window.from
      : nextMonth(window.from)
    : undefined;
  // The month after `to`'s, when `to` is its month's last millisecond, else `to`'s own.
  const afterWhole = window.to ? monthOf(new Date(window.to.getTime() + 1)) : undefined;
  const count = (given: { from?: Date; to?: Date; until?: Date }) =>
    countTallies(answersGiven(survey, company, given), types);
  if (firstWhole && afterWhole && firstWhole >= afterWhole) return count({ from: window.from, to: window.to });
  const parts = await Promise.all([
    storedTallies(survey, company, { from: firstWhole, to: afterWhole }),
    window.from && firstWhole! > window.from ? count({ from: window.from, until: firstWhole }) : [],
    window.to && afterWhole! <= window.to ? count({ from: afterWhole, to: window.to }) : [],
  ]);
  return parts.flat();
}

async function summarise(
  question: Question,
  figures: Figures | undefined,
  match: Document,
): Promise<QuestionResult["summary"]> {
  const values = [...(figures?.values.values() ?? [])];
  switch (question.type as QuestionType) {
    case "single_choice":
    case "multiple_choice":
      return optionCounts(question.options ?? [], values);
    case "yes_no":
      return optionCounts(["true", "false"], values);
    case "rating":
      return ratingSummary(figures, values);
    case "number":
      return numberSummary(figures, values);
    case "date":
      return dateSummary(figures, values);
    default:
      return textSummary(question._id, match);
  }
}

/** Every option with its count, zero included; values no longer among the options follow (a removed option's answers). */
function optionCounts(options: string[], values: { value: unknown; n: number }[]): CountsSummary {
  const countOf = new Map(values.map((held) => [String(held.value), held.n]));
  const listed = options.map((option) => ({ option, count: countOf.get(option) ?? 0 }));
  const former = [...countOf]
    .filter(([value]) => !options.includes(value))
    .map(([option, count]) => ({ option, count }));
  return { counts: [...listed, ...former] };
}

const numeric = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** The median of values held `n` times each: the middle one, or the mean of the two middle ones. */
function median(values: { value: number; n: number }[]): number | null {
  const sorted = [...values].sort((a, b) => a.value - b.value);
  const total = sorted.reduce((sum, held) => sum + held.n, 0);
  if (total === 0) return null;
  const nth = (k: number) => {
    let seen = 0;
    for (const held of sorted) {
      seen += held.n;
      if (k < seen) return held.value;
    }
    return sorted[sorted.length - 1].value;
  };
  return total % 2 === 1 ? nth((total - 1) / 2) : (nth(total / 2 - 1) + nth(total / 2)) / 2;
}

const numbers = (values: { value: unknown; n: number }[]) =>
  values.filter((held): held is { value: number; n: number } => numeric(held.value) !== null);

function ratingSummary(figures: Figures | undefined, values: { value: unknown; n: number }[]): NumberSummary {
  const held = numbers(values);
  const histogram = Array.from({ length: MAX_RATING - MIN_RATING + 1 }, (_, i) => ({
    from: MIN_RATING + i,
    to: MIN_RATING + i,
    count: held.find((entry) => entry.value === MIN_RATING + i)?.n ?? 0,
  }));
  const n = figures?.n ?? 0;
  return {
    min: numeric(figures?.min),
    max: numeric(figures?.max),
    mean: n ? figures!.sum / n : null,
    median: median(held),
    histogram,
  };
}

/** Ten equal bins between min and max, each holding `from` ≤ value < `to`, the last one also `to`. */
function numberSummary(figures: Figures | undefined, values: { value: unknown; n: number }[]): NumberSummary {
  const min = numeric(figures?.min);
  const max = numeric(figures?.max);
  if (min === null || max === null || !figures?.n)
    return { min: null, max: null, mean: null, median: null, histogram: [] };
  const held = numbers(values);
  const base = { min, max, mean: figures.sum / figures.n, median: median(held) };
  if (min === max) return { ...base, histogram: [{ from: min, to: max, count: figures.n }] };
  const width = (max - min) / NUMBER_BINS;
  const counts = new Array<number>(NUMBER_BINS).fill(0);
  for (const entry of held) counts[Math.min(NUMBER_BINS - 1, Math.floor((entry.value - min) / width))] += entry.n;
  return {
    ...base,
    histogram: counts.map((count, i) => ({
      from: min + i * width,
      to: i === NUMBER_BINS - 1 ? max : min + (i + 1) * width,
      count,
    })),
  };
}

/** Every calendar month (UTC) from min's to max's with its count, both ends of each bin inclusive. */
function dateSummary(figures: Figures | undefined, values: { value: unknown; n: number }[]): DateSummary {
  if (!(figures?.min instanceof Date) || !(figures.max instanceof Date)) return { min: null, max: null, histogram: [] };
  const countOf = new Map(
    values.filter((held) => held.value instanceof Date).map((held) => [(held.value as Date).getTime(), held.n]),
  );
  const histogram: DateSummary["histogram"] = [];
  for (let at = monthOf(figures.min); at <= figures.max; at = nextMonth(at)) {
    histogram.push({
      from: at.toISOString(),
      to: new Date(nextMonth(at).getTime() - 1).toISOString(),
      count: countOf.get(at.getTime()) ?? 0,
    });
  }
  return { min: figures.min.toISOString(), max: figures.max.toISOString(), histogram };
}

/** The latest text answers, from the question's newest-first index. */
async function textSummary(question: ObjectId, match: Document): Promise<TextSummary> {
  const latest = await latestAnswers(match, question, LATEST_TEXT_ANSWERS);
  return {
    latest: latest.map((doc) => ({
      value: String(shownValue(doc.value) ?? ""),
      createdAt: doc.createdAt.toISOString(),
    })),
  };
}
