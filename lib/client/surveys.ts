/** Typed react-query hooks of the surveys resource, bound to the operations of lib/resources/surveys/contract.ts. */
import type { CreateSurveyBody, SurveyList, SurveyRecord, UpdateSurveyBody } from "@/lib/resources/surveys/contract";
import * as surveys from "@/lib/resources/surveys/contract";
import * as users from "@/lib/resources/users/contract";
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { request, requestWithTag } from "./api";
import { displayName } from "./users";

export type CreateSurveyInput = z.input<typeof CreateSurveyBody>;
export type UpdateSurveyInput = z.input<typeof UpdateSurveyBody>;

export interface SurveyListQuery {
  search?: string;
  isActive: "true" | "false" | "all";
  page: number;
  limit: number;
  /** The order (docs/api.md#sorting); `modifiedAt`, newest first, when absent. */
  sort?: "modifiedAt" | "name" | "code";
  orderBy?: "asc" | "desc";
}

/** A survey's answers and results: what the answers' hooks (survey-content.ts) read under the survey's key. */
interface AnswersKeyQuery {
  from?: string;
  to?: string;
  question?: string;
  search?: string;
  cursor?: string;
  limit?: number;
}

/**
 * The cache keys of surveys. Lists start with `"surveys"`, a survey and everything read of it
 * (its edit, revisions, answers and results) with `["survey", id]`, so a change of a survey
 * refreshes all of it at once (`detail`) and every list (`all`).
 */
export const surveyKeys = {
  all: ["surveys"] as const,
  list: (query: SurveyListQuery) => ["surveys", query] as const,
  code: (code: string) => ["surveys", "code", code] as const,
  byId: (ids: string[]) => ["surveys", "byId", ids] as const,
  detail: (id: string) => ["survey", id] as const,
  /** The record an edit form loaded, with its `ETag`. */
  edit: (id: string | undefined) => ["survey", id, "edit"] as const,
  revisions: (id: string, page: number, limit: number) => ["survey", id, "revisions", page, limit] as const,
  results: (id: string, range: { from?: string; to?: string }) => ["survey", id, "results", range] as const,
  answers: (id: string, query: AnswersKeyQuery) => ["survey", id, "answers", query] as const,
};

export function useSurveyList(query: SurveyListQuery, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: surveyKeys.list(query),
    queryFn: ({ signal }) =>
      request(surveys.list, { query: { ...query, search: query.search || undefined, count: true }, signal }),
    placeholderData: keepPreviousData,
    enabled: options.enabled,
  });
}

/** The names of these surveys (up to 100), active or not, by id: for a page that mentions surveys, as Activity does. */
export function useSurveysById(ids: string[]) {
  const sorted = [...new Set(ids)].sort().slice(0, 100);
  return useQuery({
    queryKey: surveyKeys.byId(sorted),
    queryFn: ({ signal }) =>
      request(surveys.list, { query: { id: sorted, isActive: "all", limit: 100, select: ["name"] }, signal }),
    enabled: sorted.length > 0,
    select: (body) => new Map(body.data.surveys.map((survey) => [survey._id, survey.name ?? ""])),
  });
}

const surveyQuery = (id: string) => ({
  queryKey: surveyKeys.detail(id),
  queryFn: ({ signal }: { signal: AbortSignal }): Promise<SurveyRecord> =>
    request(surveys.read, { params: { id }, query: { populate: true }, signal }),
});

type ListedSurvey = SurveyList["data"]["surveys"][number];

/** Whether a list's survey holds every field of the record (a list read with `select` holds only some). */
const isWhole = (survey: ListedSurvey): survey is SurveyRecord =>
  survey.code !== undefined && survey.name !== undefined && survey.responders !== undefined && survey.__v !== undefined;

/**
 * The survey as a list page already holds it (every field but its populated chats), so its page
 * shows at once while the full record loads. Lists read with `select` hold only some fields and
 * are passed over.
 */
