"use client";

import { useState } from "react";
import { contentChanges, type ContentChange } from "@/lib/client/content-draft";
import { useRestoreRevision } from "@/lib/client/survey-content";
import { useRevisions, useSurvey, type UpdateSurveyInput } from "@/lib/client/surveys";
import { displayName, useUsersById } from "@/lib/client/users";
import type { SurveyRevisionRecord, SurveySnapshot } from "@/lib/surveys/contract";
import { feedback } from "@/lib/client/feedback";
import { ErrorMessage } from "../error-message";
import { ErrorState } from "../error-state";
import { useToast } from "../toast";
import { Pagination } from "../pagination";
import { BackLink, Badge, Button, Card, DateTime, EmptyState, Loading, PageHeader, focusRing } from "../ui";
import { SURVEY_FIELD_LABELS, fieldText, useSurveyNames, type SurveyNames } from "./survey-bits";

const PAGE_SIZE = 50;

/** What a restore writes back: every field a client may write, and the content, so the old state returns whole. */
const RESTORED_FIELDS = [
  "code",
  "name",
  "version",
  "isActive",
  "isSystemModel",
  "permissions",
  "group",
  "groupPermissions",
  "permissionsV2",
  "groupPermissionsV2",
  "onlySubSurvey",
  "propertiesChannel",
  "propertiesLimit",
  "responders",
] as const;

/** Fields compared between revisions (`modifiedAt` and `__v` always differ). */
const COMPARED = SURVEY_FIELD_LABELS.filter(([field]) => field !== "modifiedAt" && field !== "__v");

const CHANGE_LABELS: Record<ContentChange["what"], Record<ContentChange["kind"], string>> = {
  chat: { added: "Chat added", removed: "Chat removed", renamed: "Chat renamed", reworded: "Chat changed", moved: "Chat moved" },
  question: { added: "Question added", removed: "Question removed", renamed: "Question changed", reworded: "Question reworded", moved: "Question moved" },
};

const changedFields = (a: SurveySnapshot, b: SurveySnapshot) => COMPARED.filter(([field]) => JSON.stringify(a[field]) !== JSON.stringify(b[field]));

