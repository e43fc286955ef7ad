"use client";

/**
 * Bulk actions of the users list (docs/api.md#bulk-actions): the rows chosen in the table, or
 * every user the filters match, and one action applied to all of them through
 * `POST /v2/users/bulk`, with a confirmation for what may revoke keys (which no undo gives back),
 * a progress state, the summary (failed users listed by name) and Undo in the notice.
 */
import type { RowSelection } from "@/components/ui/data-table";
import { ConfirmDialog, ModalDialog } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { useReference } from "@/lib/client/reference";
import { displayName, useBulkUsers } from "@/lib/client/users";
import {
  type BulkAction,
  type BulkUsersInput,
  type BulkUsersResult,
  MAX_BULK_USERS,
  type UserRecord,
} from "@/lib/resources/users/contract";
import { useId, useRef, useState } from "react";
import { Button, Checkbox, Popover, RecordSelect, Spinner, focusRing } from "../ui";

interface Chosen {
  /** The list's filters when the rows were chosen: a change of them lets go of every row. */
  scope: string;
  ids: Set<string>;
  /** Every user the filters match, not only the rows chosen. */
  all: boolean;
}

/** The rows chosen on a list, kept across its pages while its filters stay the same. */
export function useUserSelection(scope: string) {
  const [state, setState] = useState<Chosen>({ scope, ids: new Set(), all: false });
  const current = state.scope === scope ? state : { scope, ids: new Set<string>(), all: false };
  const table: RowSelection<UserRecord> = {
    selected: current.ids,
    rowName: (user) => displayName(user),
    onChange: (ids, selected) => {
      const next = new Set(current.ids);
      for (const id of ids) {
        if (selected) next.add(id);
        else next.delete(id);
      }
      setState({ scope, ids: next, all: false });
    },
  };
  return {
    table,
    all: current.all,
    chooseAll: () => setState({ ...current, all: true }),
    clear: () => setState({ scope, ids: new Set(), all: false }),
  };
}

export type UserSelection = ReturnType<typeof useUserSelection>;

const LABELS: Record<BulkAction, { verb: string; done: string }> = {
  activate: { verb: "Activate", done: "Activated" },
  deactivate: { verb: "Deactivate", done: "Deactivated" },
  addAccessRole: { verb: "Add access role", done: "Added the access role to" },
  removeAccessRole: { verb: "Remove access role", done: "Removed the access role from" },
};

/** The action that puts back what another did, for Undo. */
const INVERSE: Record<BulkAction, BulkAction> = {
  activate: "deactivate",
  deactivate: "activate",
  addAccessRole: "removeAccessRole",
  removeAccessRole: "addAccessRole",
};

const plural = (count: number) => `${count.toLocaleString("en")} ${count === 1 ? "user" : "users"}`;

