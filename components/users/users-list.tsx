"use client";

import { DataTable, FilterChips, FiltersToggle, ListTotal, type DataColumn } from "@/components/ui/data-table";
import { queryString } from "@/lib/client/api";
import { useDayZone } from "@/lib/client/company";
import { useReference, useReferenceNames } from "@/lib/client/reference";
import { useListTotal } from "@/lib/client/use-list-total";
import { useSearchBox } from "@/lib/client/use-search-box";
import { useViewSearch } from "@/lib/client/use-view-search";
import {
  DEFAULT_FILTERS,
  PAGE_SIZES,
  moreFiltersSet,
  parseUserFilters,
  userFiltersToSearch,
  userListQuery,
  withChange,
  type UserFilters,
} from "@/lib/client/user-filters";
import { displayName, prefetchUser, seedUsers, useUserList } from "@/lib/client/users";
import { USER_SORTS, exportUsers, type UserRecord, type UserSort } from "@/lib/resources/users/contract";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { useIsAdmin } from "../admin-shell";
import { BreakAt } from "../break-text";
import { DayZoneNote } from "../day-zone-note";
import { ExportButton } from "../export-button";
import { Pagination } from "../pagination";
import { SavedViews } from "../saved-views";
import {
  ActiveBadge,
  Button,
  Card,
  DateTime,
  Field,
  LinkButton,
  ListView,
  PageHeader,
  RecordSelect,
  SearchField,
  Select,
  inputClass,
} from "../ui";
import { BulkActions, useUserSelection } from "./bulk-actions";
import { UserPicker } from "./user-picker";

const SEARCH_DEBOUNCE_MS = 300;

/** The Status filter in words, for its chip. */
const STATUS_LABELS: Record<UserFilters["isActive"], string> = {
  true: "Active",
  false: "Inactive",
  all: "Active and inactive",
};

/** The users list: its whole view lives in the URL (see lib/client/user-filters.ts). */
/** The list's orders in words, for the table's caption (docs/api.md#sorting). */
const USER_ORDER_WORDS: Record<UserSort, Record<"asc" | "desc", string>> = {
  modifiedAt: { desc: "recently modified first", asc: "least recently modified first" },
  createdAt: { desc: "newest first", asc: "oldest first" },
  name: { asc: "by name, A to Z", desc: "by name, Z to A" },
  email: { asc: "by e-mail, A to Z", desc: "by e-mail, Z to A" },
};
const DATE_SORTS = ["modifiedAt", "createdAt"] as const;

