"use client";

/**
 * The saved views of a list page (docs/api.md#saved-views): a menu of the caller's views and those
 * shared with the company, each opened by its link (the list's URL with the view's query and
 * `view=<id>`), copied, renamed or deleted; and "Save view", which keeps the page's current query.
 * A link that names only `view=<id>` loads the view and shows its query.
 */
import { ConfirmDialog, ModalDialog } from "@/components/ui/dialog";
import { ErrorMessage } from "@/components/ui/error-message";
import { useToast } from "@/components/ui/toast";
import { ApiError } from "@/lib/client/api";
import { useMe } from "@/lib/client/users";
import { savedQuery, useView, useViewActions, useViews, VIEW_PARAM, viewHref } from "@/lib/client/views";
import type { ViewRecord, ViewResource } from "@/lib/resources/views/contract";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { Badge, Button, Checkbox, Field, focusRing, inputClass, linkClass, Popover, Spinner } from "./ui";

type Editing = { mode: "save" } | { mode: "edit"; view: ViewRecord };

export function SavedViews({ resource, path }: { resource: ViewResource; path: string }) {
  const params = useSearchParams();
  const currentId = params.get(VIEW_PARAM);
  const query = savedQuery(params);
  const views = useViews(resource);
  const me = useMe();
  const opened = useView(currentId);
  const actions = useViewActions();
  const toast = useToast();
  const [menuOpen, setMenuOpen] = useState(false);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<ViewRecord | null>(null);
  const applied = useRef<string | null>(null);

  // A link that names only the view: its query is read from the server and shown.
  useEffect(() => {
    if (!currentId || query !== "" || applied.current === currentId) return;
    if (opened.data && opened.data.query !== "") {
      applied.current = currentId;
      window.history.replaceState(null, "", viewHref(path, opened.data));
    } else if (opened.isError) {
      applied.current = currentId;
      toast.show({
        tone: "error",
        message: "This saved view cannot be opened: it was deleted, or it is private to someone else.",
      });
      window.history.replaceState(null, "", path);
    }
  }, [currentId, query, opened.data, opened.isError, path, toast]);

  const list = views.data ?? [];
  const current =
    list.find((view) => view._id === currentId) ?? (opened.data?._id === currentId ? opened.data : undefined);
  const mine = list.filter((view) => view.ownerId === me.data?._id);
  const shared = list.filter((view) => view.ownerId !== me.data?._id);

  const copy = async (view: ViewRecord) => {
    const link = new URL(viewHref(path, view), window.location.origin).toString();
    try {
      await navigator.clipboard.writeText(link);
      toast.show({ tone: "success", message: `Link to “${view.name}” copied.` });
    } catch {
      toast.show({ tone: "info", message: `Copy this link: ${link}` });
    }
  };

  const remove = (view: ViewRecord) => {
    setDeleting(null);
    actions.remove.mutate(view._id, {
      onSuccess: () => {
        toast.show({ tone: "success", message: `View “${view.name}” deleted.` });
        if (view._id === currentId) window.history.replaceState(null, "", `${path}${query ? `?${query}` : ""}`);
      },
      onError: (error) => toast.show({ tone: "error", message: `The view could not be deleted. ${error.message}` }),
    });
  };

  return (
    <div className="mb-3 flex flex-wrap items-center gap-2">
      <Popover
        label={
          <>
            <span>Views{current && ":"}</span>
            {current && (
              <span className="max-w-48 truncate font-normal" data-testid="current-view">
                {current.name}
              </span>
            )}
            <span aria-hidden="true">▾</span>
          </>
        }
        open={menuOpen}
        onOpenChange={setMenuOpen}
        buttonClassName="flex items-center gap-1.5 rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50"
        panelClassName="left-0 w-[min(22rem,calc(100vw-2rem))] p-2"
      >
        {views.isLoading ? (
          <p className="flex items-center gap-2 p-2 text-sm text-slate-600">
            <Spinner /> Loading views…
          </p>
        ) : views.isError ? (
          <p className="p-2 text-sm text-rose-700">The views could not be loaded. {views.error.message}</p>
        ) : list.length === 0 ? (
          <p className="p-2 text-sm text-slate-600">
            No saved view yet. Set the filters you want, then choose “Save view”.
          </p>
        ) : (
          <>
            <ViewGroup
              title="Your views"
              views={mine}
              path={path}
              currentId={currentId}
              onOpen={() => setMenuOpen(false)}
              onCopy={copy}
              onEdit={(view) => setEditing({ mode: "edit", view })}
              onDelete={setDeleting}
            />
            <ViewGroup
              title="Shared with the company"
              views={shared}
              path={path}
              currentId={currentId}
              onOpen={() => setMenuOpen(false)}
              onCopy={copy}
              onEdit={(view) => setEditing({ mode: "edit", view })}
              onDelete={setDeleting}
            />
          </>
        )}
      </Popover>
      <Button onClick={() => setEditing({ mode: "save" })}>Save view</Button>

      <ViewDialog
        editing={editing}
        onClose={() => setEditing(null)}
        onSaved={(view, created) => {
          setEditing(null);
          toast.show({
            tone: "success",
            message: created ? `View “${view.name}” saved.` : `View “${view.name}” changed.`,
          });
          if (created) window.history.replaceState(null, "", viewHref(path, view));
        }}
        resource={resource}
        query={query}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the view “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete view"
        danger
        onConfirm={() => deleting && remove(deleting)}
        onCancel={() => setDeleting(null)}
      >
        {deleting?.shared
          ? "It is shared: it disappears for everyone in the company. Links to it keep showing its filters."
          : "Links to it keep showing its filters."}
      </ConfirmDialog>
    </div>
  );
}

