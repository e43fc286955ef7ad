"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { useReference, useReferenceNames } from "@/lib/client/reference";
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
import { useSearchBox } from "@/lib/client/use-search-box";
import { displayName, useUserList } from "@/lib/client/users";
import { useIsAdmin } from "../admin-shell";
import { ErrorMessage } from "../error-message";
import { Pagination } from "../pagination";
import { ActiveBadge, Button, Card, DateTime, EmptyState, Field, LinkButton, ListTable, Loading, PageHeader, SearchField, Select, Spinner, inputClass, linkClass } from "../ui";
import { UserPicker } from "./user-picker";

const SEARCH_DEBOUNCE_MS = 300;

/** The users list: its whole view lives in the URL (see lib/client/user-filters.ts). */
export function UsersList() {
  const params = useSearchParams();
  const key = params.toString();
  const filters = useMemo(() => parseUserFilters(new URLSearchParams(key)), [key]);
  const isAdmin = useIsAdmin();

  // Native history calls keep Next's router in step (useSearchParams follows them) without a
  // server round trip; each change is one history entry, so Back restores the previous view.
  const show = (next: UserFilters) => window.history.pushState(null, "", `/users${userFiltersToSearch(next)}`);
  const change = (patch: Partial<UserFilters>) => show(withChange(filters, patch));

  const list = useUserList(userListQuery(filters));
  const roles = useReferenceNames("accessRoles");
  const jobs = useReferenceNames("jobTitles");
  const body = list.data?.data;
  const total = body?.counter;

  return (
    <>
      <PageHeader
        title="Users"
        subtitle="Search, filter and manage the people and bots of your company."
        actions={isAdmin !== false && <LinkButton href="/users/new" kind="primary">New user</LinkButton>}
      />
      <Filters filters={filters} change={change} reset={() => show(DEFAULT_FILTERS)} />

      <Card className="mt-6 overflow-hidden">
        <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
          <p aria-live="polite" className="flex items-center gap-2 text-sm text-slate-700">
            {total === undefined ? (
              <span>Counting…</span>
            ) : (
              <span data-testid="users-total">
                <strong className="font-semibold text-slate-900">{total.toLocaleString("en")}</strong> {total === 1 ? "user" : "users"}
              </span>
            )}
            {list.isFetching && !list.isLoading && <Spinner className="size-3.5 text-slate-400" />}
          </p>
          <div className="flex flex-wrap items-center gap-3">
            <label className="flex items-center gap-2 whitespace-nowrap text-sm text-slate-700">
              Sort
              <select
                value={filters.orderBy}
                onChange={(event) => change({ orderBy: event.target.value as UserFilters["orderBy"] })}
                className={`${inputClass} w-auto py-1.5`}
              >
                <option value="desc">Recently modified first</option>
                <option value="asc">Least recently modified first</option>
              </select>
            </label>
            <label className="flex items-center gap-2 whitespace-nowrap text-sm text-slate-700">
              Per page
              <select value={filters.limit} onChange={(event) => change({ limit: Number(event.target.value) })} className={`${inputClass} w-auto py-1.5`}>
                {PAGE_SIZES.map((size) => (
                  <option key={size} value={size}>
                    {size}
                  </option>
                ))}
              </select>
            </label>
          </div>
        </div>

        {list.isLoading ? (
          <div className="px-4">
            <Loading label="Loading users…" />
          </div>
        ) : list.isError ? (
          <div className="p-4">
            <ErrorMessage error={list.error} title="The users could not be loaded" />
          </div>
        ) : body && body.users.length === 0 ? (
          <EmptyState title={filters.page > 1 && (total ?? 0) > 0 ? "This page is past the end of the list" : "No user matches this view"}>
            {filters.page > 1 && (total ?? 0) > 0 ? (
              <Button onClick={() => show({ ...filters, page: 1 })}>Go to the first page</Button>
            ) : (
              <>Try a shorter search or fewer filters.</>
            )}
          </EmptyState>
        ) : (
          body && (
            <ListTable
              caption={`Users, ${filters.orderBy === "desc" ? "recently modified first" : "least recently modified first"}`}
              columns={[
                { label: "Name" },
                { label: "E-mail", className: "hidden lg:table-cell" },
                { label: "Access roles" },
                { label: "Job title", className: "hidden md:table-cell" },
                { label: "Status" },
                { label: "Modified", className: "hidden md:table-cell" },
              ]}
            >
              {body.users.map((user) => (
                <tr key={user._id} className="hover:bg-slate-50">
                  <td className="max-w-72 px-4 py-2.5">
                    <Link href={`/users/${user._id}`} className={`block truncate ${linkClass}`}>
                      {displayName(user)}
                    </Link>
                    <span className="block truncate text-xs text-slate-500 lg:hidden">{user.email}</span>
                  </td>
                  <td className="hidden max-w-72 truncate px-4 py-2.5 text-slate-700 lg:table-cell">{user.email}</td>
                  <td className="px-4 py-2.5 text-slate-700">{user.accessRoles.map((id) => roles.get(id) ?? "…").join(", ")}</td>
                  <td className="hidden px-4 py-2.5 text-slate-700 md:table-cell">{user.job ? (jobs.get(user.job) ?? "…") : "—"}</td>
                  <td className="px-4 py-2.5">
                    <ActiveBadge active={user.isActive} />
                  </td>
                  <td className="hidden whitespace-nowrap px-4 py-2.5 text-slate-600 md:table-cell">
                    <DateTime value={user.modifiedAt} />
                  </td>
                </tr>
              ))}
            </ListTable>
          )
        )}

        {body && total !== undefined && total > 0 && (
          <Pagination page={filters.page} limit={filters.limit} total={total} shown={body.users.length} noun="users" onPage={(page) => show({ ...filters, page })} />
        )}
      </Card>
    </>
  );
}