export function UsersList() {
  const { params, show: go } = useViewSearch();
  const filters = useMemo(() => parseUserFilters(params), [params]);
  const isAdmin = useIsAdmin();
  const client = useQueryClient();
  const [filtersOpen, setFiltersOpen] = useState(false);

  const show = (next: UserFilters) => go(`/users${userFiltersToSearch(next)}`);
  const change = (patch: Partial<UserFilters>) => show(withChange(filters, patch));

  const zone = useDayZone();
  const list = useUserList(userListQuery(filters, zone));
  const roles = useReferenceNames("accessRoles");
  const jobs = useReferenceNames("jobTitles");
  const properties = useReferenceNames("properties");
  const bots = useReferenceNames("bots");
  const body = list.data?.data;
  const total = useListTotal(body?.counter, list.isPlaceholderData, filters);
  const selection = useUserSelection(userFiltersToSearch({ ...filters, page: 1 }));

  useEffect(() => {
    if (body && !list.isPlaceholderData) seedUsers(client, body.users);
  }, [body, client, list.isPlaceholderData]);

  const chips = filterChips(filters, { roles, jobs, properties, bots }).map((chip) => ({
    ...chip,
    onRemove: () => change({ [chip.key]: DEFAULT_FILTERS[chip.key] }),
  }));
  const clearAll = () =>
    show({ ...DEFAULT_FILTERS, limit: filters.limit, orderBy: filters.orderBy, sort: filters.sort });

  const columns = useMemo<DataColumn<UserRecord>[]>(
    () => [
      { id: "name", header: "Name", cell: (user) => displayName(user), className: "max-w-60" },
      { id: "email", header: "E-mail", cell: (user) => <BreakAt text={user.email} />, className: "max-w-60 truncate" },
      {
        id: "accessRoles",
        header: "Access roles",
        cell: (user) => user.accessRoles.map((id) => roles.get(id) ?? "…").join(", "),
      },
      { id: "job", header: "Job title", cell: (user) => (user.job ? (jobs.get(user.job) ?? "…") : "—") },
      { id: "status", header: "Status", cell: (user) => <ActiveBadge active={user.isActive} /> },
      {
        id: "createdAt",
        header: "Created",
        cell: (user) => <DateTime value={user.createdAt} />,
        className: "whitespace-nowrap",
        hiddenByDefault: true,
      },
      {
        id: "modifiedAt",
        header: "Modified",
        cell: (user) => <DateTime value={user.modifiedAt} />,
        className: "whitespace-nowrap",
      },
    ],
    [roles, jobs],
  );

  return (
    <>
      <PageHeader
        title="Users"
        subtitle="Search, filter and manage the people and bots of your company."
        actions={
          isAdmin !== false && (
            <>
              <LinkButton href="/users/import">Import users</LinkButton>
              <LinkButton href="/users/new" kind="primary">
                New user
              </LinkButton>
            </>
          )
        }
      />
      <SavedViews resource="users" path="/users" />
      <FiltersToggle
        open={filtersOpen}
        onToggle={() => setFiltersOpen((open) => !open)}
        applied={chips.length}
        controls="users-filters"
      />
      <div id="users-filters" className={filtersOpen ? "" : "hidden sm:block"}>
        <Filters filters={filters} change={change} />
      </div>
      <FilterChips chips={chips} onClearAll={clearAll} />

      <Card className="mt-6 overflow-hidden">
        {isAdmin !== false && body && (
          <BulkActions
            selection={selection}
            total={total}
            query={queryString(userListQuery(filters, zone))}
            rows={body.users}
          />
        )}
        <ListView
          query={list}
          rows={body?.users}
          loading="Loading users…"
          error="The users could not be loaded"
          inCard
          empty={
            filters.page > 1 && (total ?? 0) > 0
              ? {
                  title: "This page is past the end of the list",
                  children: <Button onClick={() => show({ ...filters, page: 1 })}>Go to the first page</Button>,
                }
              : { title: "No user matches this view", children: "Try a shorter search or fewer filters." }
          }
        >
          {(users) => (
            <DataTable
              name="users"
              caption={`Users, ${USER_ORDER_WORDS[filters.sort][filters.orderBy]}`}
              rows={users}
              columns={columns}
              rowId={userId}
              rowHref={userHref}
              rowLabel={displayName}
              sort={{
                column: filters.sort,
                desc: filters.orderBy === "desc",
                columns: USER_SORTS,
                descFirst: DATE_SORTS,
                onChange: (desc, column) => change({ orderBy: desc ? "desc" : "asc", sort: column as UserSort }),
              }}
              onRowIntent={(user) => prefetchUser(client, user._id)}
              selection={isAdmin !== false ? selection.table : undefined}
              toolbar={
                <>
                  <ListTotal
                    total={total}
                    noun={["user", "users"]}
                    fetching={list.isFetching}
                    refreshing={list.isFetching && !list.isLoading}
                  />
                  {isAdmin !== false && (
                    <ExportButton
                      operation={exportUsers}
                      query={userListQuery(filters, zone)}
                      noun={["user", "users"]}
                    />
                  )}
                </>
              }
            />
          )}
        </ListView>

        {body && total !== undefined && total > 0 && (
          <Pagination
            page={filters.page}
            limit={filters.limit}
            total={total}
            shown={body.users.length}
            noun={["user", "users"]}
            onPage={(page) => show({ ...filters, page })}
            pageSizes={PAGE_SIZES}
            onLimit={(limit) => change({ limit })}
          />
        )}
      </Card>
    </>
  );
}

const userId = (user: UserRecord) => user._id;
const userHref = (user: UserRecord) => `/users/${user._id}`;

type ChipKey = Exclude<keyof UserFilters, "page" | "limit" | "orderBy">;

/** The applied filters in words, one chip per filter (a date range's two ends are one chip each). */
function filterChips(
  filters: UserFilters,
  names: Record<"roles" | "jobs" | "properties" | "bots", Map<string, string>>,
): { key: ChipKey; label: string }[] {
  const chips: { key: ChipKey; label: string }[] = [];
  const add = (key: ChipKey, label: string) =>
    filters[key] !== DEFAULT_FILTERS[key] && filters[key] !== "" && chips.push({ key, label });
  add("search", `Search: ${filters.search}`);
  add("isActive", `Status: ${STATUS_LABELS[filters.isActive]}`);
  add("accessRole", `Access role: ${names.roles.get(filters.accessRole) ?? "…"}`);
  add("job", `Job title: ${names.jobs.get(filters.job) ?? "…"}`);
  add("property", `Property: ${names.properties.get(filters.property) ?? "…"}`);
  add("bot", `Bot: ${names.bots.get(filters.bot) ?? "…"}`);
  add("relatedUser", "Related to a user");
  add("email", `E-mails: ${filters.email}`);
  add("createdFrom", `Created from ${filters.createdFrom}`);
  add("createdTo", `Created until ${filters.createdTo}`);
  add("modifiedFrom", `Modified from ${filters.modifiedFrom}`);
  add("modifiedTo", `Modified until ${filters.modifiedTo}`);
  return chips;
}