export function SurveyHistory({ id }: { id: string }) {
  const survey = useSurvey(id);
  const [page, setPage] = useState(1);
  const revisions = useRevisions(id, page, PAGE_SIZE);
  const update = useRestoreRevision(id);
  const names = useSurveyNames();
  const list = revisions.data?.data.revisions ?? [];
  const authors = useUsersById(list.map((revision) => revision.modifiedBy).filter((by): by is string => Boolean(by)));
  const [pair, setPair] = useState<{ left?: number; right?: number }>({});
  const [confirm, setConfirm] = useState<number>();
  const toast = useToast();

  const newest = list[0];
  const right = list.find((revision) => revision.__v === pair.right) ?? newest;
  const left = list.find((revision) => revision.__v === pair.left) ?? list[1] ?? newest;
  const title = survey.data ? `History of ${survey.data.name}` : "Version history";

  async function restore(revision: SurveyRevisionRecord) {
    setConfirm(undefined);
    const fields = Object.fromEntries(RESTORED_FIELDS.map((field) => [field, revision.snapshot[field]])) as UpdateSurveyInput;
    // The current content is needed to tell whether the revision's differs.
    if (!survey.data || survey.isPlaceholderData) return;
    try {
      const result = await update.mutateAsync({ revision, fields, current: survey.data });
      setPair({});
      setPage(1);
      toast.show({ message: `${feedback.restored("survey", revision.__v)} It is now at revision ${result.__v}.` });
    } catch {
      // Shown from the mutation's error below.
    }
  }

  return (
    <>
      <PageHeader
        back={<BackLink href={`/surveys/${id}`}>{survey.data?.name ?? "Survey"}</BackLink>}
        title={title}
        subtitle="Every create and change of the survey is kept. Compare any two, or bring an earlier one back: the restore is itself a new revision."
      />
      {update.isError && (
        <div className="mb-4">
          <ErrorMessage error={update.error} title="The revision could not be restored" />
        </div>
      )}

      {revisions.isLoading ? (
        <Loading label="Loading the revisions…" />
      ) : revisions.isError ? (
        <ErrorState error={revisions.error} title="The revisions could not be loaded" onRetry={() => revisions.refetch()} retrying={revisions.isFetching} />
      ) : list.length === 0 ? (
        <Card>
          <EmptyState title="No revision yet" />
        </Card>
      ) : (
        <div className="grid gap-6 xl:grid-cols-[minmax(0,5fr)_minmax(0,7fr)]">
          <Card className="overflow-hidden xl:self-start">
            <h2 className="border-b border-slate-200 px-4 py-3 text-base font-semibold text-slate-900">
              Revisions <span className="font-normal text-slate-500">({revisions.data?.data.counter ?? list.length})</span>
            </h2>
            <div className="overflow-x-auto">
              <table className="w-full text-left text-sm">
                <caption className="sr-only">Revisions, newest first; choose two to compare</caption>
                <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
                  <tr>
                    <th scope="col" className="px-3 py-2">Revision</th>
                    <th scope="col" className="px-3 py-2">Changes</th>
                    <th scope="col" className="px-2 py-2 text-center">Left</th>
                    <th scope="col" className="px-2 py-2 text-center">Right</th>
                    <th scope="col" className="px-3 py-2">
                      <span className="sr-only">Restore</span>
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {list.map((revision, index) => {
                    const previous = list[index + 1];
                    const changes = previous ? changedFields(previous.snapshot, revision.snapshot).map(([, label]) => label) : [];
                    if (previous && contentChanges(previous.snapshot.chat, revision.snapshot.chat).length > 0) changes.push("Chats and questions");
                    const author = revision.modifiedBy ? authors.data?.get(revision.modifiedBy) : undefined;
                    return (
                      <tr key={revision._id} data-testid={`revision-${revision.__v}`} className={revision === left || revision === right ? "bg-sky-50/50" : undefined}>
                        <td className="whitespace-nowrap px-3 py-2 align-top">
                          <span className="font-medium text-slate-900">#{revision.__v}</span>
                          {index === 0 && page === 1 && (
                            <span className="ml-2">
                              <Badge tone="green">current</Badge>
                            </span>
                          )}
                          <span className="block text-xs text-slate-500">
                            <DateTime value={revision.createdAt} />
                          </span>
                          <span className="block max-w-40 truncate text-xs text-slate-500">{author ? displayName(author) : revision.modifiedBy ? "…" : "system"}</span>
                        </td>
                        <td className="px-3 py-2 align-top text-xs text-slate-700">
                          {revision.__v === 0 ? "Created" : previous ? changes.join(", ") || "No visible change" : "…"}
                        </td>
                        <td className="px-2 py-2 text-center align-top">
                          <input
                            type="radio"
                            name="left"
                            aria-label={`Revision ${revision.__v} on the left`}
                            checked={revision === left}
                            onChange={() => setPair({ left: revision.__v, right: right?.__v })}
                            className={`size-4 accent-sky-700 ${focusRing}`}
                          />
                        </td>
                        <td className="px-2 py-2 text-center align-top">
                          <input
                            type="radio"
                            name="right"
                            aria-label={`Revision ${revision.__v} on the right`}
                            checked={revision === right}
                            onChange={() => setPair({ left: left?.__v, right: revision.__v })}
                            className={`size-4 accent-sky-700 ${focusRing}`}
                          />
                        </td>
                        <td className="px-3 py-2 text-right align-top">
                          {!(index === 0 && page === 1) &&
                            (confirm === revision.__v ? (
                              <span className="flex flex-col items-end gap-1">
                                <Button kind="primary" onClick={() => restore(revision)} disabled={update.isPending} autoFocus>
                                  Restore #{revision.__v}
                                </Button>
                                <Button kind="ghost" onClick={() => setConfirm(undefined)}>
                                  Cancel
                                </Button>
                              </span>
                            ) : (
                              <Button onClick={() => setConfirm(revision.__v)} disabled={update.isPending} aria-label={`Restore revision ${revision.__v}`}>
                                Restore
                              </Button>
                            ))}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {(revisions.data?.data.counter ?? 0) > PAGE_SIZE && (
              <Pagination page={page} limit={PAGE_SIZE} total={revisions.data?.data.counter} shown={list.length} noun={["revision", "revisions"]} onPage={setPage} />
            )}
          </Card>
          {left && right && <Diff left={left} right={right} names={names} />}
        </div>
      )}
    </>
  );
}

function Diff({ left, right, names }: { left: SurveyRevisionRecord; right: SurveyRevisionRecord; names: SurveyNames }) {
  const [onlyChanges, setOnlyChanges] = useState(true);
  const changed = new Set(changedFields(left.snapshot, right.snapshot).map(([field]) => field));
  const rows = COMPARED.filter(([field]) => !onlyChanges || changed.has(field));
  const content = contentChanges(left.snapshot.chat, right.snapshot.chat);
  return (
    <Card className="overflow-hidden xl:self-start" aria-labelledby="diff-title">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
        <h2 id="diff-title" className="text-base font-semibold text-slate-900">
          Revision #{left.__v} ↔ #{right.__v}
        </h2>
        <div className="flex items-center gap-2">
          <input id="diff-only-changes" type="checkbox" checked={onlyChanges} onChange={(event) => setOnlyChanges(event.target.checked)} className={`size-4 accent-sky-700 ${focusRing}`} />
          <label htmlFor="diff-only-changes" className="text-sm text-slate-700">
            Only changed fields
          </label>
        </div>
      </div>
      {rows.length === 0 && content.length === 0 ? (
        <EmptyState title={left === right ? "The same revision is on both sides" : "These two revisions hold the same survey"}>Choose another pair in the list.</EmptyState>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full table-fixed text-left text-sm" data-testid="revision-diff">
            <caption className="sr-only">
              Fields of revision {left.__v} beside those of revision {right.__v}
            </caption>
            <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="w-1/4 px-4 py-2">Field</th>
                <th scope="col" className="px-4 py-2">
                  #{left.__v} · <DateTime value={left.createdAt} />
                </th>
                <th scope="col" className="px-4 py-2">
                  #{right.__v} · <DateTime value={right.createdAt} />
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {rows.map(([field, label]) => {
                const differs = changed.has(field);
                return (
                  <tr key={field} className={differs ? "bg-amber-50/60" : undefined}>
                    <th scope="row" className="px-4 py-2 align-top font-medium text-slate-700">
                      {label}
                      {differs && <span className="sr-only"> (changed)</span>}
                    </th>
                    <td className={`break-words px-4 py-2 align-top ${differs ? "text-rose-800" : "text-slate-700"}`}>
                      {fieldText(field, left.snapshot[field], names)}
                    </td>
                    <td className={`break-words px-4 py-2 align-top ${differs ? "font-medium text-emerald-800" : "text-slate-700"}`}>{fieldText(field, right.snapshot[field], names)}</td>
                  </tr>
                );
              })}
              {content.map((change, index) => (
                <tr key={`content-${index}`} className="bg-amber-50/60" data-testid="content-change">
                  <th scope="row" className="px-4 py-2 align-top font-medium text-slate-700">
                    {CHANGE_LABELS[change.what][change.kind]}
                  </th>
                  <td className="break-words px-4 py-2 align-top text-rose-800">{change.before ?? "—"}</td>
                  <td className="break-words px-4 py-2 align-top font-medium text-emerald-800">{change.after ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
