"use client";

import { ConfirmDialog } from "@/components/ui/dialog";
import { ApiError, type Tagged } from "@/lib/client/api";
import { useQueryClient, type QueryKey } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Button, ChangeTable } from "./ui";

/** One field of a record that differs between the admin's edit and the version saved meanwhile. */
export interface ConflictRow {
  field: string;
  label: string;
  yours: string;
  theirs: string;
}

/** What the form learnt when its save was refused with `412`: the version saved meanwhile. */
export interface Conflict {
  /** When that version was saved (its `modifiedAt`). */
  savedAt: string;
  /** Who saved it, when the API says so; otherwise the panel says "someone else". */
  savedBy: string | null;
  rows: ConflictRow[];
}

/**
 * The fields where the admin's edit and the saved version differ, each shown by `format`:
 * those the admin changed and those changed meanwhile.
 */
function conflictRows<S extends object>(
  base: S,
  yours: S,
  theirs: S,
  labels: Record<string, string>,
  format: (field: string, value: unknown) => string,
): ConflictRow[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return Object.keys(labels)
    .filter((field) => {
      const [b, y, t] = [base, yours, theirs].map((state) => (state as Record<string, unknown>)[field]);
      return !same(y, t) && (!same(b, y) || !same(b, t));
    })
    .map((field) => ({
      field,
      label: labels[field],
      yours: format(field, (yours as Record<string, unknown>)[field]),
      theirs: format(field, (theirs as Record<string, unknown>)[field]),
    }));
}

/** Whether a save was refused because the record changed since the form loaded it (`If-Match`). */
export const isStale = (error: unknown): boolean => error instanceof ApiError && error.code === "precondition_failed";

/**
 * The conflict of an edit form whose save sends `If-Match`: `tag` is the version a save applies
 * to, `refused` learns what was saved meanwhile after a `412`, `reload` starts the form again
 * from that version (the edit form is keyed by the tag of `editKey`'s query), and `panel` shows it.
 */
export function useEditConflict<R extends { modifiedAt: string }, S extends object>(options: {
  /** The query the edit form was loaded by, holding `{ body, etag }`. */
  editKey: QueryKey;
  /** The tag the form loaded. */
  etag: string | undefined;
  load: () => Promise<Tagged<R>>;
  /** A record's values as the form holds them, only the fields the panel may show. */
  fields: (record: R) => S;
  labels: Record<string, string>;
  format: (field: string, value: unknown) => string;
  /** Who saved the record last, when the API can say. */
  savedBy?: () => Promise<string | null>;
}) {
  const client = useQueryClient();
  const [conflict, setConflict] = useState<(Conflict & { saved: Tagged<R> }) | undefined>();
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

  /**
   * After a `412`: the version saved meanwhile. When it differs from what the form loaded only in
   * fields the form does not show, nothing of theirs can be lost, and its tag is answered so the
   * save may go again; otherwise the conflict is shown and the answer is `undefined`.
   */
  async function refused(original: R, yours: S): Promise<string | undefined> {
    const saved = await options.load();
    const [base, theirs] = [options.fields(original), options.fields(saved.body)];
    if (same(base, theirs) && !conflict) return saved.etag;
    const savedBy = (await options.savedBy?.()) ?? null;
    setConflict({
      saved,
      savedAt: saved.body.modifiedAt,
      savedBy,
      rows: conflictRows(base, yours, theirs, options.labels, options.format),
    });
    return undefined;
  }

  return {
    conflict,
    tag: conflict?.saved.etag ?? options.etag,
    refused,
    clear: () => setConflict(undefined),
    /** Discards the edit: the form starts again from the saved version. */
    reload: () => conflict && client.setQueryData(options.editKey, conflict.saved),
  };
}

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

/**
 * Someone else saved the record while this form was open: who and when, what differs (yours vs
 * theirs, field by field), and the two ways on: reload their version (the edit is lost, after a
 * confirmation) or overwrite it with this edit.
 */
export function EditConflict({
  conflict,
  what,
  busy,
  onReload,
  onOverwrite,
}: {
  conflict: Conflict;
  what: string;
  busy: boolean;
  onReload: () => void;
  onOverwrite: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [conflict]);
  return (
    <section
      aria-labelledby="edit-conflict-title"
      className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-slate-900 sm:p-5"
    >
      <h2
        id="edit-conflict-title"
        ref={heading}
        tabIndex={-1}
        className="text-base font-semibold text-amber-900 focus:outline-none"
      >
        This {what} was changed while you were editing it
      </h2>
      <p className="mt-1 text-slate-800">
        Saved by <strong>{conflict.savedBy ?? "someone else"}</strong> on{" "}
        <time dateTime={conflict.savedAt}>{when(conflict.savedAt)}</time>. Your changes were not saved.
      </p>
      {conflict.rows.length > 0 ? (
        <div className="mt-3 overflow-hidden rounded-md border border-amber-200 bg-white">
          <ChangeTable
            caption="Fields that differ between your edit and the saved version"
            headers={["Field", "Yours", "Saved version"]}
            plain
            rows={conflict.rows.map((row) => ({
              key: row.field,
              field: row.label,
              before: row.yours,
              after: row.theirs,
              data: { "data-field": row.field },
            }))}
          />
        </div>
      ) : (
        <p className="mt-2 text-slate-800">None of the fields of this form differ from the saved version.</p>
      )}
      <div className="mt-4 flex flex-wrap justify-end gap-2">
        <Button onClick={() => setConfirming(true)} disabled={busy}>
          Reload saved version
        </Button>
        <Button kind="primary" onClick={onOverwrite} disabled={busy}>
          {busy ? "Saving…" : "Overwrite with mine"}
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Discard your changes?"
        confirmLabel="Discard and reload"
        danger
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          onReload();
        }}
      >
        The form will show the saved version; what you typed is lost.
      </ConfirmDialog>
    </section>
  );
}