function Filters({ filters, change }: { filters: UserFilters; change: (patch: Partial<UserFilters>) => void }) {
  const roles = useReference("accessRoles");
  const jobs = useReference("jobTitles");
  const properties = useReference("properties");
  const bots = useReference("bots");
  const hidden = moreFiltersSet(filters);
  const [more, setMore] = useState(hidden > 0);
  const [text, setText] = useSearchBox(filters.search, (search) => change({ search }), SEARCH_DEBOUNCE_MS);

  return (
    <Card className="p-4" aria-label="Filters">
      <form role="search" onSubmit={(event) => event.preventDefault()} className="flex flex-col gap-4">
        <div className="flex flex-wrap items-end gap-3">
          <SearchField
            id="users-search"
            className="min-w-0 flex-1 basis-60"
            hint="Name or e-mail; every word matches the start of a name part or e-mail part."
            value={text}
            onChange={setText}
            placeholder="e.g. ana pérez or acme"
          />
          <div className="flex gap-2 pb-5">
            <Button onClick={() => setMore((open) => !open)} aria-expanded={more} aria-controls="more-filters">
              {more ? "Fewer filters" : "More filters"}
              {hidden > 0 && <span className="rounded-full bg-sky-100 px-1.5 text-xs text-sky-800">{hidden}</span>}
            </Button>
          </div>
        </div>
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <Select
            id="filter-active"
            label="Status"
            value={filters.isActive}
            onChange={(isActive) => change({ isActive: isActive as UserFilters["isActive"] })}
          >
            <option value="true">Active</option>
            <option value="false">Inactive</option>
            <option value="all">Active and inactive</option>
          </Select>
          <RecordSelect
            id="filter-role"
            label="Access role"
            empty="Any access role"
            value={filters.accessRole}
            records={roles.data}
            onChange={(accessRole) => change({ accessRole })}
          />
          <RecordSelect
            id="filter-job"
            label="Job title"
            empty="Any job title"
            value={filters.job}
            records={jobs.data}
            onChange={(job) => change({ job })}
          />
          <RecordSelect
            id="filter-property"
            label="Property"
            empty="Any property"
            value={filters.property}
            records={properties.data}
            onChange={(property) => change({ property })}
          />
        </div>
        {more && (
          <div
            id="more-filters"
            className="grid grid-cols-1 gap-4 border-t border-slate-100 pt-4 sm:grid-cols-2 lg:grid-cols-4"
          >
            <RecordSelect
              id="filter-bot"
              label="Bot"
              empty="Any bot"
              value={filters.bot}
              records={bots.data}
              onChange={(bot) => change({ bot })}
            />
            <Field id="filter-related" label="Related to user" hint="Boss, peers and subordinates of that user.">
              <UserPicker
                id="filter-related"
                label="Related to user"
                value={filters.relatedUser}
                onChange={(relatedUser) => change({ relatedUser })}
              />
            </Field>
            <Field
              id="filter-email"
              label="Exact e-mails"
              className="sm:col-span-2"
              hint="One or more addresses, separated by commas or spaces."
            >
              <CommitInput
                id="filter-email"
                value={filters.email}
                onCommit={(email) => change({ email })}
                placeholder="ana@example.com, jose@example.com"
              />
            </Field>
            <DateRange
              label="Created"
              from={filters.createdFrom}
              to={filters.createdTo}
              onChange={(createdFrom, createdTo) => change({ createdFrom, createdTo })}
            />
            <DateRange
              label="Modified"
              from={filters.modifiedFrom}
              to={filters.modifiedTo}
              onChange={(modifiedFrom, modifiedTo) => change({ modifiedFrom, modifiedTo })}
            />
            <DayZoneNote className="sm:col-span-2" />
          </div>
        )}
      </form>
    </Card>
  );
}

/** A text filter applied on Enter or when the field is left, not on every keystroke. */
function CommitInput({
  id,
  value,
  onCommit,
  placeholder,
}: {
  id: string;
  value: string;
  onCommit: (value: string) => void;
  placeholder?: string;
}) {
  const [text, setText] = useState(value);
  const [followed, setFollowed] = useState(value);
  if (value !== followed) {
    setFollowed(value);
    setText(value);
  }
  const commit = () => text.trim() !== value && onCommit(text.trim());
  return (
    <input
      id={id}
      type="text"
      value={text}
      placeholder={placeholder}
      onChange={(event) => setText(event.target.value)}
      onBlur={commit}
      onKeyDown={(event) => event.key === "Enter" && commit()}
      aria-describedby={`${id}-hint`}
      className={inputClass}
    />
  );
}

function DateRange({
  label,
  from,
  to,
  onChange,
}: {
  label: string;
  from: string;
  to: string;
  onChange: (from: string, to: string) => void;
}) {
  const id = `filter-${label.toLowerCase()}`;
  return (
    <fieldset className="flex flex-col gap-1 sm:col-span-2">
      <legend className="mb-1 text-sm font-medium text-slate-800">{label} between</legend>
      <div className="grid grid-cols-2 gap-2">
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          From
          <input
            id={`${id}-from`}
            type="date"
            value={from}
            max={to || undefined}
            onChange={(event) => onChange(event.target.value, to)}
            className={inputClass}
          />
        </label>
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          To (included)
          <input
            id={`${id}-to`}
            type="date"
            value={to}
            min={from || undefined}
            onChange={(event) => onChange(from, event.target.value)}
            className={inputClass}
          />
        </label>
      </div>
    </fieldset>
  );
}
