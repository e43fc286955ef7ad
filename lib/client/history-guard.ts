/**
 * One `popstate` listener installed before the App Router installs its own: listeners of an
 * event at the window run in the order they were added, and the router re-renders the previous
 * page (unmounting a form) within its listener. Installed first, this one lets the page that
 * holds unsaved edits see Back before the router does, and stop it.
 */
type Handler = (event: PopStateEvent) => void;

let current: Handler | undefined;
let installed = false;

export function installHistoryGuard(): void {
  if (installed || typeof window === "undefined") return;
  installed = true;
  window.addEventListener("popstate", (event) => current?.(event));
}

/** The page's handler of Back/Forward (only one page asks at a time); undefined to stop asking. */
export function onHistoryMove(handler: Handler | undefined): void {
  current = handler;
}

type Asker = (href: string) => void;

let asker: Asker | undefined;

/**
 * The page's guard of navigations made in code (the command palette opening a record), which no
 * link click or Back announces: it asks first, and goes on itself if the person chooses to leave.
 */
export function onNavigationRequest(handler: Asker | undefined): void {
  asker = handler;
}

/** Goes to `href` with `go`, unless a page holding unsaved edits asks first (it then goes itself). */
export function navigateGuarded(href: string, go: (href: string) => void): void {
  if (asker) asker(href);
  else go(href);
}