export function BulkActions({
  selection,
  total,
  query,
  rows,
}: {
  selection: UserSelection;
  total: number | undefined;
  query: string;
  rows: UserRecord[];
}) {
  const bulk = useBulkUsers();
  const roles = useReference("accessRoles");
  const toast = useToast();
  const [asking, setAsking] = useState<BulkAction | null>(null);
  const [role, setRole] = useState("");
  const [revokeKeys, setRevokeKeys] = useState(true);
  const [summary, setSummary] = useState<{
    action: BulkAction;
    result: BulkUsersResult;
    names: Map<string, string>;
  } | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const count = selection.all ? (total ?? 0) : selection.table.selected.size;
  const pageChosen = rows.length > 0 && rows.every((row) => selection.table.selected.has(row._id));

  const [roleError, setRoleError] = useState<string | undefined>();
  const choose = (action: BulkAction) => {
    setMenuOpen(false);
    if (action === "activate") return run(action);
    setRole("");
    setRevokeKeys(true);
    setRoleError(undefined);
    setAsking(action);
  };

  const run = (action: BulkAction) => {
    const roleAction = action === "addAccessRole" || action === "removeAccessRole";
    if (roleAction && !role) return setRoleError("Choose the access role.");
    setAsking(null);
    const names = new Map(rows.map((row) => [row._id, displayName(row)]));
    const target = selection.all ? { query } : { ids: [...selection.table.selected] };
    apply({ ...target, action, ...(roleAction ? { accessRoleId: role } : {}), revokeKeys }, names, false);
  };

  /**
   * Sends one bulk action and says what it did; Undo in the notice applies the inverse action to
   * exactly the users it changed, by id (docs/architecture.md, the admin pages). An undo never
   * revokes keys: it puts back what was there.
   */
  const apply = (body: BulkUsersInput, names: Map<string, string>, undoing: boolean) => {
    const action = body.action;
    bulk.mutate(body, {
      onSuccess: (result) => {
        if (!undoing) selection.clear();
        const { changed, unchanged, failed } = result.summary;
        const changedIds = result.results.filter((entry) => entry.status === "changed").map((entry) => entry.id);
        const message = undoing
          ? `Undone: ${LABELS[action].done.toLowerCase()} ${plural(changed)}.${failed > 0 ? ` ${failed} failed.` : ""}`
          : `${LABELS[action].done} ${plural(changed)}. ${changed} changed, ${unchanged} unchanged, ${failed} failed.`;
        if (failed > 0) setSummary({ action, result, names });
        toast.show({
          tone: failed > 0 ? "error" : "success",
          message,
          action:
            undoing || changedIds.length === 0
              ? undefined
              : {
                  label: "Undo",
                  onClick: () =>
                    apply(
                      { ids: changedIds, action: INVERSE[action], accessRoleId: body.accessRoleId, revokeKeys: false },
                      names,
                      true,
                    ),
                },
        });
      },
      onError: (error) => toast.show({ tone: "error", message: `Nothing was changed. ${error.message}` }),
    });
  };

  const asked = asking && LABELS[asking];
  const roleName = roles.data?.find((record) => record._id === role)?.name;

  return (
    <>
      {(count > 0 || bulk.isPending) && (
        <div
          role="region"
          aria-label="Bulk actions"
          className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b border-sky-200 bg-sky-50 px-4 py-2.5 text-sm text-sky-950"
        >
          {bulk.isPending ? (
            <p role="status" className="flex items-center gap-2">
              <Spinner className="size-3.5" /> Applying to {plural(bulk.variables?.ids?.length ?? count)}…
            </p>
          ) : (
            <>
              <p aria-live="polite" data-testid="selected-count">
                <strong className="font-semibold">{count.toLocaleString("en")}</strong> selected
                {selection.all && " (every user that matches)"}
              </p>
              {!selection.all &&
                pageChosen &&
                total !== undefined &&
                total > count &&
                (total > MAX_BULK_USERS ? (
                  <span className="text-sky-900">
                    All {total.toLocaleString("en")} matching are more than {MAX_BULK_USERS.toLocaleString("en")}:
                    narrow the filters to act on them all.
                  </span>
                ) : (
                  <button
                    type="button"
                    onClick={selection.chooseAll}
                    className={`font-medium text-sky-800 underline underline-offset-2 ${focusRing}`}
                  >
                    Select all {total.toLocaleString("en")} matching
                  </button>
                ))}
              <Popover
                label={
                  <>
                    Actions <span aria-hidden="true">▾</span>
                  </>
                }
                open={menuOpen}
                onOpenChange={setMenuOpen}
                buttonClassName="rounded-md bg-sky-700 px-3 py-1.5 font-medium text-white shadow-sm hover:bg-sky-800"
                panelClassName="left-0 w-56"
              >
                <ul>
                  {(Object.keys(LABELS) as BulkAction[]).map((action) => (
                    <li key={action}>
                      <button
                        type="button"
                        onClick={() => choose(action)}
                        className={`w-full rounded px-3 py-2 text-left hover:bg-slate-100 ${focusRing}`}
                      >
                        {LABELS[action].verb}
                        {action.endsWith("AccessRole") && "…"}
                      </button>
                    </li>
                  ))}
                </ul>
              </Popover>
              <Button kind="ghost" className="px-2 py-1" onClick={selection.clear}>
                Clear selection
              </Button>
            </>
          )}
        </div>
      )}

      <ConfirmDialog
        open={asking !== null}
        title={asked ? `${asked.verb} for ${plural(count)}?` : ""}
        confirmLabel={asked ? `${asked.verb} (${count.toLocaleString("en")})` : ""}
        danger={asking === "deactivate" || asking === "removeAccessRole"}
        onConfirm={() => asking && run(asking)}
        onCancel={() => setAsking(null)}
      >
        {asking === "deactivate" && (
          <p>{plural(count)} will no longer be able to sign in to this company. You can activate them again later.</p>
        )}
        {(asking === "addAccessRole" || asking === "removeAccessRole") && (
          <div className="flex flex-col gap-3">
            <RecordSelect
              id="bulk-role"
              label="Access role"
              empty="Choose an access role"
              value={role}
              records={roles.data}
              onChange={(value) => (setRole(value), setRoleError(undefined))}
              error={roleError}
            />
            {roleName && (
              <p>
                {asking === "addAccessRole"
                  ? `“${roleName}” will be added to ${plural(count)}.`
                  : `“${roleName}” will be taken from ${plural(count)}; a user keeps at least one role, and the company keeps an admin.`}
              </p>
            )}
          </div>
        )}
        {(asking === "deactivate" || asking === "removeAccessRole") && (
          <RevokeKeysChoice id="bulk-revoke-keys" checked={revokeKeys} onChange={setRevokeKeys} />
        )}
      </ConfirmDialog>
      <SummaryDialog summary={summary} onClose={() => setSummary(null)} />
    </>
  );
}