function surveyFromLists(client: QueryClient, id: string): SurveyRecord | undefined {
  for (const [, body] of client.getQueriesData<SurveyList>({ queryKey: surveyKeys.all })) {
    const found = body?.data?.surveys?.find((survey) => survey._id === id);
    if (found && isWhole(found)) return found;
  }
  return undefined;
}

/** A survey with its chats, questions and answer counts (`populate=true`). */
export function useSurvey(id: string) {
  const client = useQueryClient();
  return useQuery({
    ...surveyQuery(id),
    placeholderData: () => surveyFromLists(client, id),
  });
}

/** The pointer rests on a survey: fetch the full record ahead of the click. */
export function prefetchSurvey(client: QueryClient, id: string): void {
  void client.prefetchQuery(surveyQuery(id));
}

export function useRevisions(id: string, page = 1, limit = 100) {
  return useQuery({
    queryKey: surveyKeys.revisions(id, page, limit),
    queryFn: ({ signal }) =>
      request(surveys.revisions, { params: { id }, query: { page, limit, count: true }, signal }),
    placeholderData: keepPreviousData,
  });
}

/**
 * Whether a code is taken by another survey of the company. The list's `search` is a prefix
 * match on code or name, so an exact match is among its first results.
 */
export function useCodeTaken(code: string, exceptId?: string) {
  return useQuery({
    queryKey: surveyKeys.code(code),
    queryFn: async ({ signal }) => {
      const body = await request(surveys.list, {
        query: { search: code, isActive: "all", select: ["code"], limit: 100 },
        signal,
      });
      return body.data.surveys.filter((survey) => survey.code === code).map((survey) => survey._id);
    },
    enabled: code.length > 0,
    staleTime: 5_000,
    select: (ids) => ids.some((id) => id !== exceptId),
  });
}

export function useCreateSurvey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateSurveyInput) => request(surveys.create, { body }),
    onSuccess: (created) => {
      // Its page shows the answer at once: a new survey has no chats yet, so this is the full
      // record (`populate=true`); marked as old, the page still reads it again.
      client.setQueryData(surveyKeys.detail(created._id), { ...created, chat: created.chat ?? [] }, { updatedAt: 0 });
      // Marked stale, read again where shown next: refetched now, the form's own code check would
      // hold the navigation for a round trip and call the new code taken.
      void client.invalidateQueries({ queryKey: surveyKeys.all, refetchType: "none" });
    },
  });
}

/** The survey as stored, with its `ETag`: what an edit form starts from and sends back in `If-Match`. */
export const fetchSurveyToEdit = (id: string, signal?: AbortSignal) =>
  requestWithTag(surveys.read, { params: { id }, signal });

/** The survey an edit form starts from (without its chats, whose answer has a tag of its own). */
export function useSurveyToEdit(id: string) {
  return useQuery({
    queryKey: surveyKeys.edit(id),
    queryFn: ({ signal }) => fetchSurveyToEdit(id, signal),
    staleTime: 0,
  });
}

/** Who made a survey's latest revision, by name; `null` when the revision or its author is unknown. */
export async function surveyLastSavedBy(id: string): Promise<string | null> {
  const body = await request(surveys.revisions, { params: { id }, query: { limit: 1 } });
  const author = body.data.revisions[0]?.modifiedBy;
  if (!author) return null;
  try {
    return displayName(await request(users.read, { params: { id: author } }));
  } catch {
    return null;
  }
}

/**
 * A PATCH, with `If-Match` when the form knows the tag it loaded (a `412` then means someone else
 * saved first); the answer carries the server's debug notes (warnings of a version migration).
 */
export function useUpdateSurvey(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, ifMatch }: { body: UpdateSurveyInput; ifMatch?: string }) =>
      request(surveys.update, { params: { id }, body, query: { debug: true }, ifMatch }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: surveyKeys.detail(id) });
      await client.invalidateQueries({ queryKey: surveyKeys.all });
    },
  });
}
