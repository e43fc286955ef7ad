/**
 * A survey's results (docs/api.md#results): per question a summary computed by the database.
 * Every figure comes from an aggregation pipeline (or an index-ordered read) on the answers'
 * indexes; what reaches the server is one small document per question, option, bin or month,
 * never the answers themselves, so the cost in memory does not grow with their number. Only
 * standard stages and operators are used, so it runs on MongoDB and the embedded database alike.
 */
import type { Document } from "mongodb";
import type { Principal } from "@/lib/server/principal";
import type { ObjectId } from "@/lib/server/ids";
import type { QuestionType } from "@/lib/surveys/contract";
import { allSurveyParts } from "@/lib/surveys/repository";
import { LATEST_TEXT_ANSWERS, MAX_RATING, MIN_RATING, NUMBER_BINS, type CountsSummary, type DateSummary, type NumberSummary, type QuestionResult, type ResultsQuery, type SurveyResults, type TextSummary } from "./contract";
import { checkMayRead, surveyOf } from "./access";
import { aggregateAnswers, countAnswers, findAnswers } from "./repository";
import { shownValue } from "./values";

interface Stats {
  _id: ObjectId;
  answered: number;
  min: unknown;
  max: unknown;
  mean: number | null;
}

type Question = Awaited<ReturnType<typeof allSurveyParts>>["questions"][number];

export async function surveyResults(auth: Principal, id: string, query: ResultsQuery, adminHeader: string | null): Promise<SurveyResults> {
  const survey = await surveyOf(auth, id);
  await checkMayRead(survey, auth, adminHeader);
  const { chats, questions } = await allSurveyParts(survey._id, survey.company);
  const match: Document = { survey: survey._id, company: survey.company };
  if (query.from || query.to) match.createdAt = { ...(query.from ? { $gte: query.from } : {}), ...(query.to ? { $lte: query.to } : {}) };

  const idsOf = (...types: QuestionType[]) => questions.filter((question) => types.includes(question.type as QuestionType)).map((question) => question._id);
  const [stats, responses, counts, months] = await Promise.all([
    aggregateAnswers<Stats>([
      { $match: match },
      { $group: { _id: "$question", answered: { $sum: 1 }, min: { $min: "$value" }, max: { $max: "$value" }, mean: { $avg: "$value" } } },
    ]),
    countAnswers({ ...match, position: 0 }),
    valueCounts(match, idsOf("single_choice", "multiple_choice", "yes_no", "rating")),
    monthCounts(match, idsOf("date")),
  ]);
  const statsOf = new Map(stats.map((entry) => [entry._id.toHexString(), entry]));

  // Live questions in the order of the content, then removed ones that answers in the window hold.
  const chatOrder = new Map(chats.map((chat) => [chat._id.toHexString(), { order: chat.order, removed: chat.removedAt != null }]));
  const removed = (question: Question) => question.removedAt != null || chatOrder.get(question.chat.toHexString())?.removed !== false;
  const listed = questions
    .filter((question) => !removed(question) || (statsOf.get(question._id.toHexString())?.answered ?? 0) > 0)
    .sort((a, b) => Number(removed(a)) - Number(removed(b)) || (chatOrder.get(a.chat.toHexString())?.order ?? 0) - (chatOrder.get(b.chat.toHexString())?.order ?? 0) || a.order - b.order);

  const summaries = await Promise.all(
    listed.map((question) => summarise(question, statsOf.get(question._id.toHexString()), counts.get(question._id.toHexString()) ?? new Map(), months.get(question._id.toHexString()) ?? [], match)),
  );
  return {
    responses,
    answers: stats.reduce((sum, entry) => sum + entry.answered, 0),
    from: query.from?.toISOString() ?? null,
    to: query.to?.toISOString() ?? null,
    questions: listed.map((question, index): QuestionResult => ({
      _id: question._id.toHexString(),
      chat: question.chat.toHexString(),
      text: question.text,
      type: question.type as QuestionType,
      removed: removed(question),
      answered: statsOf.get(question._id.toHexString())?.answered ?? 0,
      summary: summaries[index],
    })),
  };
}

/** How many answers hold each value, per question; a multiple choice counts each option it holds. */
async function valueCounts(match: Document, questions: ObjectId[]): Promise<Map<string, Map<string, number>>> {
  const byQuestion = new Map<string, Map<string, number>>();
  if (questions.length === 0) return byQuestion;
  const groups = await aggregateAnswers<{ _id: { q: ObjectId; v: unknown }; n: number }>([
    { $match: { ...match, question: { $in: questions } } },
    // A single value is unwound as a list of one (spelled out: not every server unwinds a scalar).
    { $project: { question: 1, value: { $cond: [{ $isArray: "$value" }, "$value", ["$value"]] } } },
    { $unwind: "$value" },
    { $group: { _id: { q: "$question", v: "$value" }, n: { $sum: 1 } } },
  ]);
  for (const group of groups) {
    const key = group._id.q.toHexString();
    const counts = byQuestion.get(key) ?? new Map<string, number>();
    counts.set(String(group._id.v), (counts.get(String(group._id.v)) ?? 0) + group.n);
    byQuestion.set(key, counts);
  }
  return byQuestion;
}

interface Month {
  year: number;
  month: number;
  n: number;
}

