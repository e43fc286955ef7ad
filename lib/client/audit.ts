/** Typed react-query hooks of the audit log (lib/resources/audit/contract.ts), and the words the pages use for it. */
import { dayBounds } from "@/lib/base/shared/days";
import type { AuditEntry } from "@/lib/resources/audit/contract";
import * as audit from "@/lib/resources/audit/contract";
import { useInfiniteQuery } from "@tanstack/react-query";
import { request } from "./api";
import { useDayZone } from "./company";

const PAGE = 50;

/** The filters of the Activity page, as its URL holds them (dates as `YYYY-MM-DD`, local days). */
export interface AuditFilters {
  resourceType?: string;
  resourceId?: string;
  actorId?: string;
  action?: string;
  from?: string;
  to?: string;
}

const FILTER_KEYS = ["resourceType", "resourceId", "actorId", "action", "from", "to"] as const;

export function filtersOf(params: URLSearchParams): AuditFilters {
  return Object.fromEntries(
    FILTER_KEYS.flatMap((key) => (params.get(key) ? [[key, params.get(key)!]] : [])),
  ) as AuditFilters;
}

export function searchOf(filters: AuditFilters, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, ...extra })) if (value) params.set(key, value);
  return params.size ? `?${params}` : "";
}

/** The cache keys of the audit log: one per set of filters (the API's bounds, not the URL's days). */
const auditKeys = {
  all: ["audit"] as const,
  list: (query: Record<string, string | undefined>) => ["audit", query] as const,
};

/** The log, newest first, a page at a time by cursor ("Load more"). */
export function useAuditLog(filters: AuditFilters, options: { enabled?: boolean } = {}) {
  // The days of the filter are the company's (docs/api.md#days).
  const days = dayBounds(filters.from, filters.to, useDayZone());
  const query = {
    resourceType: filters.resourceType,
    resourceId: filters.resourceId,
    actorId: filters.actorId,
    action: filters.action,
    from: days.from,
    to: days.to,
  };
  return useInfiniteQuery({
    queryKey: auditKeys.list(query),
    queryFn: ({ signal, pageParam }) =>
      request(audit.list, { query: { ...query, limit: PAGE, cursor: pageParam }, signal }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.data.next ?? undefined,
    enabled: options.enabled ?? true,
    staleTime: 0,
  });
}

/** Each kind of record, in words, and where its page is. */
export const RESOURCE_WORDS: Record<AuditEntry["resource"]["type"], { one: string; href: (id: string) => string }> = {
  user: { one: "user", href: (id) => `/users/${id}` },
  survey: { one: "survey", href: (id) => `/surveys/${id}` },
  accessRole: { one: "access role", href: (id) => `/access-roles/${id}` },
  jobTitle: { one: "job title", href: (id) => `/job-titles/${id}` },
  property: { one: "property", href: (id) => `/properties/${id}` },
  bot: { one: "bot", href: (id) => `/bots/${id}` },
  apiKey: { one: "API key", href: () => "/api-keys" },
  webhook: { one: "webhook", href: (id) => `/webhooks/${id}` },
};

const VERBS: Record<string, string> = { created: "Created", updated: "Changed", deleted: "Deleted" };
const AUTH_WORDS: Record<string, string> = {
  "auth.signedIn": "Signed in",
  "auth.signInFailed": "Failed sign-in",
  "auth.signedOut": "Signed out",
};

/** An action in plain words: "Changed user", "Signed in". */
export function actionWords(action: string): string {
  if (AUTH_WORDS[action]) return AUTH_WORDS[action];
  const [resource, verb] = action.split(".");
  const words = RESOURCE_WORDS[resource as keyof typeof RESOURCE_WORDS];
  return `${VERBS[verb] ?? verb} ${words?.one ?? resource}`;
}

/** A value of a change as a person reads it. */
export function valueWords(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (Array.isArray(value) && value.length === 0) return "none";
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.join(", ");
  return JSON.stringify(value);
}
