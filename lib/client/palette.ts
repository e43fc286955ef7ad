/**
 * What the command palette finds: users and surveys through the same `/v2` searches as their
 * lists (so the same words find the same records, inactive ones included), a few of each, once
 * typing pauses. The queries share the lists' cache keys: a record found here opens at once.
 */
import { useSyncExternalStore } from "react";
import { useSurveyList } from "./surveys";
import { useDebouncedValue } from "./use-debounced-value";
import { useUserList } from "./users";

/** Records of each kind the palette shows: enough to pick from, few enough to read. */
const PALETTE_LIMIT = 5;
const DEBOUNCE_MS = 200;

/**
 * The users and surveys that match what is typed. A newer search replaces the older one's query,
 * which React Query then aborts (its request carries the query's AbortSignal), so a slow answer to
 * an old search never lands after a newer one.
 */
export function usePaletteSearch(text: string) {
  const term = useDebouncedValue(text.trim(), DEBOUNCE_MS);
  const enabled = term.length > 0;
  const users = useUserList(
    { search: term, isActive: "all", limit: PALETTE_LIMIT, sort: "modifiedAt", orderBy: "desc", count: true },
    { enabled },
  );
  const surveys = useSurveyList({ search: term, isActive: "all", page: 1, limit: PALETTE_LIMIT }, { enabled });
  const waiting = text.trim() !== term || (enabled && (users.isFetching || surveys.isFetching));
  return {
    term,
    waiting,
    users: enabled ? (users.data?.data.users ?? []) : [],
    surveys: enabled ? (surveys.data?.data.surveys ?? []) : [],
    /** How many match in all (the palette shows the first few). */
    userTotal: enabled ? (users.data?.data.counter ?? 0) : 0,
    surveyTotal: enabled ? (surveys.data?.data.counter ?? 0) : 0,
    error: enabled ? (users.error ?? surveys.error) : null,
    retry: () => {
      if (users.isError) void users.refetch();
      if (surveys.isError) void surveys.refetch();
    },
  };
}

const noSubscription = () => () => undefined;

/** Apple keyboards say ⌘K, the others Ctrl+K; the server's HTML says Ctrl until the browser knows. */
export function useShortcutLabel(): string {
  const mac = useSyncExternalStore(
    noSubscription,
    () => /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent),
    () => false,
  );
  return mac ? "⌘K" : "Ctrl K";
}

/** The palette's shortcut: Ctrl+K, or ⌘K on a Mac. */
export const isPaletteShortcut = (event: KeyboardEvent) =>
  event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey;
