/** Reference data: the pickers, names in place of ids, and the pages of the four kinds. */
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import type { z } from "zod";
import type {
  AccessRoleRecord,
  BotRecord,
  CreateAccessRoleBody,
  HoldersList,
  JobTitleRecord,
  PropertyRecord,
  UpdateAccessRoleBody,
} from "@/lib/schemas/reference";
import { api } from "./api";

interface ReferenceKinds {
  accessRoles: AccessRoleRecord;
  jobTitles: JobTitleRecord;
  properties: PropertyRecord;
  bots: BotRecord;
}
export type ReferenceKind = keyof ReferenceKinds;
export type ReferenceRecord = ReferenceKinds[ReferenceKind];

/** How the pages name and reach each kind: its API path, its page and the users list's filter of it. */
export const REFERENCE = {
  accessRoles: { path: "/v2/access-roles", href: "/access-roles", one: "access role", title: "Access roles", userFilter: "accessRole" },
  jobTitles: { path: "/v2/job-titles", href: "/job-titles", one: "job title", title: "Job titles", userFilter: "job" },
  properties: { path: "/v2/properties", href: "/properties", one: "property", title: "Properties", userFilter: "property" },
  bots: { path: "/v2/bots", href: "/bots", one: "bot", title: "Bots", userFilter: "bot" },
} as const satisfies Record<ReferenceKind, { path: string; href: string; one: string; title: string; userFilter: string }>;

/** The largest page the reference routes give: a company's whole list in one request. */
const ALL = 1000;

export function useReference<K extends ReferenceKind>(kind: K) {
  return useQuery({
    queryKey: ["reference", kind],
    queryFn: async ({ signal }) => {
      const body = await api<{ data: Record<K, ReferenceKinds[K][]> }>(REFERENCE[kind].path, { query: { limit: ALL }, signal });
      return body.data[kind];
    },
    staleTime: 5 * 60_000,
  });
}

/** id → name of one kind; ids not (yet) known map to undefined. */
export function useReferenceNames(kind: ReferenceKind): Map<string, string> {
  const { data } = useReference(kind);
  return useMemo(() => new Map((data ?? []).map((record) => [record._id, record.name])), [data]);
}

export interface ReferencePageQuery {
  search: string;
  page: number;
  limit: number;
}

type ReferencePage<K extends ReferenceKind> = { data: Record<K, ReferenceKinds[K][]> & { page: number; limit: number; counter?: number } };

const recordKey = (kind: ReferenceKind, id: string) => ["reference", kind, "record", id] as const;

/**
 * A page of a kind's list, with its total. Each record of the page becomes its record's cache
 * entry, marked as old, so its page shows it at once and still asks the server.
 */
export function useReferencePage<K extends ReferenceKind>(kind: K, query: ReferencePageQuery) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: ["reference", kind, "page", query],
    queryFn: ({ signal }) => api<ReferencePage<K>>(REFERENCE[kind].path, { query: { ...query, search: query.search || undefined, count: true }, signal }),
    placeholderData: keepPreviousData,
  });
  const records = list.data?.data[kind];
  useEffect(() => {
    for (const record of records ?? []) {
      const current = client.getQueryData<ReferenceRecord>(recordKey(kind, record._id));
      if (current?.modifiedAt !== record.modifiedAt) client.setQueryData(recordKey(kind, record._id), record, { updatedAt: 0 });
    }
  }, [client, kind, records]);
  return list;
}

const referenceQuery = (kind: ReferenceKind, id: string) => ({
  queryKey: recordKey(kind, id),
  queryFn: ({ signal }: { signal: AbortSignal }) => api<ReferenceRecord>(`${REFERENCE[kind].path}/${id}`, { signal }),
});

export function useReferenceRecord(kind: ReferenceKind, id: string) {
  return useQuery(referenceQuery(kind, id));
}

/** The pointer rests on a record: fetch it if the cache has nothing fresh. */
export function prefetchReference(client: QueryClient, kind: ReferenceKind, id: string): void {
  void client.prefetchQuery(referenceQuery(kind, id));
}

/** How many users hold each of `ids` (counted by the server at each read), by id. */
export function useHolders(kind: ReferenceKind, ids: string[]) {
  return useQuery({
    queryKey: ["reference", kind, "holders", ids],
    queryFn: ({ signal }) => api<HoldersList>(`${REFERENCE[kind].path}/holders`, { query: { id: ids }, signal }),
    enabled: ids.length > 0,
    select: (body) => new Map(body.data.holders.map((entry) => [entry._id, entry.users])),
  });
}

/** The fields a page sends: `isAdmin` only for access roles. */
export type ReferenceInput = z.input<typeof CreateAccessRoleBody> & z.input<typeof UpdateAccessRoleBody>;

export function useSaveReference(kind: ReferenceKind, id?: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ReferenceInput) =>
      id === undefined
        ? api<ReferenceRecord>(REFERENCE[kind].path, { method: "POST", body })
        : api<ReferenceRecord>(`${REFERENCE[kind].path}/${id}`, { method: "PATCH", body }),
    onSuccess: (record) => {
      client.setQueryData(recordKey(kind, record._id), record);
      // The pickers, the pages and (for access roles) who counts as an admin read these lists.
      return client.invalidateQueries({ queryKey: ["reference", kind] });
    },
  });
}
