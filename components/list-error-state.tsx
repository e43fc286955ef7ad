"use client";

import { ErrorMessage } from "./error-message";
import { Button } from "./ui";

/** A list that failed to load: what happened, and a Retry that asks again. */
export function ListErrorState({ error, title, onRetry, retrying }: { error: unknown; title: string; onRetry: () => void; retrying?: boolean }) {
  return (
    <div className="flex flex-col items-start gap-3 p-4">
      <ErrorMessage error={error} title={title} />
      <Button onClick={onRetry} disabled={retrying}>
        {retrying ? "Retrying…" : "Retry"}
      </Button>
    </div>
  );
}
