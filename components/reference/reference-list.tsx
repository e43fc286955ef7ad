"use client";

import { DataTable, FilterChips, FiltersToggle, ListTotal, type DataColumn } from "@/components/ui/data-table";
import {
  prefetchReference,
  REFERENCE,
  useHolders,
  useReferencePage,
  type ReferenceKind,
  type ReferencePageQuery,
  type ReferenceRecord,
} from "@/lib/client/reference";
import { useListTotal } from "@/lib/client/use-list-total";
import { useSearchBox } from "@/lib/client/use-search-box";
import { useViewSearch } from "@/lib/client/use-view-search";
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Suspense, useMemo, useState } from "react";
import { useIsAdmin } from "../admin-shell";
import { Pagination } from "../pagination";
import { Badge, Card, DateTime, LinkButton, linkClass, ListView, Loading, PageHeader, SearchField } from "../ui";

const PAGE_SIZES = [10, 20, 50, 100] as const;
const DEFAULT_LIMIT = 20;

function parse(params: URLSearchParams): ReferencePageQuery {
  const page = Number(params.get("page"));
  const limit = Number(params.get("limit"));
  return {
    search: params.get("search")?.slice(0, 200) ?? "",
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
  };
}

function toSearch(query: ReferencePageQuery): string {
  const params = new URLSearchParams();
  if (query.search) params.set("search", query.search);
  if (query.page > 1) params.set("page", String(query.page));
  if (query.limit !== DEFAULT_LIMIT) params.set("limit", String(query.limit));
  return params.size ? `?${params}` : "";
}

/** The users list showing everyone (active or not) who holds the record: what the count counts. */
const holdersHref = (kind: ReferenceKind, id: string) => `/users?${REFERENCE[kind].userFilter}=${id}&isActive=all`;

/** "3 users", linked to them; "None" when nobody holds it; "…" while counted. */
export function HoldersCount({ kind, id, count }: { kind: ReferenceKind; id: string; count: number | undefined }) {
  if (count === undefined) return <span className="text-slate-500">…</span>;
  if (count === 0) return <span className="text-slate-500">None</span>;
  return (
    <Link href={holdersHref(kind, id)} className={linkClass}>
      {count.toLocaleString("en")} {count === 1 ? "user" : "users"}
    </Link>
  );
}

const recordId = (record: ReferenceRecord) => record._id;
const recordLabel = (record: ReferenceRecord) => record.name;

/** The list page of `kind`; it reads its search and page from the URL, hence the Suspense boundary. */
export function ReferenceListPage({ kind }: { kind: ReferenceKind }) {
  return (
    <Suspense fallback={<Loading />}>
      <ReferenceList kind={kind} />
    </Suspense>
  );
}

function ReferenceList({ kind }: { kind: ReferenceKind }) {
  const meta = REFERENCE[kind];
  const { params, show: go } = useViewSearch();
  const query = parse(params);
  const isAdmin = useIsAdmin();
  const client = useQueryClient();
  const [filtersOpen, setFiltersOpen] = useState(false);
  const show = (next: ReferencePageQuery) => go(`${meta.href}${toSearch(next)}`);
  const [text, setText] = useSearchBox(query.search, (search) => show({ ...query, search, page: 1 }));
  const list = useReferencePage(kind, query);
  const records = list.data?.data[kind] as ReferenceRecord[] | undefined;
  const total = useListTotal(list.data?.data.counter, list.isPlaceholderData, query);
  const holders = useHolders(kind, records?.map(recordId) ?? []);
  const noun = [meta.one, `${meta.title.toLowerCase()}`] as const;

  const columns = useMemo<DataColumn<ReferenceRecord>[]>(
    () => [
      { id: "name", header: "Name", cell: (record) => record.name, className: "max-w-80" },
      ...(kind === "accessRoles"
        ? [
            {
              id: "isAdmin",
              header: "Admin role",
              cell: (record: ReferenceRecord) =>
                "isAdmin" in record && record.isAdmin ? (
                  <Badge tone="violet">Yes</Badge>
                ) : (
                  <span className="text-slate-500">No</span>
                ),
            },
          ]
        : []),
      {
        id: "holders",
        header: "Users",
        cell: (record) => (
          <HoldersCount
            kind={kind}
            id={record._id}
            count={holders.isError ? undefined : holders.data?.get(record._id)}
          />
        ),
      },
      {
        id: "modifiedAt",
        header: "Modified",
        cell: (record) => <DateTime value={record.modifiedAt} />,
        className: "whitespace-nowrap",
      },
    ],
    [kind, holders.data, holders.isError],
  );
  const recordHref = useMemo(() => (record: ReferenceRecord) => `${meta.href}/${record._id}`, [meta.href]);
  const chips = query.search
    ? [{ key: "search", label: `Search: ${query.search}`, onRemove: () => show({ ...query, search: "", page: 1 }) }]
    : [];
  const searchId = `${kind}-search`;

  return (
    <>
      <PageHeader
        title={meta.title}
        subtitle={`The company's ${noun[1]}, by name, and how many users hold each.`}
        actions={
          isAdmin !== false && (
            <LinkButton href={`${meta.href}/new`} kind="primary">
              New {meta.one}
            </LinkButton>
          )
        }
      />
      <FiltersToggle
        open={filtersOpen}
        onToggle={() => setFiltersOpen((open) => !open)}
        applied={chips.length}
        controls={`${kind}-filters`}
      />
      <Card id={`${kind}-filters`} className={`p-4 ${filtersOpen ? "" : "hidden sm:block"}`}>
        <form role="search" onSubmit={(event) => event.preventDefault()} className="max-w-xl">
          <SearchField
            id={searchId}
            hint="The start of a name, in any case."
            value={text}
            onChange={setText}
            placeholder="e.g. sales"
          />
        </form>
      </Card>
      <FilterChips chips={chips} onClearAll={() => show({ search: "", page: 1, limit: query.limit })} />

      <Card className="mt-6 overflow-hidden">
        <ListView
          query={list}
          rows={records}
          loading={`Loading ${noun[1]}…`}
          error={`The ${noun[1]} could not be loaded`}
          inCard
          empty={{
            title: query.search ? `No ${meta.one} matches` : `No ${meta.one} yet`,
            children: query.search
              ? "Try a shorter search."
              : isAdmin !== false && `Create the first one with “New ${meta.one}”.`,
          }}
        >
          {(rows) => (
            <DataTable
              name={kind}
              caption={`${meta.title}, by name`}
              rows={rows}
              columns={columns}
              rowId={recordId}
              rowHref={recordHref}
              rowLabel={recordLabel}
              onRowIntent={(record) => prefetchReference(client, kind, record._id)}
              toolbar={
                <ListTotal
                  total={total}
                  noun={noun}
                  fetching={list.isFetching}
                  refreshing={list.isFetching && !list.isLoading}
                />
              }
            />
          )}
        </ListView>
        {records && total !== undefined && total > 0 && (
          <Pagination
            page={query.page}
            limit={query.limit}
            total={total}
            shown={records.length}
            noun={noun}
            onPage={(page) => show({ ...query, page })}
            pageSizes={PAGE_SIZES}
            onLimit={(limit) => show({ ...query, limit, page: 1 })}
          />
        )}
      </Card>
    </>
  );
}