function Filters({ filters, change, reset }: { filters: UserFilters; change: (patch: Partial<UserFilters>) => void; reset: () => void }) {
  const roles = useReference("accessRoles");
  const jobs = useReference("jobTitles");
  const properties = useReference("properties");
  const bots = useReference("bots");
  const hidden = moreFiltersSet(filters);
  const [more, setMore] = useState(hidden > 0);
  const [text, setText] = useSearchBox(filters.search, (search) => change({ search }), SEARCH_DEBOUNCE_MS);

  const isDefault = userFiltersToSearch({ ...filters, page: 1, limit: DEFAULT_FILTERS.limit, orderBy: DEFAULT_FILTERS.orderBy }) === "";

  return (
    <Card className="p-4" aria-label="Filters">
      <form role="search" onSubmit={(event) => event.preventDefault()} className="flex flex-col gap-4">
        <div className="flex flex-wrap items-end gap-3">
          <SearchField
            id="users-search"
            className="min-w-60 flex-1"
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
            <Button kind="ghost" onClick={reset} disabled={isDefault && !text}>
              Clear all
            </Button>
          </div>
        </div>
        <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
          <Select id="filter-active" label="Status" value={filters.isActive} onChange={(isActive) => change({ isActive: isActive as UserFilters["isActive"] })}>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
            <option value="all">Active and inactive</option>
          </Select>
          <ReferenceSelect id="filter-role" label="Access role" any="Any access role" value={filters.accessRole} records={roles.data} onChange={(accessRole) => change({ accessRole })} />
          <ReferenceSelect id="filter-job" label="Job title" any="Any job title" value={filters.job} records={jobs.data} onChange={(job) => change({ job })} />
          <ReferenceSelect id="filter-property" label="Property" any="Any property" value={filters.property} records={properties.data} onChange={(property) => change({ property })} />
        </div>
        {more && (
          <div id="more-filters" className="grid grid-cols-2 gap-4 border-t border-slate-100 pt-4 lg:grid-cols-4">
            <ReferenceSelect id="filter-bot" label="Bot" any="Any bot" value={filters.bot} records={bots.data} onChange={(bot) => change({ bot })} />
            <Field id="filter-related" label="Related to user" hint="Boss, peers and subordinates of that user.">
              <UserPicker id="filter-related" label="Related to user" value={filters.relatedUser} onChange={(relatedUser) => change({ relatedUser })} />
            </Field>
            <Field id="filter-email" label="Exact e-mails" className="col-span-2" hint="One or more addresses, separated by commas or spaces.">
              <CommitInput id="filter-email" value={filters.email} onCommit={(email) => change({ email })} placeholder="ana@example.com, jose@example.com" />
            </Field>
            <DateRange label="Created" from={filters.createdFrom} to={filters.createdTo} onChange={(createdFrom, createdTo) => change({ createdFrom, createdTo })} />
            <DateRange label="Modified" from={filters.modifiedFrom} to={filters.modifiedTo} onChange={(modifiedFrom, modifiedTo) => change({ modifiedFrom, modifiedTo })} />
          </div>
        )}
      </form>
    </Card>
  );
}

function ReferenceSelect({
  id,
  label,
  any,
  value,
  records,
  onChange,
}: {
  id: string;
  label: string;
  any: string;
  value: string;
  records: { _id: string; name: string }[] | undefined;
  onChange: (value: string) => void;
}) {
  return (
    <Select id={id} label={label} value={value} onChange={onChange}>
      <option value="">{records ? any : "Loading…"}</option>
      {records?.map((record) => (
        <option key={record._id} value={record._id}>
          {record.name}
        </option>
      ))}
      {value && records && !records.some((record) => record._id === value) && <option value={value}>Unknown ({value.slice(-6)})</option>}
    </Select>
  );
}

/** A text filter applied on Enter or when the field is left, not on every keystroke. */
function CommitInput({ id, value, onCommit, placeholder }: { id: string; value: string; onCommit: (value: string) => void; placeholder?: string }) {
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

function DateRange({ label, from, to, onChange }: { label: string; from: string; to: string; onChange: (from: string, to: string) => void }) {
  const id = `filter-${label.toLowerCase()}`;
  return (
    <fieldset className="col-span-2 flex flex-col gap-1">
      <legend className="mb-1 text-sm font-medium text-slate-800">{label} between</legend>
      <div className="grid grid-cols-2 gap-2">
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          From
          <input id={`${id}-from`} type="date" value={from} max={to || undefined} onChange={(event) => onChange(event.target.value, to)} className={inputClass} />
        </label>
        <label className="flex flex-col gap-1 text-xs text-slate-600">
          To (included)
          <input id={`${id}-to`} type="date" value={to} min={from || undefined} onChange={(event) => onChange(from, event.target.value)} className={inputClass} />
        </label>
      </div>
    </fieldset>
  );
}
