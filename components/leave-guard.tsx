"use client";

import { ConfirmDialog } from "@/components/ui/dialog";
import { installHistoryGuard, onHistoryMove, onNavigationRequest } from "@/lib/client/history-guard";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";

type Pending = { kind: "link"; href: string; external: boolean } | { kind: "back" };

/** The link a click would follow in this tab, if any (new tabs, downloads and anchors lose nothing). */
function followedLink(event: MouseEvent): { href: string; external: boolean } | undefined {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return undefined;
  const anchor = (event.target as Element | null)?.closest?.("a[href]");
  if (!(anchor instanceof HTMLAnchorElement)) return undefined;
  if ((anchor.target && anchor.target !== "_self") || anchor.hasAttribute("download")) return undefined;
  const url = new URL(anchor.href, location.href);
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const here = new URL(location.href);
  if (url.origin === here.origin && url.pathname === here.pathname && url.search === here.search) return undefined;
  return url.origin === here.origin
    ? { href: url.pathname + url.search + url.hash, external: false }
    : { href: url.href, external: true };
}

/**
 * Asks before a form with unsaved changes is left. The App Router has no event before a
 * navigation, so the guard stands in front of its triggers: clicks on links are caught on the
 * window in the capture phase (before Next's <Link> sees them), Back and Forward are caught on
 * `popstate` before the router hears of it (lib/client/history-guard.ts) and undone at once, a
 * navigation made in code (the command palette) asks through the same module, and reloading or closing the tab
 * gets the browser's own `beforeunload` prompt. Leaving then replays what was asked for.
 */
export function LeaveGuard({ when }: { when: boolean }) {
  const router = useRouter();
  const [pending, setPending] = useState<Pending>();
  /** A history move of our own (undoing a Back, or leaving), which the guard lets through. */
  const ignoreNextPop = useRef(false);
  /** Set once the person chose to leave: nothing is asked any more. */
  const leaving = useRef(false);

  useEffect(() => {
    if (!when) return;
    const onClick = (event: MouseEvent) => {
      if (leaving.current) return;
      const link = followedLink(event);
      if (!link) return;
      event.preventDefault();
      event.stopPropagation();
      setPending({ kind: "link", ...link });
    };
    const onPopState = (event: PopStateEvent) => {
      if (ignoreNextPop.current) {
        ignoreNextPop.current = false;
        event.stopImmediatePropagation();
        return;
      }
      if (leaving.current) return;
      // The browser has already moved back one entry: keep the router from rendering it and
      // step forward again to the form, then ask.
      event.stopImmediatePropagation();
      ignoreNextPop.current = true;
      history.go(1);
      setPending({ kind: "back" });
    };
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (leaving.current) return;
      event.preventDefault();
      // Older browsers show their prompt only when returnValue is set.
      event.returnValue = "";
    };
    window.addEventListener("click", onClick, true);
    installHistoryGuard();
    onHistoryMove(onPopState);
    onNavigationRequest((href) =>
      leaving.current ? router.push(href) : setPending({ kind: "link", href, external: false }),
    );
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => {
      window.removeEventListener("click", onClick, true);
      onHistoryMove(undefined);
      onNavigationRequest(undefined);
      window.removeEventListener("beforeunload", onBeforeUnload);
    };
  }, [when, router]);

  function leave() {
    const target = pending;
    setPending(undefined);
    leaving.current = true;
    if (!target) return;
    if (target.kind === "back") history.back();
    else if (target.external) location.assign(target.href);
    else router.push(target.href);
  }

  return (
    <ConfirmDialog
      open={pending !== undefined}
      title="Leave without saving?"
      confirmLabel="Leave and discard"
      danger
      onConfirm={leave}
      onCancel={() => setPending(undefined)}
    >
      Your changes on this page have not been saved. If you leave now, they are lost.
    </ConfirmDialog>
  );
}
