import { useState } from "react";

/** The query fields that page through a list or order it without changing which records match. */
const PAGING = new Set(["page", "limit", "cursor", "orderBy", "sort", "sortBy"]);

/** The part of a list's query that decides which records match, as a stable text. */
function matchKey(query: object): string {
  return JSON.stringify(
    Object.entries(query)
      .filter(([name]) => !PAGING.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/**
 * A list's total, only while it counts the filters shown: a page turn keeps the last total (the
 * same records match), a changed filter has none until its own answer arrives, so the toolbar
 * never shows the count of the filters just left (docs/architecture.md#the-admin-pages).
 */
export function useListTotal(counter: number | undefined, placeholder: boolean, query: object): number | undefined {
  const key = matchKey(query);
  const [settled, setSettled] = useState<{ key: string; total: number }>();
  // Adjusting state while rendering, as React's docs describe, keeps the last settled count in step without an effect.
  if (!placeholder && counter !== undefined && (settled?.key !== key || settled.total !== counter))
    setSettled({ key, total: counter });
  if (!placeholder) return counter;
  return settled?.key === key ? settled.total : undefined;
}
