"use client";

import { installHistoryGuard } from "@/lib/client/history-guard";

// At module evaluation, while the page hydrates: before the App Router adds its own listener.
installHistoryGuard();

/** Rendered once by the root layout so that the listener above is the first on every page. */
export function HistoryGuard(): null {
  return null;
}
