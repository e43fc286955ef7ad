"use client";

import { DataTable, FilterChips, FiltersToggle, ListTotal, type DataColumn } from "@/components/ui/data-table";
import { prefetchSurvey, useSurveyList, type SurveyListQuery } from "@/lib/client/surveys";
import { useListTotal } from "@/lib/client/use-list-total";
import { useSearchBox } from "@/lib/client/use-search-box";
import { useViewSearch } from "@/lib/client/use-view-search";
import { exportSurveys, SURVEY_SORTS, type SurveyList, type SurveySort } from "@/lib/resources/surveys/contract";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useIsAdmin } from "../admin-shell";
import { ExportButton } from "../export-button";
import { Pagination } from "../pagination";
import { SavedViews } from "../saved-views";
import { ActiveBadge, Card, DateTime, LinkButton, ListView, PageHeader, SearchField, Select } from "../ui";
import { VersionBadge } from "./survey-fields";

const PAGE_SIZES = [10, 20, 50, 100] as const;
const DEFAULT_LIMIT = 20;
const STATES = ["true", "false", "all"] as const;
const STATUS_LABELS: Record<SurveyListQuery["isActive"], string> = {
  true: "Active",
  false: "Inactive",
  all: "Active and inactive",
};

type SurveyRow = SurveyList["data"]["surveys"][number];

/** The list's view as the URL holds it: every field, the order included. */
type ListView = SurveyListQuery & Required<Pick<SurveyListQuery, "sort" | "orderBy">>;

