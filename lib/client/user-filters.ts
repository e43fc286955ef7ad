/**
 * The users list's whole view — search, filters, paging, sort — as URL query parameters, so a
 * view can be shared and the back button restores it. Defaults are left out of the URL; values
 * the list would refuse are dropped rather than sent.
 */
import { dayBounds } from "@/lib/base/shared/days";
import { USER_SORTS, type UserSort } from "@/lib/resources/users/contract";
import type { QueryValue } from "./api";

export const PAGE_SIZES = [10, 25, 50, 100] as const;
const ACTIVE_STATES = ["true", "false", "all"] as const;

export interface UserFilters {
  search: string;
  isActive: (typeof ACTIVE_STATES)[number];
  accessRole: string;
  job: string;
  property: string;
  bot: string;
  relatedUser: string;
  /** Exact e-mail addresses, comma-separated as typed. */
  email: string;
  /** Days (`YYYY-MM-DD`, in the company's zone: docs/api.md#days), both ends included. */
  createdFrom: string;
  createdTo: string;
  modifiedFrom: string;
  modifiedTo: string;
  page: number;
  limit: number;
  orderBy: "desc" | "asc";
  /** The column the list is sorted by (docs/api.md#sorting). */
  sort: UserSort;
}

export const DEFAULT_FILTERS: UserFilters = {
  search: "",
  isActive: "true",
  accessRole: "",
  job: "",
  property: "",
  bot: "",
  relatedUser: "",
  email: "",
  createdFrom: "",
  createdTo: "",
  modifiedFrom: "",
  modifiedTo: "",
  page: 1,
  limit: 10,
  orderBy: "desc",
  sort: "modifiedAt",
};

/** Filter field ↔ URL parameter (dates use the list's own parameter names). */
const URL_NAMES: Record<keyof UserFilters, string> = {
  search: "search",
  isActive: "isActive",
  accessRole: "accessRole",
  job: "job",
  property: "property",
  bot: "bot",
  relatedUser: "relatedUser",
  email: "email",
  createdFrom: "created_gte",
  createdTo: "created_lte",
  modifiedFrom: "modified_gte",
  modifiedTo: "modified_lte",
  page: "page",
  limit: "limit",
  orderBy: "orderBy",
  sort: "sort",
};

const ID = /^[0-9a-f]{24}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const isId = (value: string) => ID.test(value);
const isDay = (value: string) => DAY.test(value) && !Number.isNaN(Date.parse(value));

export function parseUserFilters(params: URLSearchParams): UserFilters {
  const get = (key: keyof UserFilters) => params.get(URL_NAMES[key])?.trim() ?? "";
  const pick = (key: keyof UserFilters, valid: (value: string) => boolean) => {
    const value = get(key);
    return valid(value) ? value : "";
  };
  const page = Number(get("page"));
  const limit = Number(get("limit"));
  const isActive = get("isActive");
  return {
    search: params.get("search")?.slice(0, 200) ?? "",
    isActive: (ACTIVE_STATES as readonly string[]).includes(isActive) ? (isActive as UserFilters["isActive"]) : "true",
    accessRole: pick("accessRole", isId),
    job: pick("job", isId),
    property: pick("property", isId),
    bot: pick("bot", isId),
    relatedUser: pick("relatedUser", isId),
    email: get("email").slice(0, 2000),
    createdFrom: pick("createdFrom", isDay),
    createdTo: pick("createdTo", isDay),
    modifiedFrom: pick("modifiedFrom", isDay),
    modifiedTo: pick("modifiedTo", isDay),
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_FILTERS.limit,
    orderBy: get("orderBy") === "asc" ? "asc" : "desc",
    sort: (USER_SORTS as readonly string[]).includes(get("sort")) ? (get("sort") as UserSort) : "modifiedAt",
  };
}

/** The URL query of a view: only what differs from the defaults, in a stable order. */
export function userFiltersToSearch(filters: UserFilters): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(URL_NAMES) as (keyof UserFilters)[]) {
    const value = filters[key];
    if (value === DEFAULT_FILTERS[key] || value === "") continue;
    params.set(URL_NAMES[key], String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A change of anything but the page itself starts again from page 1. */
export function withChange(filters: UserFilters, change: Partial<UserFilters>): UserFilters {
  return { ...filters, page: 1, ...change };
}

function splitEmails(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((email) => email.trim())
    .filter(Boolean)
    .slice(0, 100);
}

/** The `GET /v2/users` query of a view (with the total count); its days are in `zone` (docs/api.md#days). */
export function userListQuery(filters: UserFilters, zone: string): Record<string, QueryValue> {
  const emails = splitEmails(filters.email);
  const created = dayBounds(filters.createdFrom, filters.createdTo, zone);
  const modified = dayBounds(filters.modifiedFrom, filters.modifiedTo, zone);
  return {
    search: filters.search.trim() || undefined,
    isActive: filters.isActive,
    accessRole: filters.accessRole || undefined,
    job: filters.job || undefined,
    property: filters.property || undefined,
    bot: filters.bot ? [filters.bot] : undefined,
    relatedUser: filters.relatedUser || undefined,
    email: emails.length > 0 ? emails : undefined,
    created_gte: created.from,
    created_lte: created.to,
    modified_gte: modified.from,
    modified_lte: modified.to,
    page: filters.page,
    limit: filters.limit,
    orderBy: filters.orderBy,
    sort: filters.sort,
    count: true,
  };
}

/** How many of the filters behind "More filters" are set. */
export function moreFiltersSet(filters: UserFilters): number {
  return (["bot", "relatedUser", "email", "createdFrom", "createdTo", "modifiedFrom", "modifiedTo"] as const).filter(
    (key) => filters[key] !== "",
  ).length;
}
