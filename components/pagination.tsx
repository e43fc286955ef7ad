import { MAX_PAGE_DEPTH } from "@/lib/base/schemas/common";
import { pageReach } from "@/lib/client/page-reach";
import { Button, inputClass } from "./ui";

/** The page numbers shown around the current one: first, last, and two either side; gaps as null. */
function pageWindow(page: number, pages: number): (number | null)[] {
  const shown = new Set([1, pages, page - 2, page - 1, page, page + 1, page + 2].filter((n) => n >= 1 && n <= pages));
  const sorted = [...shown].sort((a, b) => a - b);
  const out: (number | null)[] = [];
  for (const n of sorted) {
    const last = out.at(-1);
    if (typeof last === "number" && n - last > 1) out.push(null);
    out.push(n);
  }
  return out;
}

/** "Showing 11–20 of 293", page numbers with first/last, and the page size; pages count from 1. */
export function Pagination({
  page,
  limit,
  total,
  shown,
  noun,
  onPage,
  pageSizes,
  onLimit,
}: {
  page: number;
  limit: number;
  /** Undefined when the list gives no total: Next is offered while pages come back full. */
  total: number | undefined;
  shown: number;
  /** What the list holds, one and many: "user", "users". */
  noun: readonly [one: string, many: string];
  onPage: (page: number) => void;
  /** With onLimit: the page sizes a person may choose. */
  pageSizes?: readonly number[];
  onLimit?: (limit: number) => void;
}) {
  // A page by number reaches at most MAX_PAGE_DEPTH records deep (docs/api.md#paging): no page past it is offered.
  const { pages, capped, hasNext } = pageReach(page, limit, total, shown);
  const first = (page - 1) * limit + 1;
  const pageButton = "min-w-9 px-2.5";
  return (
    <nav
      aria-label="Pages"
      className="flex flex-wrap items-center justify-between gap-3 border-t border-slate-200 px-4 py-3 text-sm text-slate-600"
    >
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        <p data-testid="showing">
          {shown > 0 ? (
            <>
              Showing <strong className="font-medium text-slate-900">{first.toLocaleString("en")}</strong>–
              <strong className="font-medium text-slate-900">{(first + shown - 1).toLocaleString("en")}</strong>
              {total !== undefined && (
                <>
                  {" "}
                  of <strong className="font-medium text-slate-900">{total.toLocaleString("en")}</strong>
                </>
              )}{" "}
              {(total ?? shown) === 1 ? noun[0] : noun[1]}
            </>
          ) : (
            <>No {noun[1]} on this page</>
          )}
        </p>
        {pageSizes && onLimit && (
          <label className="flex items-center gap-2 whitespace-nowrap">
            Per page
            <select
              value={limit}
              onChange={(event) => onLimit(Number(event.target.value))}
              className={`${inputClass} w-auto py-1`}
            >
              {pageSizes.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </select>
          </label>
        )}
        {capped && (
          <p data-testid="page-depth" className="basis-full text-xs text-slate-500">
            Pages reach the first {MAX_PAGE_DEPTH.toLocaleString("en")} {noun[1]}; find the others by search or filters,
            or by reversing the order where the list offers it.
          </p>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-1">
        <span className="sr-only sm:not-sr-only sm:px-2 sm:tabular-nums">
          Page {page}
          {pages !== undefined && ` of ${pages}`}
        </span>
        {pages !== undefined && (
          <Button onClick={() => onPage(1)} disabled={page <= 1} aria-label="First page" className={pageButton}>
            «
          </Button>
        )}
        <Button onClick={() => onPage(page - 1)} disabled={page <= 1} aria-label="Previous page" className={pageButton}>
          ‹
        </Button>
        {pages !== undefined &&
          pageWindow(Math.min(page, pages), pages).map((n, index) =>
            n === null ? (
              <span key={`gap-${index}`} aria-hidden="true" className="px-1">
                …
              </span>
            ) : (
              <Button
                key={n}
                kind={n === page ? "primary" : "secondary"}
                onClick={() => onPage(n)}
                aria-label={`Page ${n}`}
                aria-current={n === page ? "page" : undefined}
                className={`${pageButton} tabular-nums ${n === page || n === 1 || n === pages ? "" : "max-sm:hidden"}`}
              >
                {n}
              </Button>
            ),
          )}
        <Button onClick={() => onPage(page + 1)} disabled={!hasNext} aria-label="Next page" className={pageButton}>
          ›
        </Button>
        {pages !== undefined && (
          <Button onClick={() => onPage(pages)} disabled={page >= pages} aria-label="Last page" className={pageButton}>
            »
          </Button>
        )}
      </div>
    </nav>
  );
}
