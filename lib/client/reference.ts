/** Reference data: the pickers, names in place of ids, and the pages of the four kinds. */
import * as reference from "@/lib/resources/reference/contract";
import type {
  AccessRoleRecord,
  BotRecord,
  CreateAccessRoleBody,
  JobTitleRecord,
  PropertyRecord,
  UpdateAccessRoleBody,
} from "@/lib/resources/reference/schemas";
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import type { z } from "zod";
import { request } from "./api";

interface ReferenceKinds {
  accessRoles: AccessRoleRecord;
  jobTitles: JobTitleRecord;
  properties: PropertyRecord;
  bots: BotRecord;
}
export type ReferenceKind = keyof ReferenceKinds;
export type ReferenceRecord = ReferenceKinds[ReferenceKind];

/** How the pages name and reach each kind: its page and the users list's filter of it. */
export const REFERENCE = {
  accessRoles: { href: "/access-roles", one: "access role", title: "Access roles", userFilter: "accessRole" },
  jobTitles: { href: "/job-titles", one: "job title", title: "Job titles", userFilter: "job" },
  properties: { href: "/properties", one: "property", title: "Properties", userFilter: "property" },
  bots: { href: "/bots", one: "bot", title: "Bots", userFilter: "bot" },
} as const satisfies Record<ReferenceKind, { href: string; one: string; title: string; userFilter: string }>;

/** Each kind's operations, as its contract declares them (the four kinds alike). */
const OPERATIONS = {
  accessRoles: reference.accessRoles,
  jobTitles: reference.jobTitles,
  properties: reference.properties,
  bots: reference.bots,
} satisfies Record<ReferenceKind, unknown>;

/**
 * The cache keys of reference data: everything of a kind under `["reference", kind]` (its whole
 * list, its pages, its records and holders), refreshed at once after a change of that kind.
 */
const referenceKeys = {
  kind: (kind: ReferenceKind) => ["reference", kind] as const,
  page: (kind: ReferenceKind, query: ReferencePageQuery) => ["reference", kind, "page", query] as const,
  detail: (kind: ReferenceKind, id: string) => ["reference", kind, "record", id] as const,
  holders: (kind: ReferenceKind, ids: string[]) => ["reference", kind, "holders", ids] as const,
};

/** The largest page the reference routes give: a company's whole list in one request. */
const ALL = 1000;

type ReferencePage<K extends ReferenceKind> = {
  data: Record<K, ReferenceKinds[K][]> & { page?: number; limit: number; counter?: number };
};

/** A page of a kind's list, typed by its kind: a kind's list answers its records under the kind's name. */
const listOf: {
  [K in ReferenceKind]: (
    query: { limit: number; page?: number; search?: string; count?: boolean },
    signal: AbortSignal,
  ) => Promise<ReferencePage<K>>;
} = {
  accessRoles: (query, signal) => request(OPERATIONS.accessRoles.list, { query, signal }),
  jobTitles: (query, signal) => request(OPERATIONS.jobTitles.list, { query, signal }),
  properties: (query, signal) => request(OPERATIONS.properties.list, { query, signal }),
  bots: (query, signal) => request(OPERATIONS.bots.list, { query, signal }),
};

export function useReference<K extends ReferenceKind>(kind: K) {
  return useQuery({
    queryKey: referenceKeys.kind(kind),
    queryFn: async ({ signal }) => {
      const body = await listOf[kind]({ limit: ALL }, signal);
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

/**
 * A page of a kind's list, with its total. Each record of the page becomes its record's cache
 * entry, marked as old, so its page shows it at once and still asks the server.
 */
export function useReferencePage<K extends ReferenceKind>(kind: K, query: ReferencePageQuery) {
  const client = useQueryClient();
  const list = useQuery({
    queryKey: referenceKeys.page(kind, query),
    queryFn: ({ signal }) => listOf[kind]({ ...query, search: query.search || undefined, count: true }, signal),
    placeholderData: keepPreviousData,
  });
  const records = list.data?.data[kind];
  useEffect(() => {
    for (const record of records ?? []) {
      const current = client.getQueryData<ReferenceRecord>(referenceKeys.detail(kind, record._id));
      if (current?.modifiedAt !== record.modifiedAt)
        client.setQueryData(referenceKeys.detail(kind, record._id), record, { updatedAt: 0 });
    }
  }, [client, kind, records]);
  return list;
}

const referenceQuery = (kind: ReferenceKind, id: string) => ({
  queryKey: referenceKeys.detail(kind, id),
  queryFn: ({ signal }: { signal: AbortSignal }): Promise<ReferenceRecord> =>
    request(OPERATIONS[kind].read, { params: { id }, signal }),
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
    queryKey: referenceKeys.holders(kind, ids),
    queryFn: ({ signal }) => request(OPERATIONS[kind].holders, { query: { id: ids }, signal }),
    enabled: ids.length > 0,
    select: (body) => new Map(body.data.holders.map((entry) => [entry._id, entry.users])),
  });
}

/** The fields a page sends: `isAdmin` only for access roles. */
export type ReferenceInput = z.input<typeof CreateAccessRoleBody> & z.input<typeof UpdateAccessRoleBody>;

export function useSaveReference(kind: ReferenceKind, id?: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ReferenceInput): Promise<ReferenceRecord> =>
      id === undefined
        ? request(OPERATIONS[kind].create, { body })
        : request(OPERATIONS[kind].update, { params: { id }, body }),
    onSuccess: (record) => {
      client.setQueryData(referenceKeys.detail(kind, record._id), record);
      // The pickers, the pages and (for access roles) who counts as an admin read these lists.
      return client.invalidateQueries({ queryKey: referenceKeys.kind(kind) });
    },
  });
}
