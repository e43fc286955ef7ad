/** Typed react-query hooks of the surveys resource (`/v2/surveys`). */
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import type { Notification } from "@/lib/schemas/common";
import type { CreateSurveyBody, SurveyList, SurveyRecord, SurveyRevisionList, UpdateSurveyBody } from "@/lib/surveys/contract";
import type { UserRecord } from "@/lib/users/contract";
import { api, tagged } from "./api";
import { displayName } from "./users";

export type CreateSurveyInput = z.input<typeof CreateSurveyBody>;
export type UpdateSurveyInput = z.input<typeof UpdateSurveyBody>;

export interface SurveyListQuery {
  search?: string;
  isActive: "true" | "false" | "all";
  page: number;
  limit: number;
}

export function useSurveyList(query: SurveyListQuery, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: ["surveys", query],
    queryFn: ({ signal }) => api<SurveyList>("/v2/surveys", { query: { ...query, search: query.search || undefined, count: true }, signal }),
    placeholderData: keepPreviousData,
    enabled: options.enabled,
  });
}

const surveyQuery = (id: string) => ({
  queryKey: ["survey", id],
  queryFn: ({ signal }: { signal: AbortSignal }) => api<SurveyRecord>(`/v2/surveys/${id}`, { query: { populate: true }, signal }),
});

/**
 * The survey as a list page already holds it (every field but its populated chats), so its page
 * shows at once while the full record loads. Lists read with `select` hold only some fields and
 * are passed over.
 */
export function surveyFromLists(client: QueryClient, id: string): SurveyRecord | undefined {
  for (const [, body] of client.getQueriesData<SurveyList>({ queryKey: ["surveys"] })) {
    const found = body?.data?.surveys?.find((survey) => survey._id === id);
    if (found && found.code !== undefined && found.name !== undefined && found.responders !== undefined && found.__v !== undefined) return found as SurveyRecord;
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
    queryKey: ["survey", id, "revisions", page, limit],
    queryFn: ({ signal }) => api<SurveyRevisionList>(`/v2/surveys/${id}/revisions`, { query: { page, limit, count: true }, signal }),
    placeholderData: keepPreviousData,
  });
}

/**
 * Whether a code is taken by another survey of the company. The list's `search` is a prefix
 * match on code or name, so an exact match is among its first results.
 */
export function useCodeTaken(code: string, exceptId?: string) {
  return useQuery({
    queryKey: ["surveys", "code", code],
    queryFn: async ({ signal }) => {
      const body = await api<SurveyList>("/v2/surveys", { query: { search: code, isActive: "all", select: ["code"], limit: 100 }, signal });
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
    mutationFn: (body: CreateSurveyInput) => api<SurveyRecord>("/v2/surveys", { method: "POST", body }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["surveys"] }),
  });
}

/** The survey as stored, with its `ETag`: what an edit form starts from and sends back in `If-Match`. */
export const fetchSurveyToEdit = (id: string, signal?: AbortSignal) => tagged<SurveyRecord>(`/v2/surveys/${id}`, { signal });

/** The survey an edit form starts from (without its chats, whose answer has a tag of its own). */
export function useSurveyToEdit(id: string) {
  return useQuery({ queryKey: ["survey", id, "edit"], queryFn: ({ signal }) => fetchSurveyToEdit(id, signal), staleTime: 0 });
}

/** Who made a survey's latest revision, by name; `null` when the revision or its author is unknown. */
export async function surveyLastSavedBy(id: string): Promise<string | null> {
  const body = await api<SurveyRevisionList>(`/v2/surveys/${id}/revisions`, { query: { limit: 1 } });
  const author = body.data.revisions[0]?.modifiedBy;
  if (!author) return null;
  try {
    return displayName(await api<UserRecord>(`/v2/users/${author}`));
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
      api<SurveyRecord & { debug?: Notification[] }>(`/v2/surveys/${id}`, { method: "PATCH", body, query: { debug: true }, ifMatch }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["survey", id] });
      await client.invalidateQueries({ queryKey: ["surveys"] });
    },
  });
}
