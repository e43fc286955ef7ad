"use client";

/**
 * Every answer to a survey, newest first, on the one data table: by question, by words inside
 * text answers, by date range (all in the URL), a page at a time by the API's cursor.
 */
import { DataTable, ListTotal, type DataColumn } from "@/components/ui/data-table";
import { useDayZone } from "@/lib/client/company";
import { QUESTION_TYPE_LABELS } from "@/lib/client/content-draft";
import { parseRange, searchOf, useAnswers } from "@/lib/client/survey-content";
import { useSurvey } from "@/lib/client/surveys";
import { useSearchBox } from "@/lib/client/use-search-box";
import { useViewSearch } from "@/lib/client/use-view-search";
import type { AnswerRecord } from "@/lib/resources/answers/contract";
import { useState } from "react";
import { BackLink, Button, Card, DateTime, ListView, PageHeader, SearchField, Select } from "../ui";
import { SurveyTabs } from "./survey-tabs";

const LIMIT = 20;
const OBJECT_ID = /^[0-9a-f]{24}$/;

/** An answer's value as a line of text. */
function answerText(answer: Pick<AnswerRecord, "type" | "value">): string {
  const { type, value } = answer;
  if (value === null) return "—";
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (type === "date" && typeof value === "string") return value.slice(0, 10);
  return String(value);
}

export function SurveyAnswers({ id }: { id: string }) {
  const { params, show: go } = useViewSearch();
  const range = parseRange(params);
  const questionParam = params.get("question");
  const question = questionParam && OBJECT_ID.test(questionParam) ? questionParam : undefined;
  const search = params.get("search")?.slice(0, 200) ?? "";
  const survey = useSurvey(id);
  // The cursors of the pages walked so far: Back steps to the one before.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const show = (next: { question?: string; search?: string }) => {
    setCursors([]);
    go(
      `/surveys/${id}/answers${searchOf({ question: next.question, search: next.search, from: range.from, to: range.to })}`,
    );
  };
  const [text, setText] = useSearchBox(search, (value) => show({ question, search: value.trim() }));
  const answers = useAnswers(id, { ...range, question, search: search || undefined, cursor, limit: LIMIT });
  const rows = answers.data?.data.answers ?? [];

  const questions = (survey.data?.chat ?? []).flatMap((chat) => chat.questions.map((q) => ({ ...q, chat: chat.name })));
  const textOf = new Map(questions.map((q) => [q._id, q.text]));
  const columns: DataColumn<AnswerRecord>[] = [
    { id: "user", header: "Respondent", cell: () => null },
    {
      id: "value",
      header: "Answer",
      cell: (answer) => <span className="line-clamp-3 break-words whitespace-pre-wrap">{answerText(answer)}</span>,
      className: "max-w-96",
    },
    {
      id: "question",
      header: "Question",
      cell: (answer) => textOf.get(answer.question) ?? "Removed question",
      className: "max-w-72",
    },
    { id: "type", header: "Type", cell: (answer) => QUESTION_TYPE_LABELS[answer.type], hiddenByDefault: true },
    {
      id: "createdAt",
      header: "Answered",
      cell: (answer) => <DateTime value={answer.createdAt} />,
      className: "whitespace-nowrap",
    },
  ];
  const zone = useDayZone();
  // The days are the company's (docs/api.md#days), and the page says so.
  const period =
    range.from || range.to ? ` from ${range.from ?? "the start"} to ${range.to ?? "now"} (days in ${zone})` : "";

  return (
    <>
      <PageHeader
        back={
          <BackLink href={`/surveys/${id}/results${searchOf({ from: range.from, to: range.to })}`}>Results</BackLink>
        }
        title={survey.data ? `Answers to ${survey.data.name}` : "Answers"}
        subtitle={`Newest first${period}.`}
      />
      <SurveyTabs id={id} />
      <Card className="p-4">
        <form
          role="search"
          onSubmit={(event) => event.preventDefault()}
          className="grid gap-4 sm:grid-cols-[1fr_18rem]"
        >
          <SearchField
            id="answers-search"
            hint="Words inside text answers."
            value={text}
            onChange={setText}
            placeholder="e.g. onboarding"
          />
          <Select
            id="answers-question"
            label="Question"
            value={question ?? ""}
            onChange={(value) => show({ question: value || undefined, search })}
          >
            <option value="">All questions</option>
            {questions.map((q) => (
              <option key={q._id} value={q._id}>
                {q.chat}: {q.text}
              </option>
            ))}
          </Select>
        </form>
      </Card>
      <Card className="mt-6 overflow-hidden">
        <ListView
          query={answers}
          rows={rows}
          loading="Loading the answers…"
          error="The answers could not be loaded"
          inCard
          empty={{
            title: search || question ? "No answer matches" : "No answer yet",
            children: search
              ? "Search looks inside text answers only."
              : "Answers appear here once respondents send them.",
          }}
        >
          {(rows) => (
            <DataTable
              name="survey-answers"
              caption="Answers, newest first"
              rows={rows}
              columns={columns}
              rowId={(answer) => answer.uuid}
              rowHref={(answer) => (answer.user ? `/users/${answer.user._id}` : `/surveys/${id}`)}
              rowLabel={(answer) => answer.user?.displayName ?? "Unknown respondent"}
              toolbar={
                <ListTotal
                  total={undefined}
                  noun={["answer", "answers"]}
                  fetching={false}
                  refreshing={answers.isFetching}
                />
              }
            />
          )}
        </ListView>
        {(cursors.length > 0 || answers.data?.data.next) && (
          <nav
            aria-label="Pages of answers"
            className="flex items-center justify-between gap-3 border-t border-slate-200 px-4 py-3"
          >
            <Button onClick={() => setCursors((list) => list.slice(0, -1))} disabled={cursors.length === 0}>
              Newer answers
            </Button>
            <span className="text-sm text-slate-600">Page {cursors.length + 1}</span>
            <Button
              onClick={() => answers.data?.data.next && setCursors((list) => [...list, answers.data!.data.next!])}
              disabled={!answers.data?.data.next}
            >
              Older answers
            </Button>
          </nav>
        )}
      </Card>
    </>
  );
}
