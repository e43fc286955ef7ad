"use client";

import { ApiError } from "@/lib/client/api";
import { Button } from "./button";
import { ErrorMessage } from "./error-message";
import { Card } from "./page";
import { EmptyState } from "./status";

/**
 * What a page or list shows when what it reads failed to load: what happened (with the request
 * id to quote to support) and a Retry button, in place of any spinner or count that was waiting.
 * Pass the query's `refetch` as `onRetry` and its `isFetching` as `retrying`; `framed={false}`
 * when it stands inside a card of its own (a list's).
 */
export function ErrorState({
  error,
  title,
  onRetry,
  retrying = false,
  className = "",
  framed = true,
  notFoundTitle = "Not found",
}: {
  error: unknown;
  title: string;
  /** What a `404` says, calmly, in place of the error: the record is not there, nothing failed. */
  notFoundTitle?: string;
  onRetry?: () => unknown;
  retrying?: boolean;
  className?: string;
  framed?: boolean;
}) {
  if (error instanceof ApiError && error.status === 404) {
    const calm = (
      <EmptyState title={notFoundTitle}>
        {error.message} It may have been deleted, or the link may be incomplete.
      </EmptyState>
    );
    return framed ? <Card className={className}>{calm}</Card> : <div className={className}>{calm}</div>;
  }
  // A record that cannot be read will not appear on a retry: no button then.
  const retryable = onRetry && !(error instanceof ApiError && (error.status === 404 || error.status === 403));
  const content = (
    <>
      <ErrorMessage error={error} title={title} />
      {retryable && (
        <div>
          <Button kind="primary" onClick={() => onRetry()} disabled={retrying}>
            {retrying ? "Retrying…" : "Retry"}
          </Button>
        </div>
      )}
    </>
  );
  return framed ? (
    <Card className={`flex flex-col gap-4 p-5 sm:p-6 ${className}`}>{content}</Card>
  ) : (
    <div className={`flex flex-col gap-4 p-4 ${className}`}>{content}</div>
  );
}
