import { Button } from "./ui";

/** "Showing 11–20 of 37" with Previous and Next; page numbers count from 1. */
export function Pagination({
  page,
  limit,
  total,
  shown,
  noun,
  onPage,
}: {
  page: number;
  limit: number;
  /** Undefined when the list gives no total: Next is offered while pages come back full. */
  total: number | undefined;
  shown: number;
  noun: string;
  onPage: (page: number) => void;
}) {
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / limit));
  const first = (page - 1) * limit + 1;
  const hasNext = pages === undefined ? shown === limit : page < pages;
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-3 border-t border-slate-200 px-4 py-3 text-sm text-slate-600">
      <p>
        {shown > 0 ? (
          <>
            Showing <strong className="font-medium text-slate-900">{first}</strong>–<strong className="font-medium text-slate-900">{first + shown - 1}</strong>
            {total !== undefined && (
              <>
                {" "}
                of <strong className="font-medium text-slate-900">{total.toLocaleString("en")}</strong>
              </>
            )}{" "}
            {noun}
          </>
        ) : (
          <>No {noun} on this page</>
        )}
      </p>
      <div className="flex items-center gap-2">
        <Button onClick={() => onPage(page - 1)} disabled={page <= 1} aria-label="Previous page">
          ← Previous
        </Button>
        <span className="px-1 tabular-nums">
          Page {page}
          {pages !== undefined && ` of ${pages}`}
        </span>
        <Button onClick={() => onPage(page + 1)} disabled={!hasNext} aria-label="Next page">
          Next →
        </Button>
      </div>
    </nav>
  );
}
