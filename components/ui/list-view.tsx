import type { ReactNode } from "react";
import { ErrorState } from "./error-state";
import { Card } from "./page";
import { EmptyState, Loading } from "./status";

/** What a list reads, as a react-query result gives it. */
interface ListQuery {
  isLoading: boolean;
  isError: boolean;
  error: unknown;
  isFetching: boolean;
  /** The rows shown are the previous query's, while this one loads (react-query's `keepPreviousData`). */
  isPlaceholderData?: boolean;
  refetch: () => unknown;
}

/**
 * The cascade of every list: "Loading…" until the first answer, the error with Retry when the
 * read failed, the empty state when there are no rows, and the rows (the table) otherwise.
 * `empty` is the empty state's slot: its title and what to do next (a hint, a button). `inCard`
 * when the list already stands inside a card of its own (the error and the empty state take no
 * second frame); otherwise the error and the empty state come framed, and the rows' renderer
 * frames the table itself. While another order, filter or page loads, the previous rows stay,
 * dimmed (`data-rows` in the data table) and marked busy (`aria-busy`), so that no one reads them
 * as the new answer.
 */
export function ListView<Row>({
  query,
  rows,
  loading,
  error,
  empty,
  inCard = false,
  children,
}: {
  query: ListQuery;
  rows: Row[] | undefined;
  /** The words while loading ("Loading users…"). */
  loading: string;
  /** The title of the error ("The users could not be loaded"). */
  error: string;
  empty: { title: string; children?: ReactNode };
  inCard?: boolean;
  children: (rows: Row[]) => ReactNode;
}) {
  if (query.isLoading) {
    const spinner = <Loading label={loading} />;
    return inCard ? <div className="px-4">{spinner}</div> : spinner;
  }
  if (query.isError)
    return (
      <ErrorState
        framed={!inCard}
        error={query.error}
        title={error}
        onRetry={() => query.refetch()}
        retrying={query.isFetching}
      />
    );
  if (!rows) return null;
  if (rows.length === 0) {
    const state = <EmptyState title={empty.title}>{empty.children}</EmptyState>;
    return inCard ? state : <Card>{state}</Card>;
  }
  const stale = query.isPlaceholderData === true;
  return (
    <div aria-busy={stale || undefined} className={stale ? "[&_[data-rows]]:opacity-60" : undefined}>
      {children(rows)}
    </div>
  );
}
