"use client";

import { useEffect } from "react";
import { Lost } from "@/components/shell-frame";
import { Button } from "@/components/ui";

/** An admin page that failed while rendering: said plainly inside the shell, with a Retry. */
export default function AdminError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    document.title = "Something went wrong · Users & Surveys";
  }, []);
  return (
    <Lost
      status="Error"
      title="Something went wrong"
      actions={
        <Button kind="primary" onClick={reset}>
          Retry
        </Button>
      }
    >
      <p>This page could not be shown. Retry, or go back to the users list.</p>
      {error.digest && <p className="mt-2 text-sm text-slate-600">Error reference: {error.digest}</p>}
    </Lost>
  );
}