function ViewGroup({
  title,
  views,
  path,
  currentId,
  onOpen,
  onCopy,
  onEdit,
  onDelete,
}: {
  title: string;
  views: ViewRecord[];
  path: string;
  currentId: string | null;
  onOpen: () => void;
  onCopy: (view: ViewRecord) => void;
  onEdit: (view: ViewRecord) => void;
  onDelete: (view: ViewRecord) => void;
}) {
  const id = useId();
  if (views.length === 0) return null;
  const small = `rounded px-1.5 py-0.5 text-xs font-medium text-slate-700 hover:bg-slate-100 ${focusRing}`;
  return (
    <section aria-labelledby={id} className="py-1">
      <h2 id={id} className="px-2 pb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">
        {title}
      </h2>
      <ul>
        {views.map((view) => (
          <li key={view._id} className="rounded px-2 py-1.5 hover:bg-slate-50">
            <div className="flex items-center gap-2">
              <Link
                href={viewHref(path, view)}
                onClick={onOpen}
                aria-current={view._id === currentId ? "true" : undefined}
                className={`min-w-0 truncate text-sm ${linkClass}`}
              >
                {view.name}
              </Link>
              {view.shared && title === "Your views" && <Badge tone="blue">Shared</Badge>}
            </div>
            <div className="mt-0.5 -ml-1.5 flex flex-wrap gap-1">
              <button type="button" className={small} onClick={() => onCopy(view)}>
                Copy link<span className="sr-only"> to {view.name}</span>
              </button>
              {view.editable && (
                <>
                  <button type="button" className={small} onClick={() => onEdit(view)}>
                    Edit<span className="sr-only"> {view.name}</span>
                  </button>
                  <button type="button" className={`${small} text-rose-700`} onClick={() => onDelete(view)}>
                    Delete<span className="sr-only"> {view.name}</span>
                  </button>
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The one dialog that saves the current view or changes a saved one (its name and whether it is shared). */
function ViewDialog({
  editing,
  onClose,
  ...form
}: {
  editing: Editing | null;
  resource: ViewResource;
  query: string;
  onClose: () => void;
  onSaved: (view: ViewRecord, created: boolean) => void;
}) {
  const titleId = useId();
  return (
    <ModalDialog
      open={editing !== null}
      first={(dialog) => dialog.querySelector("input")}
      onClose={onClose}
      labelledBy={titleId}
    >
      {editing && (
        <ViewForm
          key={editing.mode === "edit" ? editing.view._id : "new"}
          titleId={titleId}
          existing={editing.mode === "edit" ? editing.view : undefined}
          onClose={onClose}
          {...form}
        />
      )}
    </ModalDialog>
  );
}

function ViewForm({
  titleId,
  existing,
  resource,
  query,
  onClose,
  onSaved,
}: {
  titleId: string;
  existing: ViewRecord | undefined;
  resource: ViewResource;
  query: string;
  onClose: () => void;
  onSaved: (view: ViewRecord, created: boolean) => void;
}) {
  const actions = useViewActions();
  const [name, setName] = useState(existing?.name ?? "");
  const [shared, setShared] = useState(existing?.shared ?? false);
  const [error, setError] = useState<{ name?: string; form?: Error }>({});
  const pending = actions.save.isPending || actions.update.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === "") return setError({ name: "Give the view a name." });
    const failed = (failure: Error) => {
      const detail = failure instanceof ApiError ? failure.details.find((item) => item.path === "name") : undefined;
      // Anything but the name is shown whole: the API's reason, its details and the request id.
      setError(detail ? { name: `The name ${detail.message}.` } : { form: failure });
    };
    if (existing)
      actions.update.mutate(
        { id: existing._id, body: { name: name.trim(), shared } },
        { onSuccess: (view) => onSaved(view, false), onError: failed },
      );
    else
      actions.save.mutate(
        { resource, name: name.trim(), query, shared },
        { onSuccess: (view) => onSaved(view, true), onError: failed },
      );
  };

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4 p-5 sm:p-6">
      <h2 id={titleId} className="text-lg font-semibold text-slate-900">
        {existing ? "Edit view" : "Save the current view"}
      </h2>
      {!existing && (
        <p className="text-sm text-slate-700">
          Keeps the search and filters this list shows now, to open again with one click or share by its link.
        </p>
      )}
      <Field id="view-name" label="Name" error={error.name}>
        <input
          id="view-name"
          value={name}
          maxLength={100}
          onChange={(event) => setName(event.target.value)}
          aria-invalid={error.name ? true : undefined}
          aria-describedby={error.name ? "view-name-error" : undefined}
          className={inputClass}
          autoComplete="off"
        />
      </Field>
      <Checkbox
        checked={shared}
        onChange={(event) => setShared(event.target.checked)}
        label="Share with everyone in the company"
        labelClassName="text-sm text-slate-800"
      />
      {error.form && <ErrorMessage error={error.form} title="The view could not be saved" />}
      <div className="flex flex-wrap justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" kind="primary" disabled={pending}>
          {pending && <Spinner className="size-3.5" />}
          {existing ? "Save changes" : "Save view"}
        </Button>
      </div>
    </form>
  );
}
