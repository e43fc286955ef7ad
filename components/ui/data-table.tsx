"use client";

/**
 * The one table of every admin list, built on TanStack Table: the whole row opens its record
 * (click anywhere, or Enter on a focused row; the first cell keeps a real link for a new tab and
 * screen readers), the server's sort shown and toggled in its column header with `aria-sort`, a
 * column chooser remembered per browser, cards instead of columns on a phone, and optionally a
 * checkbox per row (and one for the page) to choose rows for an action on many at once.
 */
import { focusHeadingAfterNavigation } from "@/lib/client/feedback";
import {
  columnVisibilityFeature,
  FlexRender,
  rowSortingFeature,
  tableFeatures,
  useTable,
  type ColumnDef,
  type RowData,
  type SortingState,
  type Updater,
  type ColumnVisibilityState as VisibilityState,
} from "@tanstack/react-table";
import Link from "next/link";
import { useRouter } from "next/navigation";
import {
  createContext,
  Fragment,
  useContext,
  useMemo,
  useState,
  useSyncExternalStore,
  type KeyboardEvent,
  type MouseEvent,
  type ReactNode,
} from "react";
import { Button, linkClass } from "./button";
import { Checkbox } from "./checkbox";
import { focusRing } from "./focus-ring";
import { Popover } from "./popover";
import { Spinner } from "./status";

const features = tableFeatures({ columnVisibilityFeature, rowSortingFeature });

export interface DataColumn<T> {
  id: string;
  header: string;
  cell: (row: T) => ReactNode;
  /** Classes of the column's cells (widths, truncation). */
  className?: string;
  /** Whether the column chooser may hide it; the first column never hides. */
  hideable?: boolean;
  /** Hidden until chosen in the column chooser. */
  hiddenByDefault?: boolean;
  /** The header is read by screen readers only (a column of buttons whose labels say it all). */
  headerHidden?: boolean;
}

/**
 * The server's order, shown in the header of the column it sorts on (`aria-sort`). Each column of
 * `columns` (only `column` when absent) is a button: on the sorted column it reverses the order,
 * on another it sorts by that one, newest or highest first for those of `descFirst`, A→Z otherwise.
 */
export interface ServerSort {
  column: string;
  desc: boolean;
  onChange: (desc: boolean, column: string) => void;
  columns?: readonly string[];
  descFirst?: readonly string[];
}

const sortableBy = (sort: ServerSort | undefined, id: string) =>
  sort ? (sort.columns ?? [sort.column]).includes(id) : false;
/** The words of an order on phones, where there are no headers: dates are newest or oldest first, text A→Z or Z→A. */
const orderWords = (sort: ServerSort) =>
  (sort.descFirst ?? [sort.column]).includes(sort.column)
    ? sort.desc
      ? "Newest first ↓"
      : "Oldest first ↑"
    : sort.desc
      ? "Z → A ↓"
      : "A → Z ↑";

/** Whether the table layout (640 px and up, Tailwind's `sm`) is the one on screen. */
const WIDE = "(min-width: 640px)";
const isWide = () => matchMedia(WIDE).matches;
function subscribeWide(onChange: () => void): () => void {
  const media = matchMedia(WIDE);
  media.addEventListener("change", onChange);
  return () => media.removeEventListener("change", onChange);
}

export interface DataTableProps<T extends RowData> {
  /** Names the table in the column chooser's storage key: one choice per list and browser. */
  name: string;
  caption: string;
  rows: T[];
  columns: DataColumn<T>[];
  rowId: (row: T) => string;
  /** Where a row leads: the first cell links there, and so does the whole row. */
  rowHref: (row: T) => string;
  /** The text of the first cell's link. */
  rowLabel: (row: T) => ReactNode;
  sort?: ServerSort;
  /** The pointer or focus is on a row: the page may prefetch its record. */
  onRowIntent?: (row: T) => void;
  /** Shown left of the column chooser, above the rows (the total, a spinner). */
  toolbar?: ReactNode;
  /** Classes of a row (or its card), such as a highlight of the rows a page has chosen. */
  rowClassName?: (row: T) => string;
  /** Rows can be chosen: a checkbox each, and one for every row of the page. */
  selection?: RowSelection<T>;
  /** The details of one row, opened in place: right under it, in whichever layout (table or cards) is shown. */
  detail?: { rowId: string | undefined; render: (row: T) => ReactNode };
}

