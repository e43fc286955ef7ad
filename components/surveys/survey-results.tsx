"use client";

/**
 * The Results tab: totals, then one chart per question (bars for choices, yes/no and ratings, a
 * histogram for numbers and dates, the latest text answers), each also readable as a table, for
 * the date range in the URL. The figures are the API's, computed by the database.
 */
import { ErrorMessage } from "@/components/ui/error-message";
import { ErrorState } from "@/components/ui/error-state";
import { dayLabel } from "@/lib/base/shared/days";
import { download } from "@/lib/client/api";
import { useDayZone } from "@/lib/client/company";
import { QUESTION_TYPE_LABELS } from "@/lib/client/content-draft";
import { parseRange, rangeQuery, searchOf, useResults, type DateRange } from "@/lib/client/survey-content";
import { useSurvey } from "@/lib/client/surveys";
import { useViewSearch } from "@/lib/client/use-view-search";
import { exportCsv, type QuestionResult, type SurveyResults as Results } from "@/lib/resources/answers/contract";
import type { SurveyRecord } from "@/lib/resources/surveys/contract";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { DayZoneNote } from "../day-zone-note";
import {
  BackLink,
  Badge,
  Button,
  Card,
  DateTime,
  EmptyState,
  Field,
  Loading,
  PageHeader,
  Spinner,
  inputClass,
  linkClass,
} from "../ui";
import { ResultChart, type ChartRow } from "./result-chart";
import { SurveyTabs } from "./survey-tabs";

const number = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
// A date question's answers are calendar days (stored as their UTC midnight), not instants: their
// months are read in UTC whatever the company's zone, unlike the period's days below.
const monthFormat = new Intl.DateTimeFormat("en-GB", { month: "short", year: "numeric", timeZone: "UTC" });

export function SurveyResults({ id }: { id: string }) {
  const { params, show: go } = useViewSearch();
  const range = parseRange(params);
  const survey = useSurvey(id);
  const results = useResults(id, range);
  const show = (next: DateRange) => go(`/surveys/${id}/results${searchOf({ from: next.from, to: next.to })}`);

  return (
    <>
      <PageHeader
        back={<BackLink href="/surveys">Surveys</BackLink>}
        title={survey.data ? `Results of ${survey.data.name}` : "Results"}
        subtitle="Every question’s answers at a glance. Each chart can also be read as a table."
        actions={<CsvButton id={id} range={range} code={survey.data?.code} />}
      />
      <SurveyTabs id={id} />
      <RangeForm key={`${range.from}:${range.to}`} range={range} onApply={show} />
      {results.isLoading ? (
        <Loading label="Loading the results…" />
      ) : !results.data ? (
        <ErrorState
          error={results.error}
          title="The results could not be loaded"
          onRetry={() => results.refetch()}
          retrying={results.isFetching}
        />
      ) : (
        <ResultsView
          id={id}
          results={results.data}
          survey={survey.data}
          refreshing={results.isFetching}
          range={range}
        />
      )}
    </>
  );
}

