"use client";

/**
 * Audit entries on the data table, newest first (older ones on request): when, who, what in plain
 * words, the record (linking to it) and the fields changed; a row opens the entry's details in
 * place, right under it, every changed field with its value before and after. Shared by the
 * Activity page and the History tabs of a user and a survey.
 */
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { ErrorState } from "@/components/ui/error-state";
import { RESOURCE_WORDS, actionWords, useAuditLog, valueWords, type AuditFilters } from "@/lib/client/audit";
import { useReferenceNames } from "@/lib/client/reference";
import { useSurveysById } from "@/lib/client/surveys";
import { displayName, useUsersById } from "@/lib/client/users";
import type { AuditEntry } from "@/lib/resources/audit/contract";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, type ReactNode } from "react";
import { Badge, Button, Card, ChangeTable, EmptyState, Facts, Loading, Spinner, linkClass } from "../ui";

/** Seconds matter in a log where several things happen in the same minute. */
const timeFormat = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium" });
const when = (value: string) => timeFormat.format(new Date(value));

const MAX_PATHS_SHOWN = 3;

/** The names of the records and people a page of entries mentions, as far as this client can read them. */
function useNames(entries: AuditEntry[]) {
  const userIds = useMemo(
    () =>
      [
        ...new Set(
          entries
            .flatMap((entry) => [
              entry.resource.type === "user" ? entry.resource.id : null,
              entry.actor.type === "user" ? entry.actor.id : null,
            ])
            .filter((id): id is string => Boolean(id)),
        ),
      ].slice(0, 100),
    [entries],
  );
  const users = useUsersById(userIds);
  const surveyIds = useMemo(
    () => entries.flatMap((entry) => (entry.resource.type === "survey" ? [entry.resource.id] : [])),
    [entries],
  );
  const surveys = useSurveysById(surveyIds);
  const reference = {
    accessRole: useReferenceNames("accessRoles"),
    jobTitle: useReferenceNames("jobTitles"),
    property: useReferenceNames("properties"),
    bot: useReferenceNames("bots"),
  };
  return (type: AuditEntry["resource"]["type"], id: string): string | undefined => {
    if (type === "user") {
      const user = users.data?.get(id);
      return user ? displayName(user) : undefined;
    }
    if (type === "survey") return surveys.data?.get(id) || undefined;
    return type in reference ? reference[type as keyof typeof reference].get(id) : undefined;
  };
}

function Actor({ entry }: { entry: AuditEntry }) {
  const { actor } = entry;
  if (actor.type === "user" && actor.id)
    return (
      <Link href={`/users/${actor.id}`} className={linkClass}>
        {actor.name}
      </Link>
    );
  if (actor.type === "apiKey")
    return (
      <Link href="/api-keys" className={linkClass}>
        API key “{actor.name}”
      </Link>
    );
  if (actor.type === "anonymous")
    return (
      <span title="Not signed in: the e-mail that was tried">
        {actor.name} <span className="text-slate-500">(not signed in)</span>
      </span>
    );
  return <span className="text-slate-600">{actor.name}</span>;
}

function RecordLink({ entry, name }: { entry: AuditEntry; name: string | undefined }) {
  const words = RESOURCE_WORDS[entry.resource.type];
  const deleted = entry.action.endsWith(".deleted");
  // A record this page cannot read (deleted, or a revoked key) is named by the name its entry kept.
  const named = entry.changes.find((change) => change.path === "name");
  const kept = deleted ? named?.before : named?.after;
  const label =
    name ??
    (typeof kept === "string" && kept ? `${words.one} “${kept}”` : `${words.one} ${entry.resource.id.slice(-6)}`);
  // A deleted record has no page left to open.
  if (deleted) return <span>{label}</span>;
  return (
    <Link href={words.href(entry.resource.id)} className={linkClass}>
      {label}
    </Link>
  );
}

function ChangedFields({ entry }: { entry: AuditEntry }) {
  if (entry.changes.length === 0) return <span className="text-slate-500">—</span>;
  const shown = entry.changes.slice(0, MAX_PATHS_SHOWN).map((change) => change.path);
  const more = entry.changes.length - shown.length;
  return (
    <span className="text-xs">
      {shown.join(", ")}
      {more > 0 && ` and ${more} more`}
    </span>
  );
}

function Action({ entry }: { entry: AuditEntry }) {
  const tone =
    entry.action === "auth.signInFailed"
      ? "red"
      : entry.action.endsWith(".deleted")
        ? "red"
        : entry.action.endsWith(".created")
          ? "green"
          : "blue";
  return <Badge tone={tone}>{actionWords(entry.action)}</Badge>;
}