/**
 * The offer to revoke the API keys of an admin who loses admin power (docs/security.md#scopes):
 * checked unless the admin choosing says otherwise.
 */
export function RevokeKeysChoice({
  id,
  checked,
  onChange,
}: {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <p className="flex items-start gap-2 text-sm">
      <Checkbox
        id={id}
        className="mt-0.5"
        checked={checked}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <label htmlFor={id}>Also revoke the API keys they created, if this ends their admin power</label>
    </p>
  );
}

/** What a bulk action did when some users failed: the counts, and each failed user with why. */
function SummaryDialog({
  summary,
  onClose,
}: {
  summary: { action: BulkAction; result: BulkUsersResult; names: Map<string, string> } | null;
  onClose: () => void;
}) {
  const closeRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const failed = summary?.result.results.filter((result) => result.status === "failed") ?? [];
  return (
    <ModalDialog
      open={summary !== null}
      first={() => closeRef.current}
      onClose={onClose}
      labelledBy={titleId}
      width="wide"
    >
      {summary && (
        <div className="flex flex-col gap-3 p-5 sm:p-6">
          <h2 id={titleId} className="text-lg font-semibold">
            {LABELS[summary.action].verb}: {summary.result.summary.failed} not done
          </h2>
          <p className="text-sm text-slate-700">
            {summary.result.summary.changed} changed, {summary.result.summary.unchanged} unchanged,{" "}
            {summary.result.summary.failed} failed:
          </p>
          <ul className="max-h-64 list-disc overflow-y-auto pl-5 text-sm text-slate-800">
            {failed.map((result) => (
              <li key={result.id}>
                <span className="font-medium">{summary.names.get(result.id) ?? result.id}</span>: {result.error}
              </li>
            ))}
          </ul>
          <div className="flex justify-end">
            <Button ref={closeRef} kind="primary" onClick={onClose}>
              OK
            </Button>
          </div>
        </div>
      )}
    </ModalDialog>
  );
}
