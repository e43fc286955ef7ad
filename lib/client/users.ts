/** Typed react-query hooks of the users resource, bound to the operations of lib/resources/users/contract.ts. */
import type { BulkUsersInput, CreateUserBody, UpdateUserBody, UserRecord } from "@/lib/resources/users/contract";
import * as users from "@/lib/resources/users/contract";
import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { request, requestWithTag, type QueryValue } from "./api";

/** A user's reporting lines in a company, as the pages name them. */
export const RELATIONS = [
  { key: "boss", label: "Boss" },
  { key: "peers", label: "Peers" },
  { key: "subordinate", label: "Subordinates" },
] as const;
export type Relation = (typeof RELATIONS)[number]["key"];

export type CreateUserInput = z.input<typeof CreateUserBody>;
export type UpdateUserInput = z.input<typeof UpdateUserBody>;

/**
 * The cache keys of users. Lists start with `"users"` and records with `"user"`, so a change
 * refreshes every list at once (`all`) and a bulk action every record too (`records`).
 */
export const userKeys = {
  all: ["users"] as const,
  list: (query: Record<string, QueryValue>) => ["users", query] as const,
  byId: (ids: string[]) => ["users", "byId", ids] as const,
  records: ["user"] as const,
  detail: (id: string | undefined) => ["user", id] as const,
  /** The record an edit form loaded, with its `ETag`. */
  edit: (id: string | undefined) => ["user", id, "edit"] as const,
  me: ["me"] as const,
};

export function useUserList(query: Record<string, QueryValue>, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: userKeys.list(query),
    queryFn: ({ signal }) => request(users.list, { query, signal }),
    placeholderData: keepPreviousData,
    enabled: options.enabled,
  });
}

const userQuery = (id: string | undefined) => ({
  queryKey: userKeys.detail(id),
  queryFn: ({ signal }: { signal: AbortSignal }): Promise<UserRecord> =>
    request(users.read, { params: { id: id! }, signal }),
});

export function useUser(id: string | undefined) {
  return useQuery({ ...userQuery(id), enabled: Boolean(id) });
}

/**
 * Each user of a list page becomes its record's cache entry, so opening one shows it at once; the
 * entry is marked as old (updated at time 0) so the record page still asks the server and refreshes.
 * An entry already there and as recent (same `modifiedAt`) is left alone.
 */
export function seedUsers(client: QueryClient, users: UserRecord[]): void {
  for (const user of users) {
    const current = client.getQueryData<UserRecord>(userKeys.detail(user._id));
    if (current && current.modifiedAt === user.modifiedAt) continue;
    client.setQueryData(userKeys.detail(user._id), user, { updatedAt: 0 });
  }
}

/** The pointer rests on a user: fetch the record if the cache has nothing fresh. */
export function prefetchUser(client: QueryClient, id: string): void {
  void client.prefetchQuery(userQuery(id));
}

export function useMe() {
  return useQuery({
    queryKey: userKeys.me,
    queryFn: ({ signal }) => request(users.me, { signal }),
    staleTime: 5 * 60_000,
  });
}

/** Users by id (hierarchies, the related-user filter), whatever their active state. */
export function useUsersById(ids: string[]) {
  const sorted = [...new Set(ids)].sort();
  return useQuery({
    queryKey: userKeys.byId(sorted),
    queryFn: ({ signal }) => request(users.list, { query: { id: sorted, isActive: "all", limit: 100 }, signal }),
    enabled: sorted.length > 0,
    select: (body) => new Map(body.data.users.map((user) => [user._id, user])),
  });
}

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ body, notifyEmail }: { body: CreateUserInput; notifyEmail: boolean }) =>
      request(users.create, { body, query: { notifyEmail: notifyEmail || undefined } }),
    onSuccess: (user) => {
      client.setQueryData(userKeys.detail(user._id), user);
      return client.invalidateQueries({ queryKey: userKeys.all });
    },
  });
}

/** The user as stored, with its `ETag`: what an edit form starts from and sends back in `If-Match`. */
export const fetchUserToEdit = (id: string, signal?: AbortSignal) =>
  requestWithTag(users.read, { params: { id }, signal });

/** The user an edit form starts from, always read afresh (not a list's copy): its tag must be current. */
export function useUserToEdit(id: string) {
  return useQuery({ queryKey: userKeys.edit(id), queryFn: ({ signal }) => fetchUserToEdit(id, signal), staleTime: 0 });
}

/** A PATCH, with `If-Match` when the form knows the tag it loaded (a `412` then means someone else saved first). */
export function useUpdateUser(id: string) {
  const client = useQueryClient();
  return useMutation({
    // revokeKeys: false keeps the API keys of an admin this change takes admin power from (docs/security.md#scopes).
    mutationFn: ({ body, ifMatch, revokeKeys }: { body: UpdateUserInput; ifMatch?: string; revokeKeys?: boolean }) =>
      request(users.update, {
        params: { id },
        query: { revokeKeys: revokeKeys === false ? false : undefined },
        body,
        ifMatch,
      }),
    onSuccess: async (user) => {
      client.setQueryData(userKeys.detail(user._id), user);
      await client.invalidateQueries({ queryKey: userKeys.edit(user._id) });
      return client.invalidateQueries({ queryKey: userKeys.all });
    },
  });
}

export function displayName(user: Pick<UserRecord, "name" | "email">): string {
  return user.name?.displayName || [user.name?.names, user.name?.lastName].filter(Boolean).join(" ") || user.email;
}

/** A bulk action on users (docs/api.md#bulk-actions); the lists are read again after it. */
export function useBulkUsers() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: BulkUsersInput) => request(users.bulk, { body }),
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: userKeys.all }),
        client.invalidateQueries({ queryKey: userKeys.records }),
      ]),
  });
}
