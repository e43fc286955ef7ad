"use client";
import { useSearchParams } from "next/navigation";
import { useCallback, useMemo, useState } from "react";

/**
 * The search of a page whose view lives in its URL, and `show(href)` to push a new view as one
 * history entry (Back restores the one before) without a server round trip.
 *
 * Next applies a native `pushState` to `useSearchParams` in a transition, some frames later; a
 * radio, checkbox or select drawn from the URL would show its old value until then. So the view
 * just pushed is answered at once, and the router's own search takes over as soon as it changes
 * (it caught up, or the user went Back). See docs/architecture.md (the admin pages).
 */
export function useViewSearch(): { params: URLSearchParams; show: (href: string) => void } {
  const routed = useSearchParams().toString();
  const [pending, setPending] = useState<{ from: string; search: string }>();
  const stale = pending !== undefined && pending.from !== routed;
  if (stale) setPending(undefined);
  const search = pending && !stale ? pending.search : routed;
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const show = useCallback(
    (href: string) => {
      const url = new URL(href, window.location.href);
      setPending({ from: routed, search: url.searchParams.toString() });
      window.history.pushState(null, "", `${url.pathname}${url.search}`);
    },
    [routed],
  );
  return { params, show };
}