function CsvButton({ id, range, code }: { id: string; range: DateRange; code?: string }) {
  const zone = useDayZone();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function save() {
    setBusy(true);
    setError(undefined);
    try {
      await download(exportCsv, { params: { id }, query: rangeQuery(range, zone) }, `${code ?? "survey"}-answers.csv`);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="flex flex-col items-end gap-2">
      <Button onClick={save} disabled={busy}>
        {busy && <Spinner className="size-3.5" />}
        Download answers (CSV)
      </Button>
      {error !== undefined && <ErrorMessage error={error} title="The answers could not be downloaded" />}
    </div>
  );
}

function RangeForm({ range, onApply }: { range: DateRange; onApply: (range: DateRange) => void }) {
  const [from, setFrom] = useState(range.from ?? "");
  const [to, setTo] = useState(range.to ?? "");
  const wrong = from && to && from > to ? "The first day must not be after the last." : undefined;
  function apply(event: FormEvent) {
    event.preventDefault();
    if (!wrong) onApply({ from: from || undefined, to: to || undefined });
  }
  return (
    <Card className="mb-6 p-4">
      <form onSubmit={apply} noValidate className="flex flex-wrap items-end gap-4">
        <Field id="results-from" label="From (first day)" className="w-full sm:w-48">
          <input
            id="results-from"
            type="date"
            value={from}
            onChange={(event) => setFrom(event.target.value)}
            className={inputClass}
          />
        </Field>
        <Field id="results-to" label="To (last day)" error={wrong} className="w-full sm:w-48">
          <input
            id="results-to"
            type="date"
            value={to}
            onChange={(event) => setTo(event.target.value)}
            aria-invalid={wrong ? true : undefined}
            aria-describedby={wrong ? "results-to-error" : undefined}
            className={inputClass}
          />
        </Field>
        <DayZoneNote className="w-full" />
        <div className="flex gap-2">
          <Button type="submit" kind="primary">
            Show
          </Button>
          {(range.from || range.to) && (
            <Button
              onClick={() => {
                setFrom("");
                setTo("");
                onApply({});
              }}
            >
              All time
            </Button>
          )}
        </div>
        <p className="basis-full text-xs text-slate-500">Both days included.</p>
      </form>
    </Card>
  );
}

/** The filter's days, printed in the zone they were chosen in: the company's (docs/api.md#days). */
const period = (results: Results, zone: string) =>
  results.from || results.to
    ? `${results.from ? dayLabel(results.from, zone) : "the start"} – ${results.to ? dayLabel(results.to, zone) : "now"}`
    : "All time";

function ResultsView({
  id,
  results,
  survey,
  refreshing,
  range,
}: {
  id: string;
  results: Results;
  survey?: SurveyRecord;
  refreshing: boolean;
  range: DateRange;
}) {
  const zone = useDayZone();
  const chats = survey?.chat ?? [];
  const chatName = new Map(chats.map((chat) => [chat._id, chat.name]));
  // In the order of the content: chat by chat, removed questions after the rest.
  const groups: { key: string; name: string; questions: QuestionResult[] }[] = [];
  for (const question of results.questions) {
    const key = question.removed ? "removed" : question.chat;
    let group = groups.find((g) => g.key === key);
    if (!group) {
      group = {
        key,
        name: question.removed ? "Removed questions" : (chatName.get(question.chat) ?? "Chat"),
        questions: [],
      };
      groups.push(group);
    }
    group.questions.push(question);
  }
  groups.sort((a, b) => (a.key === "removed" ? 1 : b.key === "removed" ? -1 : 0));

  return (
    <>
      <Card className="mb-6 p-5" aria-label="Totals">
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4" data-testid="results-totals">
          <Total label="Responses" value={results.responses.toLocaleString("en")} testId="total-responses" />
          <Total label="Answers" value={results.answers.toLocaleString("en")} testId="total-answers" />
          <Total label="Questions" value={String(results.questions.filter((q) => !q.removed).length)} />
          <Total label="Period" value={period(results, zone)} />
        </dl>
        <p aria-live="polite" className="mt-2 h-4 text-xs text-slate-500">
          {refreshing && "Updating…"}
        </p>
      </Card>
      {results.questions.length === 0 ? (
        <Card>
          <EmptyState title="No question yet">
            Write questions under{" "}
            <Link href={`/surveys/${id}/questions`} className={linkClass}>
              Questions
            </Link>
            , then answer them in the{" "}
            <Link href={`/surveys/${id}/preview`} className={linkClass}>
              Preview
            </Link>
            .
          </EmptyState>
        </Card>
      ) : (
        groups.map((group) => (
          <section key={group.key} className="mb-8" aria-labelledby={`group-${group.key}`}>
            <h2 id={`group-${group.key}`} className="mb-3 text-lg font-semibold text-slate-900">
              {group.name}
            </h2>
            <ol className="grid gap-4 xl:grid-cols-2">
              {group.questions.map((question) => (
                <li key={question._id}>
                  <QuestionCard id={id} question={question} range={range} />
                </li>
              ))}
            </ol>
          </section>
        ))
      )}
    </>
  );
}

function Total({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div>
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{label}</dt>
      <dd className="mt-1 text-xl font-semibold text-slate-900 tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

const isoDay = (value: string) => value.slice(0, 10);

function QuestionCard({ id, question, range }: { id: string; question: QuestionResult; range: DateRange }) {
  const answersHref = `/surveys/${id}/answers${searchOf({ question: question._id, from: range.from, to: range.to })}`;
  return (
    <Card className="h-full p-4 sm:p-5" data-testid="question-result">
      <div className="mb-3 flex flex-wrap items-start justify-between gap-2">
        <h3 className="min-w-0 font-medium break-words text-slate-900">{question.text}</h3>
        <span className="flex flex-wrap gap-1.5">
          <Badge>{QUESTION_TYPE_LABELS[question.type]}</Badge>
          {question.removed && <Badge tone="amber">Removed</Badge>}
        </span>
      </div>
      <p className="mb-3 text-sm text-slate-600">
        <span data-testid="question-answered">{question.answered.toLocaleString("en")}</span>{" "}
        {question.answered === 1 ? "answer" : "answers"}
        {question.answered > 0 && (
          <>
            {" · "}
            <Link href={answersHref} className={linkClass}>
              See all answers<span className="sr-only"> to “{question.text}”</span>
            </Link>
          </>
        )}
      </p>
      {question.answered === 0 ? (
        <p className="text-sm text-slate-500">No answers in this period.</p>
      ) : (
        <Summary question={question} />
      )}
    </Card>
  );
}

function Summary({ question }: { question: QuestionResult }) {
  const summary = question.summary;
  const chart = (rows: ChartRow[], shape: "bars" | "columns", labelHeader: string) => (
    <ResultChart
      rows={rows}
      shape={shape}
      title={question.text}
      labelHeader={labelHeader}
      answered={question.answered}
    />
  );

  if ("counts" in summary) {
    const label = (option: string) =>
      question.type === "yes_no" ? (option === "true" ? "Yes" : option === "false" ? "No" : option) : option;
    return chart(
      summary.counts.map((count) => ({ label: label(count.option), count: count.count })),
      "bars",
      "Option",
    );
  }
  if ("latest" in summary) {
    return (
      <div>
        <h4 className="mb-2 text-xs font-medium tracking-wide text-slate-500 uppercase">Latest answers</h4>
        <ul className="flex flex-col gap-2">
          {summary.latest.map((answer, index) => (
            <li key={index} className="rounded-md border border-slate-200 px-3 py-2 text-sm">
              <p className="break-words whitespace-pre-wrap text-slate-800">{answer.value}</p>
              <p className="mt-1 text-xs text-slate-500">
                <DateTime value={answer.createdAt} />
              </p>
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if ("mean" in summary) {
    const whole = question.type === "rating";
    const rows = summary.histogram.map((bin) => ({
      label:
        whole || bin.from === bin.to ? number.format(bin.from) : `${number.format(bin.from)}–${number.format(bin.to)}`,
      count: bin.count,
    }));
    return (
      <div>
        <Stats
          items={[
            ["Lowest", summary.min],
            ["Highest", summary.max],
            ["Mean", summary.mean],
            ["Median", summary.median],
          ].map(([label, value]) => [String(label), value === null ? "—" : number.format(Number(value))])}
        />
        {chart(rows, question.type === "rating" ? "bars" : "columns", question.type === "rating" ? "Rating" : "Range")}
      </div>
    );
  }
  const rows = summary.histogram.map((bin) => ({ label: monthFormat.format(new Date(bin.from)), count: bin.count }));
  return (
    <div>
      <Stats
        items={[
          ["Earliest", summary.min ? isoDay(summary.min) : "—"],
          ["Latest", summary.max ? isoDay(summary.max) : "—"],
        ]}
      />
      {chart(rows, "columns", "Month")}
    </div>
  );
}

function Stats({ items }: { items: [string, string][] }) {
  return (
    <dl className="mb-3 flex flex-wrap gap-x-6 gap-y-1 text-sm">
      {items.map(([label, value]) => (
        <div key={label} className="flex gap-1.5">
          <dt className="text-slate-500">{label}</dt>
          <dd className="font-medium text-slate-900 tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
