"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useSurveyList, type SurveyListQuery } from "@/lib/client/surveys";
import { useSearchBox } from "@/lib/client/use-search-box";
import { useIsAdmin } from "../admin-shell";
import { ErrorMessage } from "../error-message";
import { Pagination } from "../pagination";
import { ActiveBadge, Card, DateTime, EmptyState, LinkButton, ListTable, Loading, PageHeader, SearchField, Select, Spinner, linkClass } from "../ui";
import { VersionBadge } from "./survey-bits";

const PAGE_SIZE = 20;
const STATES = ["true", "false", "all"] as const;

function parse(params: URLSearchParams): SurveyListQuery {
  const isActive = params.get("isActive");
  const page = Number(params.get("page"));
  return {
    search: params.get("search")?.slice(0, 200) ?? "",
    isActive: (STATES as readonly (string | null)[]).includes(isActive) ? (isActive as SurveyListQuery["isActive"]) : "true",
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    limit: PAGE_SIZE,
  };
}

function toSearch(query: SurveyListQuery): string {
  const params = new URLSearchParams();
  if (query.search) params.set("search", query.search);
  if (query.isActive !== "true") params.set("isActive", query.isActive);
  if (query.page > 1) params.set("page", String(query.page));
  return params.size ? `?${params}` : "";
}

export function SurveysList() {
  const params = useSearchParams();
  const query = parse(params);
  const isAdmin = useIsAdmin();
  const show = (next: SurveyListQuery) => window.history.pushState(null, "", `/surveys${toSearch(next)}`);
  const [text, setText] = useSearchBox(query.search ?? "", (search) => show({ ...query, search, page: 1 }));
  const list = useSurveyList(query);
  const body = list.data?.data;
  const total = body?.counter;

  return (
    <>
      <PageHeader
        title="Surveys"
        subtitle="The company's surveys, their chats and questions, and every version of their settings."
        actions={isAdmin !== false && <LinkButton href="/surveys/new" kind="primary">New survey</LinkButton>}
      />
      <Card className="p-4">
        <form role="search" onSubmit={(event) => event.preventDefault()} className="grid gap-4 sm:grid-cols-[1fr_14rem]">
          <SearchField id="surveys-search" hint="The start of a code or a name." value={text} onChange={setText} placeholder="e.g. onboarding" />
          <Select id="surveys-active" label="Status" value={query.isActive} onChange={(isActive) => show({ ...query, isActive: isActive as SurveyListQuery["isActive"], page: 1 })}>
            <option value="true">Active</option>
            <option value="false">Inactive</option>
            <option value="all">Active and inactive</option>
          </Select>
        </form>
      </Card>

      <Card className="mt-6 overflow-hidden">
        <div className="flex items-center gap-2 border-b border-slate-200 px-4 py-3 text-sm text-slate-700" aria-live="polite">
          {total === undefined ? (
            "Counting…"
          ) : (
            <span data-testid="surveys-total">
              <strong className="font-semibold text-slate-900">{total.toLocaleString("en")}</strong> {total === 1 ? "survey" : "surveys"}
            </span>
          )}
          {list.isFetching && !list.isLoading && <Spinner className="size-3.5 text-slate-400" />}
        </div>
        {list.isLoading ? (
          <div className="px-4">
            <Loading label="Loading surveys…" />
          </div>
        ) : list.isError ? (
          <div className="p-4">
            <ErrorMessage error={list.error} title="The surveys could not be loaded" />
          </div>
        ) : body && body.surveys.length === 0 ? (
          <EmptyState title={query.search || query.isActive !== "true" ? "No survey matches" : "No survey yet"}>
            {query.search ? "Try a shorter search, or include inactive surveys." : isAdmin !== false && "Create the first one with “New survey”."}
          </EmptyState>
        ) : (
          body && (
            <ListTable
              caption="Surveys, recently modified first"
              columns={[{ label: "Name" }, { label: "Code" }, { label: "Version" }, { label: "Status" }, { label: "Modified", className: "hidden md:table-cell" }]}
            >
              {body.surveys.map((survey) => (
                <tr key={survey._id} className="hover:bg-slate-50">
                  <td className="max-w-80 px-4 py-2.5">
                    <Link href={`/surveys/${survey._id}`} className={`block truncate ${linkClass}`}>
                      {survey.name}
                    </Link>
                  </td>
                  <td className="px-4 py-2.5 font-mono text-xs text-slate-700">{survey.code}</td>
                  <td className="px-4 py-2.5">{survey.version && <VersionBadge version={survey.version} />}</td>
                  <td className="px-4 py-2.5">{survey.isActive !== undefined && <ActiveBadge active={survey.isActive} />}</td>
                  <td className="hidden whitespace-nowrap px-4 py-2.5 text-slate-600 md:table-cell">
                    <DateTime value={survey.modifiedAt} />
                  </td>
                </tr>
              ))}
            </ListTable>
          )
        )}
        {body && total !== undefined && total > 0 && (
          <Pagination page={query.page} limit={PAGE_SIZE} total={total} shown={body.surveys.length} noun="surveys" onPage={(page) => show({ ...query, page })} />
        )}
      </Card>
    </>
  );
}
