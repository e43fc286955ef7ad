"use client";

import { DataTable, useDataTableLayout, type DataColumn } from "@/components/ui/data-table";
import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import type { ContentChange } from "@/lib/client/content-draft";
import { feedback } from "@/lib/client/feedback";
import { useRestoreRevision } from "@/lib/client/survey-content";
import { revisionContentChanges } from "@/lib/client/survey-restore";
import { useRevisions, useSurvey } from "@/lib/client/surveys";
import { useViewSearch } from "@/lib/client/use-view-search";
import { displayName, useUsersById } from "@/lib/client/users";
import type { SurveyRevisionRecord, SurveySnapshot } from "@/lib/resources/surveys/contract";
import { useEffect, useMemo, useRef, useState } from "react";
import { Pagination } from "../pagination";
import {
  BackLink,
  Badge,
  Button,
  Card,
  ChangeTable,
  Checkbox,
  DateTime,
  EmptyState,
  LinkButton,
  ListView,
  PageHeader,
  focusRing,
} from "../ui";
import { SURVEY_FIELD_LABELS, fieldText, useSurveyNames, type SurveyNames } from "./survey-fields";

const PAGE_SIZE = 50;

/** Fields compared between revisions (`modifiedAt` and `__v` always differ). */
const COMPARED = SURVEY_FIELD_LABELS.filter(([field]) => field !== "modifiedAt" && field !== "__v");

const CHANGE_LABELS: Record<ContentChange["what"], Record<ContentChange["kind"], string>> = {
  chat: {
    added: "Chat added",
    removed: "Chat removed",
    renamed: "Chat renamed",
    reworded: "Chat changed",
    moved: "Chat moved",
  },
  question: {
    added: "Question added",
    removed: "Question removed",
    renamed: "Question changed",
    reworded: "Question reworded",
    moved: "Question moved",
  },
};

const changedFields = (a: SurveySnapshot, b: SurveySnapshot) =>
  COMPARED.filter(([field]) => JSON.stringify(a[field]) !== JSON.stringify(b[field]));

/** The view in the URL: the page of revisions and the two compared (Back returns to the previous pair). */
function parseView(params: URLSearchParams): { page: number; left?: number; right?: number } {
  const number = (name: string) => {
    const value = Number(params.get(name) ?? "");
    return params.has(name) && Number.isInteger(value) && value >= 0 ? value : undefined;
  };
  return { page: Math.max(1, number("page") ?? 1), left: number("left"), right: number("right") };
}

function viewSearch(view: { page: number; left?: number; right?: number }): string {
  const params = new URLSearchParams();
  if (view.page > 1) params.set("page", String(view.page));
  if (view.left !== undefined) params.set("left", String(view.left));
  if (view.right !== undefined) params.set("right", String(view.right));
  return params.size ? `?${params}` : "";
}

