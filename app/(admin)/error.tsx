"use client";

import { Failed } from "@/components/shell-frame";
import { useEffect } from "react";

/** An admin page that failed while rendering: said plainly inside the shell, with a Retry. */
export default function AdminError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    document.title = "Something went wrong · Users & Surveys";
  }, []);
  return <Failed what="This page" error={error} reset={reset} />;
}
