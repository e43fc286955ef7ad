import type { ReactNode } from "react";

/** One field of a before / after display. */
interface ChangeRow {
  key: string;
  field: ReactNode;
  before: ReactNode;
  after: ReactNode;
  /** Whether the two sides differ: a changed row is marked (colour and words); all rows are, unless told. */
  changed?: boolean;
  /** Marks a row for tests and tools (`data-testid`, `data-field`). */
  data?: Record<`data-${string}`, string>;
}

/**
 * The one "field / before / after" table: an audit entry's changes, two revisions compared, an
 * edit beside the version saved meanwhile, a survey's permissions before and after an upgrade.
 * Fixed columns whose long values wrap anywhere, so nothing scrolls sideways on a phone; a changed
 * row is tinted, its old value rose and its new one emerald, and says "(changed)" to screen
 * readers when some rows did not change.
 */
export function ChangeTable({
  caption,
  rows,
  headers = ["Field", "Before", "After"],
  fieldClassName = "",
  plain = false,
  testId,
}: {
  caption: ReactNode;
  rows: ChangeRow[];
  /** The three column headers: the field, then the two sides. */
  headers?: [ReactNode, ReactNode, ReactNode];
  /** Classes of the field's cell (a path in monospace). */
  fieldClassName?: string;
  /** Two versions side by side, neither older (an edit beside the one saved meanwhile): no colours. */
  plain?: boolean;
  testId?: string;
}) {
  const mixed = rows.some((row) => row.changed === false);
  return (
    <div className="overflow-x-auto">
      <table className="w-full table-fixed text-left text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50 text-xs font-medium tracking-wide text-slate-500 uppercase">
          <tr>
            <th scope="col" className="w-[30%] px-4 py-2">
              {headers[0]}
            </th>
            <th scope="col" className="px-4 py-2">
              {headers[1]}
            </th>
            <th scope="col" className="px-4 py-2">
              {headers[2]}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row) => {
            const changed = !plain && row.changed !== false;
            return (
              <tr key={row.key} className={changed && mixed ? "bg-amber-50/60" : undefined} {...row.data}>
                <th
                  scope="row"
                  className={`px-4 py-2 align-top font-medium [overflow-wrap:anywhere] text-slate-700 ${fieldClassName}`}
                >
                  {row.field}
                  {changed && mixed && <span className="sr-only"> (changed)</span>}
                </th>
                <td
                  className={`px-4 py-2 align-top [overflow-wrap:anywhere] ${changed ? "text-rose-800" : "text-slate-700"}`}
                >
                  {row.before ?? "—"}
                </td>
                <td
                  className={`px-4 py-2 align-top [overflow-wrap:anywhere] ${changed ? "font-medium text-emerald-800" : "text-slate-700"}`}
                >
                  {row.after ?? "—"}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