export function SurveyHistory({ id }: { id: string }) {
  const survey = useSurvey(id);
  const { params, show: go } = useViewSearch();
  const view = parseView(params);
  const { page } = view;
  const revisions = useRevisions(id, page, PAGE_SIZE);
  const update = useRestoreRevision(id);
  const names = useSurveyNames();
  const list = useMemo(() => revisions.data?.data.revisions ?? [], [revisions.data]);
  const authors = useUsersById(list.map((revision) => revision.modifiedBy).filter((by): by is string => Boolean(by)));
  const toast = useToast();
  const base = `/surveys/${id}/history`;
  const show = (next: { page: number; left?: number; right?: number }) => go(`${base}${viewSearch(next)}`);

  const newest = list[0];
  const right = list.find((revision) => revision.__v === view.right) ?? newest;
  const left = list.find((revision) => revision.__v === view.left) ?? list[1] ?? newest;
  const title = survey.data ? `Revisions of ${survey.data.name}` : "Revisions";
  const current = (revision: SurveyRevisionRecord) => page === 1 && revision === newest;

  // The toast's Undo runs after the restore's refresh: it reads the survey and revisions then.
  const latest = useRef({ survey, revisions });
  useEffect(() => {
    latest.current = { survey, revisions };
  });

  /**
   * A restore acts at once, and Undo in its notice restores the revision that was current before
   * (docs/architecture.md, the admin pages: an undoable change offers Undo, it does not ask).
   */
  async function restore(revision: SurveyRevisionRecord, undoing = false) {
    // The current content is needed to tell whether the revision's differs.
    const current = undoing ? (await latest.current.survey.refetch()).data : survey.data;
    if (!current || (!undoing && survey.isPlaceholderData)) return;
    const before = current.__v;
    try {
      const result = await update.mutateAsync({ revision, current });
      show({ page: 1 });
      toast.show({
        message: `${feedback.restored("survey", revision.__v)} It is now at revision ${result.__v}.`,
        action: undoing
          ? undefined
          : {
              label: "Undo",
              onClick: async () => {
                const fresh = await latest.current.revisions.refetch();
                const previous = fresh.data?.data.revisions.find((candidate) => candidate.__v === before);
                if (previous) await restore(previous, true);
              },
            },
      });
    } catch {
      // Shown from the mutation's error below.
    }
  }

  // Rebuilt on each render: the cells show the page's current choices (the pair, a pending restore).
  const previousOf = (revision: SurveyRevisionRecord) => list[list.indexOf(revision) + 1];
  const columns: DataColumn<SurveyRevisionRecord>[] = [
    { id: "revision", header: "Revision", cell: (revision) => `#${revision.__v}` },
    {
      id: "changes",
      header: "Changes",
      className: "text-xs",
      cell: (revision) => {
        const previous = previousOf(revision);
        if (revision.__v === 0) return "Created";
        if (!previous) return "…";
        const changes = changedFields(previous.snapshot, revision.snapshot).map(([, label]) => label);
        if (revisionContentChanges(previous.snapshot, revision.snapshot).length > 0)
          changes.push("Chats and questions");
        return changes.join(", ") || "No visible change";
      },
    },
    {
      id: "by",
      header: "By",
      className: "whitespace-nowrap text-xs",
      cell: (revision) => {
        const author = revision.modifiedBy ? authors.data?.get(revision.modifiedBy) : undefined;
        return (
          <>
            <DateTime value={revision.createdAt} />
            <span className="block max-w-40 truncate text-slate-500">
              {author ? displayName(author) : revision.modifiedBy ? "…" : "system"}
            </span>
          </>
        );
      },
    },
    {
      id: "left",
      header: "Left",
      hideable: false,
      className: "text-center",
      cell: (revision) => (
        <PairRadio
          side="left"
          revision={revision.__v}
          checked={revision === left}
          onChoose={() => show({ page, left: revision.__v, right: right?.__v })}
        />
      ),
    },
    {
      id: "right",
      header: "Right",
      hideable: false,
      className: "text-center",
      cell: (revision) => (
        <PairRadio
          side="right"
          revision={revision.__v}
          checked={revision === right}
          onChoose={() => show({ page, left: left?.__v, right: revision.__v })}
        />
      ),
    },
    {
      id: "restore",
      header: "Restore",
      headerHidden: true,
      hideable: false,
      className: "text-right",
      cell: (revision) =>
        current(revision) ? (
          <Badge tone="green">current</Badge>
        ) : (
          <Button
            onClick={() => restore(revision)}
            disabled={update.isPending}
            aria-label={`Restore revision ${revision.__v}`}
          >
            Restore
          </Button>
        ),
    },
  ];

  return (
    <>
      <PageHeader
        back={<BackLink href={`/surveys/${id}`}>{survey.data?.name ?? "Survey"}</BackLink>}
        title={title}
        subtitle="Every create and change of the survey is kept. Open one to compare it with the one before, choose any two, or bring an earlier one back: the restore is itself a new revision."
        actions={<LinkButton href={`/surveys/${id}/activity`}>Activity: who changed what</LinkButton>}
      />
      {update.isError && (
        <div className="mb-4">
          <ErrorMessage error={update.error} title="The revision could not be restored" />
        </div>
      )}

      <ListView
        query={revisions}
        rows={revisions.data ? list : undefined}
        loading="Loading the revisions…"
        error="The revisions could not be loaded"
        empty={{ title: "No revision yet" }}
      >
        {() => (
          // One above the other at every width: side by side, the revisions' Restore column was cut off beside the navigation.
          <div className="grid gap-6">
            <Card className="overflow-hidden">
              <DataTable
                name="revisions"
                caption="Revisions, newest first; open one to compare it with the one before, or choose two"
                rows={list}
                columns={columns}
                rowId={revisionId}
                rowHref={(revision) =>
                  `${base}${viewSearch({ page, left: previousOf(revision)?.__v ?? revision.__v, right: revision.__v })}`
                }
                rowLabel={revisionLabel}
                rowClassName={(revision) => (revision === left || revision === right ? "bg-sky-50/50" : "")}
                toolbar={
                  <h2 className="text-base font-semibold text-slate-900">
                    Revisions{" "}
                    <span className="font-normal text-slate-500">({revisions.data?.data.counter ?? list.length})</span>
                  </h2>
                }
              />
              {(revisions.data?.data.counter ?? 0) > PAGE_SIZE && (
                <Pagination
                  page={page}
                  limit={PAGE_SIZE}
                  total={revisions.data?.data.counter}
                  shown={list.length}
                  noun={["revision", "revisions"]}
                  onPage={(next) => show({ page: next })}
                />
              )}
            </Card>
            {left && right && <Diff left={left} right={right} names={names} />}
          </div>
        )}
      </ListView>
    </>
  );
}