function parse(params: URLSearchParams): ListView {
  const isActive = params.get("isActive");
  const page = Number(params.get("page"));
  const limit = Number(params.get("limit"));
  return {
    search: params.get("search")?.slice(0, 200) ?? "",
    isActive: (STATES as readonly (string | null)[]).includes(isActive)
      ? (isActive as SurveyListQuery["isActive"])
      : "true",
    page: Number.isInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
    limit: (PAGE_SIZES as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
    sort: (SURVEY_SORTS as readonly (string | null)[]).includes(params.get("sort"))
      ? (params.get("sort") as SurveySort)
      : "modifiedAt",
    orderBy: params.get("orderBy") === "asc" ? "asc" : "desc",
  };
}

function toSearch(query: ListView): string {
  const params = new URLSearchParams();
  if (query.search) params.set("search", query.search);
  if (query.isActive !== "true") params.set("isActive", query.isActive);
  if (query.page > 1) params.set("page", String(query.page));
  if (query.limit !== DEFAULT_LIMIT) params.set("limit", String(query.limit));
  if (query.sort !== "modifiedAt") params.set("sort", query.sort);
  if (query.orderBy !== "desc") params.set("orderBy", query.orderBy);
  return params.size ? `?${params}` : "";
}

const columns: DataColumn<SurveyRow>[] = [
  { id: "name", header: "Name", cell: (survey) => survey.name, className: "max-w-80" },
  { id: "code", header: "Code", cell: (survey) => <span className="font-mono text-xs">{survey.code}</span> },
  {
    id: "version",
    header: "Permission model",
    cell: (survey) => survey.version && <VersionBadge version={survey.version} />,
  },
  {
    id: "status",
    header: "Status",
    cell: (survey) => survey.isActive !== undefined && <ActiveBadge active={survey.isActive} />,
  },
  {
    id: "modifiedAt",
    header: "Modified",
    cell: (survey) => <DateTime value={survey.modifiedAt} />,
    className: "whitespace-nowrap",
  },
];
/** The list's orders in words, for the table's caption (docs/api.md#sorting). */
const SURVEY_ORDER_WORDS: Record<SurveySort, Record<"asc" | "desc", string>> = {
  modifiedAt: { desc: "recently modified first", asc: "least recently modified first" },
  name: { asc: "by name, A to Z", desc: "by name, Z to A" },
  code: { asc: "by code, A to Z", desc: "by code, Z to A" },
};
const DATE_SORTS = ["modifiedAt"] as const;
const surveyId = (survey: SurveyRow) => survey._id;
const surveyHref = (survey: SurveyRow) => `/surveys/${survey._id}`;
const surveyLabel = (survey: SurveyRow) => survey.name ?? survey.code ?? survey._id;

export function SurveysList() {
  const { params, show: go } = useViewSearch();
  const query = parse(params);
  const isAdmin = useIsAdmin();
  const client = useQueryClient();
  const [filtersOpen, setFiltersOpen] = useState(false);
  const show = (next: ListView) => go(`/surveys${toSearch(next)}`);
  const [text, setText] = useSearchBox(query.search ?? "", (search) => show({ ...query, search, page: 1 }));
  const list = useSurveyList(query);
  const body = list.data?.data;
  const total = useListTotal(body?.counter, list.isPlaceholderData, query);

  const chips = [
    ...(query.search
      ? [{ key: "search", label: `Search: ${query.search}`, onRemove: () => show({ ...query, search: "", page: 1 }) }]
      : []),
    ...(query.isActive !== "true"
      ? [
          {
            key: "isActive",
            label: `Status: ${STATUS_LABELS[query.isActive]}`,
            onRemove: () => show({ ...query, isActive: "true", page: 1 }),
          },
        ]
      : []),
  ];

  return (
    <>
      <PageHeader
        title="Surveys"
        subtitle="The company's surveys, their chats and questions, and every version of their settings."
        actions={
          isAdmin !== false && (
            <LinkButton href="/surveys/new" kind="primary">
              New survey
            </LinkButton>
          )
        }
      />
      <SavedViews resource="surveys" path="/surveys" />
      <FiltersToggle
        open={filtersOpen}
        onToggle={() => setFiltersOpen((open) => !open)}
        applied={chips.length}
        controls="surveys-filters"
      />
      <Card id="surveys-filters" className={`p-4 ${filtersOpen ? "" : "hidden sm:block"}`}>
        <form
          role="search"
          onSubmit={(event) => event.preventDefault()}
          className="grid gap-4 sm:grid-cols-[1fr_14rem]"
        >
          <SearchField
            id="surveys-search"
            hint="The start of a code or a name."
            value={text}
            onChange={setText}
            placeholder="e.g. onboarding"
          />
          <Select
            id="surveys-active"
            label="Status"
            value={query.isActive}
            onChange={(isActive) => show({ ...query, isActive: isActive as SurveyListQuery["isActive"], page: 1 })}
          >
            <option value="true">Active</option>
            <option value="false">Inactive</option>
            <option value="all">Active and inactive</option>
          </Select>
        </form>
      </Card>
      <FilterChips
        chips={chips}
        onClearAll={() =>
          show({ search: "", isActive: "true", page: 1, limit: query.limit, sort: query.sort, orderBy: query.orderBy })
        }
      />

      <Card className="mt-6 overflow-hidden">
        <ListView
          query={list}
          rows={body?.surveys}
          loading="Loading surveys…"
          error="The surveys could not be loaded"
          inCard
          empty={{
            title: query.search || query.isActive !== "true" ? "No survey matches" : "No survey yet",
            children: query.search
              ? "Try a shorter search, or include inactive surveys."
              : isAdmin !== false && "Create the first one with “New survey”.",
          }}
        >
          {(surveys) => (
            <DataTable
              name="surveys"
              caption={`Surveys, ${SURVEY_ORDER_WORDS[query.sort][query.orderBy]}`}
              rows={surveys}
              columns={columns}
              rowId={surveyId}
              rowHref={surveyHref}
              rowLabel={surveyLabel}
              sort={{
                column: query.sort,
                desc: query.orderBy === "desc",
                columns: SURVEY_SORTS,
                descFirst: DATE_SORTS,
                onChange: (desc, column) =>
                  show({ ...query, orderBy: desc ? "desc" : "asc", sort: column as SurveySort, page: 1 }),
              }}
              onRowIntent={(survey) => prefetchSurvey(client, survey._id)}
              toolbar={
                <>
                  <ListTotal
                    total={total}
                    noun={["survey", "surveys"]}
                    fetching={list.isFetching}
                    refreshing={list.isFetching && !list.isLoading}
                  />
                  {isAdmin !== false && (
                    <ExportButton
                      operation={exportSurveys}
                      query={{
                        search: query.search,
                        isActive: query.isActive,
                        sort: query.sort,
                        orderBy: query.orderBy,
                      }}
                      noun={["survey", "surveys"]}
                    />
                  )}
                </>
              }
            />
          )}
        </ListView>
        {body && total !== undefined && total > 0 && (
          <Pagination
            page={query.page}
            limit={query.limit}
            total={total}
            shown={body.surveys.length}
            noun={["survey", "surveys"]}
            onPage={(page) => show({ ...query, page })}
            pageSizes={PAGE_SIZES}
            onLimit={(limit) => show({ ...query, limit, page: 1 })}
          />
        )}
      </Card>
    </>
  );
}
