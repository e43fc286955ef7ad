/**
 * Typed react-query hooks of a survey's content, answers and results (the operations `putContent`
 * of lib/resources/surveys/contract.ts and `answer`, `list` and `results` of lib/resources/answers/contract.ts).
 */
import { dayBounds } from "@/lib/base/shared/days";
import type { PostAnswersBody } from "@/lib/resources/answers/contract";
import * as answers from "@/lib/resources/answers/contract";
import type { SurveyRecord, SurveyRevisionRecord } from "@/lib/resources/surveys/contract";
import * as surveys from "@/lib/resources/surveys/contract";
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { request } from "./api";
import { useDayZone } from "./company";
import type { ContentBody } from "./content-draft";
import { restorePlan } from "./survey-restore";
import { surveyKeys } from "./surveys";

export type ResponseBody = z.input<typeof PostAnswersBody>;

/** Everything a change of content or a new response makes stale: the survey, its lists, its results and answers. */
async function refresh(client: ReturnType<typeof useQueryClient>, id: string) {
  await client.invalidateQueries({ queryKey: surveyKeys.detail(id) });
  await client.invalidateQueries({ queryKey: surveyKeys.all });
}

/** One `PUT` of the whole content: one revision. The answer is the survey with its chats. */
export function useSaveContent(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ContentBody) => request(surveys.putContent, { params: { id }, body }),
    onSuccess: async (survey) => {
      client.setQueryData(surveyKeys.detail(id), survey);
      await refresh(client, id);
    },
  });
}

/**
 * Brings a revision back as the current survey (`current` read with `populate=true`): the requests
 * of `restorePlan`, its fields by a PATCH and its chats and questions by a content PUT, so the new
 * revision holds what the chosen one held. Removed chats and questions named by the revision return
 * with their answers; those it did not have are removed (their answers kept).
 */
export function useRestoreRevision(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ revision, current }: { revision: SurveyRevisionRecord; current: SurveyRecord }) => {
      const plan = restorePlan(revision, current);
      let result: SurveyRecord = current;
      if (plan.patch) result = await request(surveys.update, { params: { id }, body: plan.patch });
      if (plan.content) result = await request(surveys.putContent, { params: { id }, body: plan.content });
      return result;
    },
    onSuccess: () => refresh(client, id),
  });
}

/** Records one response of the signed-in user. */
export function useSubmitResponse(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ResponseBody) => request(answers.answer, { params: { id }, body }),
    onSuccess: () => refresh(client, id),
  });
}

export interface DateRange {
  from?: string;
  to?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const isDay = (value: string | null): value is string =>
  value !== null && DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/** The date filter of a page's URL (`?from=2026-11-01&to=2026-11-30`); anything else is ignored. */
export function parseRange(params: URLSearchParams): DateRange {
  const from = params.get("from");
  const to = params.get("to");
  return { from: isDay(from) ? from : undefined, to: isDay(to) ? to : undefined };
}

/** `from`, `to` and any other parameters of a page, as its URL's query string. */
export function searchOf(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams(
    Object.entries(values).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
  return params.size ? `?${params}` : "";
}

/** The days of the date filter (`2026-11-25`) as the API's inclusive bounds, in the company's zone (docs/api.md#days). */
export function rangeQuery(range: DateRange, zone: string) {
  const days = dayBounds(range.from, range.to, zone);
  return { from: days.from, to: days.to };
}

/** The results between two instants (`rangeQuery`'s bounds): keyed by the instants, so a change of the company's zone reads again. */
const resultsQuery = (id: string, bounds: { from?: string; to?: string }) => ({
  queryKey: surveyKeys.results(id, bounds),
  queryFn: ({ signal }: { signal: AbortSignal }) => request(answers.results, { params: { id }, query: bounds, signal }),
});

export function useResults(id: string, range: DateRange) {
  return useQuery({ ...resultsQuery(id, rangeQuery(range, useDayZone())), placeholderData: keepPreviousData });
}

/** The pointer rests on the Results tab: read the results of every date (the tab's first view, the same in any zone) ahead of the click. */
export function prefetchResults(client: QueryClient, id: string): void {
  void client.prefetchQuery(resultsQuery(id, {}));
}

export interface AnswersQuery extends DateRange {
  question?: string;
  search?: string;
  cursor?: string;
  limit: number;
}

export function useAnswers(id: string, query: AnswersQuery) {
  const bounds = rangeQuery(query, useDayZone());
  return useQuery({
    queryKey: surveyKeys.answers(id, { ...query, ...bounds }),
    queryFn: ({ signal }) =>
      request(answers.list, {
        params: { id },
        query: {
          ...bounds,
          question: query.question,
          search: query.search || undefined,
          cursor: query.cursor,
          limit: query.limit,
        },
        signal,
      }),
    placeholderData: keepPreviousData,
  });
}