/** One side of the compared pair; its group is named per rendering of the table (see useDataTableLayout). */
function PairRadio({
  side,
  revision,
  checked,
  onChoose,
}: {
  side: "left" | "right";
  revision: number;
  checked: boolean;
  onChoose: () => void;
}) {
  const layout = useDataTableLayout();
  return (
    <input
      type="radio"
      name={`${side}-${layout}`}
      aria-label={`Revision ${revision} on the ${side}`}
      checked={checked}
      onChange={onChoose}
      className={`size-4 accent-sky-700 ${focusRing}`}
    />
  );
}

const revisionId = (revision: SurveyRevisionRecord) => revision._id;
const revisionLabel = (revision: SurveyRevisionRecord) => `#${revision.__v}`;

function Diff({ left, right, names }: { left: SurveyRevisionRecord; right: SurveyRevisionRecord; names: SurveyNames }) {
  const [onlyChanges, setOnlyChanges] = useState(true);
  const changed = new Set(changedFields(left.snapshot, right.snapshot).map(([field]) => field));
  const rows = COMPARED.filter(([field]) => !onlyChanges || changed.has(field));
  const content = revisionContentChanges(left.snapshot, right.snapshot);
  return (
    <Card className="overflow-hidden" aria-labelledby="diff-title">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
        <h2 id="diff-title" className="text-base font-semibold text-slate-900">
          Revision #{left.__v} ↔ #{right.__v}
        </h2>
        <div className="flex items-center gap-2">
          <Checkbox
            id="diff-only-changes"
            checked={onlyChanges}
            onChange={(event) => setOnlyChanges(event.target.checked)}
          />
          <label htmlFor="diff-only-changes" className="text-sm text-slate-700">
            Only changed fields
          </label>
        </div>
      </div>
      {rows.length === 0 && content.length === 0 ? (
        <EmptyState
          title={left === right ? "The same revision is on both sides" : "These two revisions hold the same survey"}
        >
          Choose another pair in the list.
        </EmptyState>
      ) : (
        <ChangeTable
          testId="revision-diff"
          caption={`Fields of revision ${left.__v} beside those of revision ${right.__v}`}
          headers={[
            "Field",
            <>
              #{left.__v} · <DateTime value={left.createdAt} />
            </>,
            <>
              #{right.__v} · <DateTime value={right.createdAt} />
            </>,
          ]}
          rows={[
            ...rows.map(([field, label]) => ({
              key: field,
              field: label,
              before: fieldText(field, left.snapshot[field], names),
              after: fieldText(field, right.snapshot[field], names),
              changed: changed.has(field),
            })),
            ...content.map((change, index) => ({
              key: `content-${index}`,
              field: CHANGE_LABELS[change.what][change.kind],
              before: change.before,
              after: change.after,
              data: { "data-testid": "content-change" },
            })),
          ]}
        />
      )}
    </Card>
  );
}