export function AuditEntries({
  filters,
  hrefOf,
  closeHref,
  caption,
  showRecord = true,
  empty,
}: {
  filters: AuditFilters;
  /** The page's URL with this entry opened (its filters kept). */
  hrefOf: (entry: AuditEntry) => string;
  /** The page's URL with no entry opened. */
  closeHref: string;
  caption: string;
  /** The record column (left out where every entry is about the same record). */
  showRecord?: boolean;
  empty: ReactNode;
}) {
  const params = useSearchParams();
  const opened = params.get("entry");
  const log = useAuditLog(filters);
  const rows = useMemo(() => log.data?.pages.flatMap((page) => page.data.entries) ?? [], [log.data]);
  const nameOf = useNames(rows);
  const selected = rows.find((entry) => entry._id === opened);

  const columns: DataColumn<AuditEntry>[] = [
    { id: "createdAt", header: "When", cell: (entry) => when(entry.createdAt), className: "whitespace-nowrap" },
    { id: "actor", header: "Who", cell: (entry) => <Actor entry={entry} />, className: "max-w-56 truncate" },
    { id: "action", header: "Action", cell: (entry) => <Action entry={entry} />, className: "whitespace-nowrap" },
    ...(showRecord
      ? [
          {
            id: "record",
            header: "Record",
            cell: (entry: AuditEntry) => (
              <RecordLink entry={entry} name={nameOf(entry.resource.type, entry.resource.id)} />
            ),
            className: "max-w-56 truncate",
          },
        ]
      : []),
    {
      id: "changes",
      header: "Changed fields",
      cell: (entry) => <ChangedFields entry={entry} />,
      className: "max-w-72",
    },
    { id: "ip", header: "Address", cell: (entry) => entry.ip ?? "—", hiddenByDefault: true },
  ];

  if (log.isLoading) return <Loading label="Loading the activity…" />;
  if (log.isError)
    return (
      <ErrorState
        error={log.error}
        title="The activity could not be loaded"
        onRetry={() => log.refetch()}
        retrying={log.isFetching}
      />
    );

  return (
    <>
      <Card className="overflow-hidden">
        {rows.length === 0 ? (
          empty
        ) : (
          <>
            <DataTable
              name={showRecord ? "audit-log" : "record-history"}
              caption={caption}
              rows={rows}
              columns={columns}
              rowId={(entry) => entry._id}
              rowHref={hrefOf}
              rowLabel={(entry) => when(entry.createdAt)}
              // An outline, not a tint: the cards' grey labels keep their contrast on it.
              rowClassName={(entry) => (entry._id === opened ? "outline-2 -outline-offset-2 outline-sky-600" : "")}
              detail={{
                rowId: selected?._id,
                render: (entry) => (
                  <EntryDetails
                    entry={entry}
                    name={nameOf(entry.resource.type, entry.resource.id)}
                    closeHref={closeHref}
                  />
                ),
              }}
              toolbar={
                <p aria-live="polite" className="flex items-center gap-2">
                  <span data-testid="audit-shown">
                    <strong className="font-semibold text-slate-900">{rows.length.toLocaleString("en")}</strong>{" "}
                    {rows.length === 1 ? "entry" : "entries"}
                    {log.hasNextPage ? " shown, more older ones" : ""}
                  </span>
                  {log.isFetching && !log.isFetchingNextPage && <Spinner className="size-3.5 text-slate-400" />}
                </p>
              }
            />
            {log.hasNextPage && (
              <div className="border-t border-slate-200 px-4 py-3">
                <Button onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
                  {log.isFetchingNextPage && <Spinner className="size-3.5" />} Load more
                </Button>
              </div>
            )}
          </>
        )}
      </Card>
    </>
  );
}

function EntryDetails({ entry, name, closeHref }: { entry: AuditEntry; name: string | undefined; closeHref: string }) {
  const ref = useRef<HTMLElement>(null);
  // Opened from a row near the bottom of the screen: the details come into view, the row stays in place.
  // Braces: scrollIntoView may return a promise, which React would take for the effect's cleanup.
  useEffect(() => {
    ref.current?.scrollIntoView({ block: "nearest" });
  }, [entry._id]);
  return (
    <section ref={ref} aria-labelledby="entry-details" className="cursor-auto">
      <div className="mb-4 flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="entry-details" className="text-base font-semibold text-slate-900">
          {actionWords(entry.action)} · {when(entry.createdAt)}
        </h2>
        <Link href={closeHref} className={`text-sm ${linkClass}`}>
          Close
        </Link>
      </div>
      <Facts
        items={[
          ["Who", <Actor key="who" entry={entry} />],
          ["Record", <RecordLink key="record" entry={entry} name={name} />],
          ["Address", entry.ip ?? "—"],
          ["Browser or client", entry.userAgent ?? "—"],
          [
            "Request id",
            entry.requestId ? (
              <code key="request" className="font-mono text-xs break-all">
                {entry.requestId}
              </code>
            ) : (
              "—"
            ),
          ],
        ]}
      />
      {entry.changes.length === 0 ? (
        <p className="mt-4 text-sm text-slate-600">
          {entry.action.startsWith("auth.")
            ? "A sign-in or sign-out changes no field."
            : "No field is listed for this change."}
        </p>
      ) : (
        // Fixed columns whose long values wrap anywhere: on a phone nothing scrolls sideways.
        <div className="mt-4">
          <ChangeTable
            caption="Each changed field, before and after"
            fieldClassName="font-mono text-xs font-normal text-slate-800"
            rows={entry.changes.map((change) => ({
              key: change.path,
              field: change.path,
              before: valueWords(change.before),
              after: valueWords(change.after),
              data: { "data-testid": "audit-change" },
            }))}
          />
        </div>
      )}
    </section>
  );
}

/** The empty state of a list whose filters match nothing, or of a log with nothing yet. */
export function NoEntries({ filtered, children }: { filtered: boolean; children?: ReactNode }) {
  return filtered ? (
    <EmptyState title="No activity matches these filters">Widen the dates or remove a filter to see more.</EmptyState>
  ) : (
    <EmptyState title="No activity yet">
      {children ?? "Changes, sign-ins and sign-outs appear here as they happen."}
    </EmptyState>
  );
}
