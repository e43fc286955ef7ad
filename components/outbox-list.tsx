"use client";

import { DataTable, ListTotal, type DataColumn } from "@/components/ui/data-table";
import { useOutbox } from "@/lib/client/outbox";
import { useViewSearch } from "@/lib/client/use-view-search";
import type { OutboxMailRecord } from "@/lib/resources/mail/schemas";
import { useState, type ReactNode } from "react";
import { Pagination } from "./pagination";
import { Button, Card, DateTime, Field, inputClass, linkClass, ListView, PageHeader, Spinner } from "./ui";

const PAGE_SIZE = 20;

const columns: DataColumn<OutboxMailRecord>[] = [
  { id: "subject", header: "Subject", cell: (mail) => mail.subject, className: "max-w-96" },
  { id: "to", header: "To", cell: (mail) => mail.to, className: "max-w-72 truncate" },
  {
    id: "createdAt",
    header: "Kept",
    cell: (mail) => <DateTime value={mail.createdAt} />,
    className: "whitespace-nowrap",
  },
];
const mailId = (mail: OutboxMailRecord) => mail._id;
const mailSubject = (mail: OutboxMailRecord) => mail.subject;

/** The e-mails the server kept instead of sending (SMTP_URL unset), newest first. */
export function OutboxList() {
  const { params, show: go } = useViewSearch();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const to = params.get("to") ?? "";
  const opened = params.get("mail") ?? "";
  const [text, setText] = useState(to);
  const [followed, setFollowed] = useState(to);
  if (to !== followed) {
    setFollowed(to);
    setText(to);
  }
  const outbox = useOutbox({ page, limit: PAGE_SIZE, to: to || undefined });
  const body = outbox.data?.data;
  const mail = body?.mails.find((candidate) => candidate._id === opened);
  /** The mail opens below the list, in the URL so Back closes it. */
  const mailHref = (record: OutboxMailRecord) => {
    const query = new URLSearchParams();
    if (to) query.set("to", to);
    if (page > 1) query.set("page", String(page));
    query.set("mail", record._id);
    return `/outbox?${query}`;
  };

  const show = (next: { page?: number; to?: string }) => {
    const query = new URLSearchParams();
    const recipient = next.to ?? to;
    if (recipient) query.set("to", recipient);
    if ((next.page ?? 1) > 1) query.set("page", String(next.page));
    go(`/outbox${query.size ? `?${query}` : ""}`);
  };

  return (
    <>
      <PageHeader
        title="Outbox"
        subtitle="E-mails the server would have sent. SMTP is not configured (SMTP_URL), so they are kept here instead."
        actions={
          <Button onClick={() => outbox.refetch()} disabled={outbox.isFetching}>
            {outbox.isFetching ? <Spinner className="size-3.5" /> : null} Refresh
          </Button>
        }
      />
      <Card className="mb-6 p-4">
        <form
          role="search"
          className="flex flex-wrap items-end gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            show({ to: text.trim() });
          }}
        >
          <Field id="outbox-to" label="Recipient" className="min-w-60 flex-1">
            <input
              id="outbox-to"
              type="email"
              value={text}
              onChange={(event) => setText(event.target.value)}
              placeholder="name@company.com"
              className={inputClass}
            />
          </Field>
          <Button type="submit">Filter</Button>
          {to && (
            <Button
              kind="ghost"
              onClick={() => {
                setText("");
                show({ to: "" });
              }}
            >
              Show all
            </Button>
          )}
        </form>
      </Card>

      <ListView
        query={outbox}
        rows={body?.mails}
        loading="Loading the outbox…"
        error="The outbox could not be loaded"
        empty={{
          title: to ? `No e-mail to ${to}` : "The outbox is empty",
          children: "Invitations appear here when a user is created with “Send an invitation e-mail”.",
        }}
      >
        {() =>
          body && (
            <>
              <Card className="overflow-hidden">
                <DataTable
                  name="outbox"
                  caption="E-mails kept, newest first"
                  rows={body.mails}
                  columns={columns}
                  rowId={mailId}
                  rowHref={mailHref}
                  rowLabel={mailSubject}
                  toolbar={
                    <ListTotal
                      total={body.counter ?? body.mails.length}
                      noun={["e-mail", "e-mails"]}
                      fetching={outbox.isFetching}
                      refreshing={false}
                    />
                  }
                />
                <Pagination
                  page={page}
                  limit={PAGE_SIZE}
                  total={body.counter}
                  shown={body.mails.length}
                  noun={["e-mail", "e-mails"]}
                  onPage={(next) => show({ page: next })}
                />
              </Card>
              {mail && (
                <Card className="mt-6 overflow-hidden">
                  <Mail mail={mail} />
                </Card>
              )}
            </>
          )
        }
      </ListView>
    </>
  );
}

function Mail({ mail }: { mail: OutboxMailRecord }) {
  return (
    <div className="p-4 sm:p-5">
      <article aria-labelledby={`mail-${mail._id}`}>
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id={`mail-${mail._id}`} className="text-base font-semibold text-slate-900">
            {mail.subject}
          </h2>
          <span className="text-xs text-slate-500">
            <DateTime value={mail.createdAt} />
          </span>
        </div>
        <p className="mt-0.5 text-sm text-slate-600">
          To <span className="font-medium text-slate-800">{mail.to}</span>
        </p>
        <div className="mt-3 rounded-md bg-slate-50 p-3 text-sm break-words whitespace-pre-wrap text-slate-800">
          {linkify(mail.text)}
        </div>
      </article>
    </div>
  );
}

const URL_PATTERN = /(https?:\/\/[^\s<>"]+)/g;

/** The mail's text with its web addresses as links (the text is shown as text, never as HTML). */
function linkify(text: string): ReactNode[] {
  return text.split(URL_PATTERN).map((part, index) =>
    index % 2 === 1 ? (
      <a key={index} href={part} className={`break-all ${linkClass}`} rel="noreferrer">
        {part}
      </a>
    ) : (
      part
    ),
  );
}