export interface RowSelection<T> {
  /** The ids of the rows chosen (rows of other pages may be among them). */
  selected: ReadonlySet<string>;
  /** Rows were chosen (`true`) or let go. */
  onChange: (ids: string[], selected: boolean) => void;
  /** How a row is named in its checkbox's label ("Select Ana Pérez"). */
  rowName: (row: T) => string;
}

/**
 * Which of its two renderings a cell is in: the table (tablet and up) or the phone's cards. Both
 * are in the page, one hidden, so a cell holding a form control (a radio button) names its group
 * after this, and the two renderings never share one group.
 */
const LayoutContext = createContext<"table" | "cards">("table");
export const useDataTableLayout = () => useContext(LayoutContext);

const storageKey = (name: string) => `data-table:${name}:hidden-columns`;

function readHidden(name: string): string[] {
  try {
    const value: unknown = JSON.parse(window.localStorage.getItem(storageKey(name)) ?? "[]");
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
  } catch {
    return [];
  }
}

/** The columns a person chose to see, kept in this browser's localStorage. */
function useColumnChoice(name: string, columns: { id: string; hiddenByDefault?: boolean }[]) {
  // Lists render only in the browser (their data comes from the client's own requests), so
  // localStorage is there when this runs.
  const [hidden, setHidden] = useState<string[]>(() =>
    typeof window === "undefined" || window.localStorage.getItem(storageKey(name)) === null
      ? columns.filter((column) => column.hiddenByDefault).map((column) => column.id)
      : readHidden(name),
  );
  const visibility: VisibilityState = Object.fromEntries(hidden.map((id) => [id, false]));
  const change = (updater: Updater<VisibilityState>) => {
    const next = typeof updater === "function" ? updater(visibility) : updater;
    const ids = Object.entries(next)
      .filter(([, visible]) => !visible)
      .map(([id]) => id);
    window.localStorage.setItem(storageKey(name), JSON.stringify(ids));
    setHidden(ids);
  };
  return [visibility, change] as const;
}

/** Clicks on controls inside a row (the link itself, a button) keep their own meaning. */
const isControl = (target: EventTarget | null) =>
  target instanceof Element && target.closest("a, button, input, select, textarea, label, summary") !== null;