/** How many date answers fall in each calendar month (UTC), per question. */
async function monthCounts(match: Document, questions: ObjectId[]): Promise<Map<string, Month[]>> {
  const byQuestion = new Map<string, Month[]>();
  if (questions.length === 0) return byQuestion;
  const groups = await aggregateAnswers<{ _id: { q: ObjectId; y: number; m: number }; n: number }>([
    { $match: { ...match, question: { $in: questions }, value: { $type: "date" } } },
    { $group: { _id: { q: "$question", y: { $year: "$value" }, m: { $month: "$value" } }, n: { $sum: 1 } } },
  ]);
  for (const group of groups) {
    const key = group._id.q.toHexString();
    byQuestion.set(key, [...(byQuestion.get(key) ?? []), { year: group._id.y, month: group._id.m, n: group.n }]);
  }
  return byQuestion;
}

async function summarise(question: Question, stats: Stats | undefined, counts: Map<string, number>, months: Month[], match: Document): Promise<QuestionResult["summary"]> {
  switch (question.type as QuestionType) {
    case "single_choice":
    case "multiple_choice":
      return optionCounts(question.options ?? [], counts);
    case "yes_no":
      return optionCounts(["true", "false"], counts);
    case "rating":
      return ratingSummary(stats, counts);
    case "number":
      return numberSummary(question._id, stats, match);
    case "date":
      return dateSummary(stats, months);
    default:
      return textSummary(question._id, match);
  }
}

/** Every option with its count, zero included; values no longer among the options follow (a removed option's answers). */
function optionCounts(options: string[], counts: Map<string, number>): CountsSummary {
  const listed = options.map((option) => ({ option, count: counts.get(option) ?? 0 }));
  const former = [...counts].filter(([value]) => !options.includes(value)).map(([option, count]) => ({ option, count }));
  return { counts: [...listed, ...former] };
}

const numeric = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** A rating's summary from its five counts: the median is read off them. */
function ratingSummary(stats: Stats | undefined, counts: Map<string, number>): NumberSummary {
  const histogram = Array.from({ length: MAX_RATING - MIN_RATING + 1 }, (_, i) => ({ from: MIN_RATING + i, to: MIN_RATING + i, count: counts.get(String(MIN_RATING + i)) ?? 0 }));
  const n = histogram.reduce((sum, bin) => sum + bin.count, 0);
  const nth = (k: number) => {
    let seen = 0;
    for (const bin of histogram) {
      seen += bin.count;
      if (k < seen) return bin.from;
    }
    return histogram[histogram.length - 1].from;
  };
  const median = n === 0 ? null : n % 2 === 1 ? nth((n - 1) / 2) : (nth(n / 2 - 1) + nth(n / 2)) / 2;
  return { min: numeric(stats?.min), max: numeric(stats?.max), mean: numeric(stats?.mean), median, histogram };
}

/**
 * A number question: min, max and mean from the stats, the median as the middle one or two values
 * of an index-ordered read, and ten equal bins between min and max counted by a pipeline (each bin
 * holds `from` ≤ value < `to`, the last one also `to`).
 */
async function numberSummary(question: ObjectId, stats: Stats | undefined, match: Document): Promise<NumberSummary> {
  const min = numeric(stats?.min);
  const max = numeric(stats?.max);
  if (min === null || max === null || !stats) return { min: null, max: null, mean: null, median: null, histogram: [] };
  const numbers = { ...match, question, value: { $type: "number" } };
  const n = stats.answered;
  const middle = await findAnswers(numbers, { sort: { value: 1 }, skip: Math.floor((n - 1) / 2), limit: n % 2 === 1 ? 1 : 2, projection: { value: 1 } });
  const values = middle.map((doc) => doc.value as number);
  const median = values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
  if (min === max) return { min, max, mean: numeric(stats.mean), median, histogram: [{ from: min, to: max, count: n }] };

  const width = (max - min) / NUMBER_BINS;
  const bins = await aggregateAnswers<{ _id: number; n: number }>([
    { $match: numbers },
    { $group: { _id: { $min: [NUMBER_BINS - 1, { $floor: { $divide: [{ $subtract: ["$value", min] }, width] } }] }, n: { $sum: 1 } } },
  ]);
  const countOf = new Map(bins.map((bin) => [bin._id, bin.n]));
  const histogram = Array.from({ length: NUMBER_BINS }, (_, i) => ({ from: min + i * width, to: i === NUMBER_BINS - 1 ? max : min + (i + 1) * width, count: countOf.get(i) ?? 0 }));
  return { min, max, mean: numeric(stats.mean), median, histogram };
}

/** A date question: min, max, and every calendar month (UTC) between them with its count, both ends inclusive. */
function dateSummary(stats: Stats | undefined, months: Month[]): DateSummary {
  if (!(stats?.min instanceof Date) || !(stats.max instanceof Date)) return { min: null, max: null, histogram: [] };
  const countOf = new Map(months.map((month) => [`${month.year}-${month.month}`, month.n]));
  const histogram: DateSummary["histogram"] = [];
  for (let at = new Date(Date.UTC(stats.min.getUTCFullYear(), stats.min.getUTCMonth(), 1)); at <= stats.max; ) {
    const next = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
    histogram.push({ from: at.toISOString(), to: new Date(next.getTime() - 1).toISOString(), count: countOf.get(`${at.getUTCFullYear()}-${at.getUTCMonth() + 1}`) ?? 0 });
    at = next;
  }
  return { min: stats.min.toISOString(), max: stats.max.toISOString(), histogram };
}

/** The latest text answers, from the question's newest-first index. */
async function textSummary(question: ObjectId, match: Document): Promise<TextSummary> {
  const latest = await findAnswers({ ...match, question }, { sort: { createdAt: -1, _id: -1 }, limit: LATEST_TEXT_ANSWERS, projection: { value: 1, createdAt: 1 } });
  return { latest: latest.map((doc) => ({ value: String(shownValue(doc.value) ?? ""), createdAt: doc.createdAt.toISOString() })) };
}