export function DataTable<T extends RowData>({
  name,
  caption,
  rows,
  columns,
  rowId,
  rowHref,
  rowLabel,
  sort,
  onRowIntent,
  toolbar,
  rowClassName,
  selection,
  detail,
}: DataTableProps<T>) {
  const router = useRouter();
  // An opened row's details are drawn in the layout on screen only: ids and test ids stay unique.
  const wide = useSyncExternalStore(subscribeWide, isWide, () => true);
  const detailOf = (row: T) =>
    detail && detail.rowId !== undefined && rowId(row) === detail.rowId ? detail : undefined;
  const [visibility, setVisibility] = useColumnChoice(name, columns);
  const [chooserOpen, setChooserOpen] = useState(false);

  // The sortable columns by value, so that a new array of the same names keeps the definitions.
  const sortable = sort ? (sort.columns ?? [sort.column]).join("\n") : "";
  const defs = useMemo<ColumnDef<typeof features, T>[]>(
    () =>
      columns.map((column, index) => ({
        id: column.id,
        header: column.header,
        accessorFn: (row: T) => row,
        cell: (context) =>
          index === 0 ? (
            <FirstCell href={rowHref(context.row.original)}>{rowLabel(context.row.original)}</FirstCell>
          ) : (
            column.cell(context.row.original)
          ),
        enableHiding: index > 0 && column.hideable !== false && column.id !== sort?.column,
        enableSorting: sortable.split("\n").includes(column.id),
      })),
    [columns, rowHref, rowLabel, sort?.column, sortable],
  );
  const sorting: SortingState = sort ? [{ id: sort.column, desc: sort.desc }] : [];

  const table = useTable({
    features,
    columns: defs,
    data: rows,
    getRowId: (row) => rowId(row),
    // The sorted column always shows, also one hidden by default (Created).
    state: { columnVisibility: sort ? { ...visibility, [sort.column]: true } : visibility, sorting },
    onColumnVisibilityChange: setVisibility,
    manualSorting: true,
    enableSortingRemoval: false,
    enableMultiSort: false,
    onSortingChange: (updater) => {
      if (!sort) return;
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const column = next[0]?.id ?? sort.column;
      if (column === sort.column) sort.onChange(!sort.desc, column);
      else sort.onChange((sort.descFirst ?? []).includes(column), column);
    },
  });

  const classOf = (id: string) => columns.find((column) => column.id === id)?.className ?? "";
  const headerHiddenOf = (id: string) => columns.find((column) => column.id === id)?.headerHidden === true;

  const open = (row: T, event: MouseEvent | KeyboardEvent) => {
    const href = rowHref(row);
    if (event.metaKey || event.ctrlKey) window.open(href, "_blank", "noopener");
    else {
      // The record opened takes the focus on its heading, as after a save (not left on <body>).
      focusHeadingAfterNavigation();
      router.push(href);
    }
  };
  const rowProps = (row: T) => ({
    tabIndex: 0,
    onClick: (event: MouseEvent) => {
      if (isControl(event.target) || window.getSelection()?.toString()) return;
      open(row, event);
    },
    onKeyDown: (event: KeyboardEvent) => {
      if (event.key === "Enter" && event.target === event.currentTarget) open(row, event);
    },
    onMouseEnter: () => onRowIntent?.(row),
    onFocus: () => onRowIntent?.(row),
  });

  const hideable = table.getAllLeafColumns().filter((column) => column.getCanHide());
  const pageIds = rows.map(rowId);
  const chosen = selection ? pageIds.filter((id) => selection.selected.has(id)).length : 0;
  const pageState = chosen === 0 ? "none" : chosen === pageIds.length ? "all" : "some";
  const choosePage = (checked: boolean) => selection?.onChange(pageIds, checked);
  const highlight = (row: T) =>
    `${rowClassName?.(row) ?? ""} ${selection?.selected.has(rowId(row)) ? "bg-sky-50" : ""}`;
  const rowCheckbox = (row: T, className: string) =>
    selection && (
      // Named by aria-label, not text, so the cell's text stays the row's own.
      <label className={`flex cursor-pointer items-center ${className}`}>
        <Checkbox
          aria-label={`Select ${selection.rowName(row)}`}
          checked={selection.selected.has(rowId(row))}
          onChange={(event) => selection.onChange([rowId(row)], event.target.checked)}
        />
      </label>
    );
  const visibleCells = (row: ReturnType<typeof table.getRowModel>["rows"][number]) => row.getVisibleCells();

  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 px-4 py-3">
        <div className="flex items-center gap-2 text-sm text-slate-700">{toolbar}</div>
        <div className="flex items-center gap-2">
          {sort && (sort.columns?.length ?? 0) > 1 && (
            <label className="flex items-center gap-1.5 text-sm text-slate-700 sm:hidden">
              <span>Sort by</span>
              <select
                value={sort.column}
                onChange={(event) =>
                  sort.onChange((sort.descFirst ?? []).includes(event.target.value), event.target.value)
                }
                className={`rounded-md border border-slate-300 bg-white px-2 py-1 text-sm text-slate-800 ${focusRing}`}
              >
                {columns
                  .filter((column) => sortableBy(sort, column.id))
                  .map((column) => (
                    <option key={column.id} value={column.id}>
                      {column.header}
                    </option>
                  ))}
              </select>
            </label>
          )}
          {sort && (
            <button
              type="button"
              onClick={() => sort.onChange(!sort.desc, sort.column)}
              className={`rounded-md border border-slate-300 px-2.5 py-1 text-sm text-slate-700 sm:hidden ${focusRing}`}
            >
              {orderWords(sort)}
            </button>
          )}
          {hideable.length > 0 && (
            <Popover
              label="Columns"
              open={chooserOpen}
              onOpenChange={setChooserOpen}
              as="fieldset"
              panelClassName="right-0 w-56 p-3"
            >
              <legend className="sr-only">Columns shown</legend>
              {hideable.map((column) => (
                <label key={column.id} className="flex items-center gap-2 py-1 text-sm text-slate-800">
                  <Checkbox checked={column.getIsVisible()} onChange={column.getToggleVisibilityHandler()} />
                  {String(column.columnDef.header)}
                  <span className="sr-only"> column</span>
                </label>
              ))}
            </Popover>
          )}
        </div>
      </div>

      <div className="hidden overflow-x-auto sm:block">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">{caption}</caption>
          <thead className="bg-slate-50 text-xs font-medium tracking-wide text-slate-500 uppercase">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header, index) => {
                  const sorted = header.column.getIsSorted();
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      aria-sort={
                        sorted === "desc"
                          ? "descending"
                          : sorted === "asc"
                            ? "ascending"
                            : header.column.getCanSort()
                              ? "none"
                              : undefined
                      }
                      className={`px-4 py-2.5 ${classOf(header.column.id)}`}
                    >
                      {/* The checkbox shares the first cell, so every column keeps its place. */}
                      {selection && index === 0 && (
                        <PageCheckbox state={pageState} onChange={choosePage} className="float-left mr-3" />
                      )}
                      {header.column.getCanSort() ? (
                        <button
                          type="button"
                          onClick={header.column.getToggleSortingHandler()}
                          className={`inline-flex items-center gap-1 tracking-wide uppercase hover:text-slate-800 ${focusRing}`}
                        >
                          <FlexRender header={header} />
                          <span aria-hidden="true" className={sorted ? "" : "text-slate-400"}>
                            {sorted === "asc" ? "↑" : sorted === "desc" ? "↓" : "↕"}
                          </span>
                        </button>
                      ) : headerHiddenOf(header.column.id) ? (
                        <span className="sr-only">
                          <FlexRender header={header} />
                        </span>
                      ) : (
                        <FlexRender header={header} />
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <LayoutContext.Provider value="table">
            <tbody data-rows className="divide-y divide-slate-100">
              {table.getRowModel().rows.map((row) => (
                <Fragment key={row.id}>
                  <tr
                    {...rowProps(row.original)}
                    className={`cursor-pointer hover:bg-slate-50 focus-visible:bg-sky-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-sky-600 ${highlight(row.original)}`}
                  >
                    {visibleCells(row).map((cell, index) => (
                      <td key={cell.id} className={`px-4 py-2.5 text-slate-700 ${classOf(cell.column.id)}`}>
                        {selection && index === 0 ? (
                          <div className="flex items-center gap-3">
                            {rowCheckbox(row.original, "")}
                            <FlexRender cell={cell} />
                          </div>
                        ) : (
                          <FlexRender cell={cell} />
                        )}
                      </td>
                    ))}
                  </tr>
                  {wide && detailOf(row.original) && (
                    <tr data-testid="row-detail">
                      <td colSpan={visibleCells(row).length} className="bg-slate-50 px-4 py-4 text-slate-800">
                        {detailOf(row.original)!.render(row.original)}
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </LayoutContext.Provider>
        </table>
      </div>

      {/* On a phone each row is a card: every chosen column stays in reach, none scrolls sideways. */}
      <LayoutContext.Provider value="cards">
        {selection && (
          <div className="border-b border-slate-100 px-4 py-2 sm:hidden">
            <PageCheckbox state={pageState} onChange={choosePage} visibleLabel />
          </div>
        )}
        <ul data-rows aria-label={caption} className="divide-y divide-slate-100 sm:hidden">
          {table.getRowModel().rows.map((row) => {
            const [first, ...rest] = visibleCells(row);
            const card = (
              <li
                key={row.id}
                {...rowProps(row.original)}
                data-testid="data-card"
                className={`cursor-pointer px-4 py-3 hover:bg-slate-50 focus-visible:bg-sky-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-sky-600 ${highlight(row.original)} ${selection ? "flex items-start gap-3" : ""}`}
              >
                {rowCheckbox(row.original, "pt-0.5")}
                <div className="min-w-0 flex-1">
                  {first && <FlexRender cell={first} />}
                  <dl className="mt-1 grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 text-sm">
                    {rest.map((cell) => (
                      <div key={cell.id} className="contents">
                        <dt className={`text-xs text-slate-500 ${headerHiddenOf(cell.column.id) ? "sr-only" : ""}`}>
                          {String(cell.column.columnDef.header)}
                        </dt>
                        <dd className="min-w-0 break-words text-slate-700">
                          <FlexRender cell={cell} />
                        </dd>
                      </div>
                    ))}
                  </dl>
                </div>
              </li>
            );
            const opened = !wide && detailOf(row.original);
            return opened ? (
              <Fragment key={row.id}>
                {card}
                <li data-testid="row-detail" className="bg-slate-50 px-4 py-4 text-slate-800">
                  {opened.render(row.original)}
                </li>
              </Fragment>
            ) : (
              card
            );
          })}
        </ul>
      </LayoutContext.Provider>
    </>
  );
}

/** Chooses or lets go every row of the page; mixed while only some are chosen. */
function PageCheckbox({
  state,
  onChange,
  visibleLabel = false,
  className = "",
}: {
  state: "none" | "some" | "all";
  onChange: (checked: boolean) => void;
  visibleLabel?: boolean;
  className?: string;
}) {
  return (
    <label
      className={`flex cursor-pointer items-center gap-2 text-sm tracking-normal text-slate-700 normal-case ${className}`}
    >
      <Checkbox
        indeterminate={state === "some"}
        aria-label={visibleLabel ? undefined : "Select all on this page"}
        checked={state === "all"}
        onChange={(event) => onChange(event.target.checked)}
      />
      {visibleLabel && "Select all on this page"}
    </label>
  );
}

function FirstCell({ href, children }: { href: string; children: ReactNode }) {
  // Every page is rendered per request (the CSP nonce), so Next's default prefetch fetches nothing
  // of a record's page: `prefetch` fetches it whole (and its code) as the row comes into view, so
  // a click waits for no server round trip (docs/architecture.md#the-admin-pages).
  return (
    <Link
      href={href}
      prefetch
      onClick={(event) => !(event.metaKey || event.ctrlKey || event.shiftKey) && focusHeadingAfterNavigation()}
      className={`block max-w-60 truncate ${linkClass}`}
    >
      {children}
    </Link>
  );
}

/** The applied filters, each removable on its own, and "Clear all". */
export function FilterChips({
  chips,
  onClearAll,
}: {
  chips: { key: string; label: string; onRemove: () => void }[];
  onClearAll: () => void;
}) {
  if (chips.length === 0) return null;
  return (
    <div className="mt-4 flex flex-wrap items-center gap-2" role="group" aria-label="Applied filters">
      {chips.map((chip) => (
        <span
          key={chip.key}
          className="inline-flex max-w-full items-center gap-1 rounded-full border border-sky-200 bg-sky-50 py-0.5 pr-1 pl-3 text-sm text-sky-900"
        >
          <span className="truncate">{chip.label}</span>
          {/* Named by text, not aria-label, so the filter's own field keeps its label to itself. */}
          <button
            type="button"
            onClick={chip.onRemove}
            className={`rounded-full px-1.5 text-sky-700 hover:bg-sky-100 ${focusRing}`}
          >
            <span className="sr-only">Remove filter {chip.label}</span>
            <span aria-hidden="true">×</span>
          </button>
        </span>
      ))}
      <button
        type="button"
        onClick={onClearAll}
        className={`rounded-md px-2 py-0.5 text-sm font-medium text-slate-700 underline-offset-2 hover:underline ${focusRing}`}
      >
        Clear all
      </button>
    </div>
  );
}

/** On a phone a list's filters fold behind one button that counts those applied. */
export function FiltersToggle({
  open,
  onToggle,
  applied,
  controls,
}: {
  open: boolean;
  onToggle: () => void;
  applied: number;
  controls: string;
}) {
  return (
    <Button className="mb-3 w-full sm:hidden" onClick={onToggle} aria-expanded={open} aria-controls={controls}>
      Filters
      {applied > 0 && (
        <span data-testid="filters-count" className="rounded-full bg-sky-100 px-1.5 text-xs text-sky-800">
          {applied}
        </span>
      )}
    </Button>
  );
}

/** A list's total ("298 users"); "Counting…" only while it is asked for, so a failed read leaves none behind. */
export function ListTotal({
  total,
  noun,
  fetching,
  refreshing,
}: {
  total: number | undefined;
  noun: readonly [one: string, many: string];
  fetching: boolean;
  refreshing: boolean;
}) {
  return (
    <p aria-live="polite" className="flex items-center gap-2">
      {total === undefined ? (
        fetching && <span>Counting…</span>
      ) : (
        <span data-testid={`${noun[1]}-total`}>
          <strong className="font-semibold text-slate-900">{total.toLocaleString("en")}</strong>{" "}
          {total === 1 ? noun[0] : noun[1]}
        </span>
      )}
      {refreshing && <Spinner className="size-3.5 text-slate-400" />}
    </p>
  );
}
