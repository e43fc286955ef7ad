"use client";

import { takeHeadingFocusRequest } from "@/lib/client/feedback";
import { REFERENCE, useReference } from "@/lib/client/reference";
import { signOut } from "@/lib/client/session";
import { useHydrated } from "@/lib/client/use-hydrated";
import { displayName, useMe } from "@/lib/client/users";
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from "react";
import { CommandPalette } from "./command-palette";
import { ThemeSwitch } from "./theme-switch";
import { Button, Loading, focusRing } from "./ui";
import { ToastRegion } from "./ui/toast";

/** The menu, in groups: a sidebar from 1280 px wide with each group's title, a row of links from 1024 px, behind the Menu button below. */
const NAV_GROUPS = ["Records", "Reference data", "Integrations", "Settings", "Help"] as const;
type NavGroup = (typeof NAV_GROUPS)[number];

const NAV: readonly { href: string; label: string; adminOnly: boolean; group: NavGroup }[] = [
  { href: "/users", label: "Users", adminOnly: false, group: "Records" },
  { href: "/surveys", label: "Surveys", adminOnly: false, group: "Records" },
  { href: "/outbox", label: "Outbox", adminOnly: true, group: "Records" },
  { href: "/activity", label: "Activity", adminOnly: true, group: "Records" },
  ...Object.values(REFERENCE).map((kind) => ({
    href: kind.href,
    label: kind.title,
    adminOnly: false,
    group: "Reference data" as const,
  })),
  { href: "/api-keys", label: "API keys", adminOnly: true, group: "Integrations" },
  { href: "/webhooks", label: "Webhooks", adminOnly: true, group: "Integrations" },
  { href: "/settings", label: "Company settings", adminOnly: false, group: "Settings" },
  { href: "/docs", label: "API reference", adminOnly: false, group: "Help" },
];

/**
 * After a save that navigated here, puts the keyboard focus on the page's heading as soon as the
 * new page shows it (a record page shows its heading once its data is in).
 */
function useHeadingFocus(pathname: string) {
  useEffect(() => {
    if (!takeHeadingFocusRequest()) return;
    const main = document.getElementById("main");
    if (!main) return;
    const focus = () => {
      const heading = main.querySelector("h1");
      if (!heading) return false;
      heading.setAttribute("tabindex", "-1");
      heading.focus();
      return true;
    };
    if (focus()) return;
    const observer = new MutationObserver(() => focus() && observer.disconnect());
    observer.observe(main, { childList: true, subtree: true });
    const timer = setTimeout(() => observer.disconnect(), 10_000);
    return () => {
      observer.disconnect();
      clearTimeout(timer);
    };
  }, [pathname]);
}

const editable = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));

/**
 * `/` puts the focus in the list page's Search (as on GitHub or Linear), unless the focus is in a
 * field, a dialog is open, or the Search is folded away (phones); the box says so (`aria-keyshortcuts`).
 */
function useSlashForSearch() {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (
        event.key !== "/" ||
        event.ctrlKey ||
        event.metaKey ||
        event.altKey ||
        event.defaultPrevented ||
        editable(event.target)
      )
        return;
      if (document.querySelector("dialog[open]")) return;
      const search = [...document.querySelectorAll<HTMLInputElement>('#main input[type="search"]')].find(
        (input) => input.getClientRects().length > 0,
      );
      if (!search) return;
      event.preventDefault();
      search.focus();
      search.select();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);
}

/** The header's height as `--shell-header`, for what sticks under it (the notices' band). */
function useStickyHeight() {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver(() =>
      document.documentElement.style.setProperty("--shell-header", `${element.offsetHeight}px`),
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return ref;
}

const MENU_ID = "main-menu";

/**
 * The menu's button below 1024 px: a disclosure of the menu (`aria-expanded`); Escape or a press
 * outside the menu closes it, and the focus comes back here rather than falling to the page.
 */
function MenuButton({
  open,
  onOpenChange,
  controls,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  controls: string;
}) {
  const button = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(open);
  useEffect(() => {
    if (wasOpen.current && !open) {
      const active = document.activeElement;
      if (!active || active === document.body || document.getElementById(controls)?.contains(active))
        button.current?.focus();
    }
    wasOpen.current = open;
  }, [open, controls]);
  return (
    <button
      ref={button}
      type="button"
      aria-expanded={open}
      aria-controls={controls}
      onClick={() => onOpenChange(!open)}
      className={`inline-flex shrink-0 items-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50 lg:hidden ${focusRing}`}
    >
      <span aria-hidden className="text-base leading-none">
        {open ? "×" : "☰"}
      </span>
      Menu
    </button>
  );
}

/** Closes the open menu on Escape and on a press outside it and its button. */
function useMenuDismiss(open: boolean, setOpen: (open: boolean) => void, menu: RefObject<HTMLElement | null>) {
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || document.querySelector("dialog[open]")) return;
      setOpen(false);
    };
    const onPointer = (event: PointerEvent) => {
      const target = event.target;
      if (
        !(target instanceof Element) ||
        menu.current?.contains(target) ||
        target.closest(`[aria-controls="${MENU_ID}"]`)
      )
        return;
      setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open, setOpen, menu]);
}

/** Who is signed in, the theme and Sign out: in the header from 1024 px, in the menu below. */
function Account({
  name,
  email,
  leaving,
  onLeave,
  themeId,
}: {
  name?: string;
  email?: string;
  leaving: boolean;
  onLeave: () => void;
  themeId: string;
}) {
  return (
    <>
      <ThemeSwitch id={themeId} />
      {name && (
        <span className="max-w-56 min-w-0 truncate text-sm text-slate-600" title={email}>
          {name}
        </span>
      )}
      <Button kind="ghost" onClick={onLeave} disabled={leaving}>
        {leaving ? "Signing out…" : "Sign out"}
      </Button>
    </>
  );
}

/** Whether the signed-in user holds an admin access role (undefined while loading). */
const AdminContext = createContext<boolean | undefined>(undefined);
export const useIsAdmin = () => useContext(AdminContext);

export function AdminShell({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  const router = useRouter();
  const client = useQueryClient();
  const me = useMe();
  const roles = useReference("accessRoles");
  const [leaving, setLeaving] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const menu = useRef<HTMLElement>(null);
  useMenuDismiss(menuOpen, setMenuOpen, menu);
  // The pages' content is data fetched in the browser: rendered there only, it cannot differ
  // from server HTML when a query answers before a part of the page has hydrated.
  const hydrated = useHydrated();
  useHeadingFocus(pathname);
  useSlashForSearch();
  const header = useStickyHeight();

  const isAdmin = useMemo(() => {
    if (!me.data || !roles.data) return undefined;
    const adminRoles = new Set(roles.data.filter((role) => role.isAdmin).map((role) => role._id));
    return me.data.accessRoles.some((id) => adminRoles.has(id));
  }, [me.data, roles.data]);

  // The menu's pages, which the command palette offers too: a page added to NAV appears in both.
  const pages = NAV.filter((item) => !item.adminOnly || isAdmin);

  async function leave() {
    setLeaving(true);
    await signOut();
    client.clear();
    router.replace("/sign-in");
  }

  return (
    <AdminContext.Provider value={isAdmin}>
      <a
        href="#main"
        className={`sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 ${focusRing}`}
      >
        Skip to content
      </a>
      {/* One row at every width: below 1024 px the menu folds behind the Menu button. */}
      <header ref={header} className="sticky top-0 z-30 border-b border-slate-200 bg-white/95 backdrop-blur">
        <div className="mx-auto flex max-w-7xl items-center gap-x-3 px-4 py-3 sm:gap-x-6 sm:px-6">
          <MenuButton open={menuOpen} onOpenChange={setMenuOpen} controls={MENU_ID} />
          <Link
            href="/users"
            className={`min-w-0 truncate rounded text-base font-semibold tracking-tight text-slate-900 ${focusRing}`}
          >
            Users <span className="text-sky-700">&amp;</span> Surveys
          </Link>
          <div className="ml-auto flex shrink-0 items-center gap-3">
            <CommandPalette pages={pages} canCreate={isAdmin !== false} />
            <div className="hidden items-center gap-3 lg:flex">
              <Account
                name={me.data && displayName(me.data)}
                email={me.data?.email}
                leaving={leaving}
                onLeave={leave}
                themeId="theme-switch"
              />
            </div>
          </div>
        </div>
      </header>
      {/* The notices' own band: under the header (which sticks from tablet width up), never over the page. */}
      <ToastRegion />
      {isAdmin === false && (
        <p role="status" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900">
          You are signed in without an admin role: you can look around, but not change anything.
        </p>
      )}
      <div className="mx-auto max-w-7xl xl:flex xl:gap-6 xl:px-6">
        <nav
          id={MENU_ID}
          ref={menu}
          aria-label="Main"
          className={`${menuOpen ? "block" : "hidden"} border-b border-slate-200 bg-white px-4 py-4 sm:px-6 lg:block lg:bg-transparent lg:py-2 xl:sticky xl:top-16 xl:w-48 xl:shrink-0 xl:self-start xl:border-b-0 xl:px-0 xl:py-8`}
        >
          <div className="grid grid-cols-2 gap-4 lg:flex lg:flex-wrap lg:gap-1 xl:flex-col xl:gap-5">
            {NAV_GROUPS.map((group) => {
              const items = pages.filter((item) => item.group === group);
              if (items.length === 0) return null;
              return (
                <div key={group} className="lg:contents xl:block">
                  <p className="px-3 pb-1 text-xs font-semibold tracking-wide text-slate-500 uppercase lg:hidden xl:block">
                    {group}
                  </p>
                  <ul className="flex flex-col gap-0.5 lg:flex-row lg:flex-wrap lg:gap-1 xl:flex-col xl:gap-0.5">
                    {items.map((item) => {
                      const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
                      return (
                        <li key={item.href}>
                          <Link
                            href={item.href}
                            onClick={() => setMenuOpen(false)}
                            aria-current={current ? "page" : undefined}
                            className={`block rounded-md px-3 py-2 text-sm font-medium whitespace-nowrap lg:py-1.5 ${focusRing} ${
                              current
                                ? "bg-sky-50 text-sky-800"
                                : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"
                            }`}
                          >
                            {item.label}
                          </Link>
                        </li>
                      );
                    })}
                  </ul>
                </div>
              );
            })}
          </div>
          {/* Below 1024 px the header holds only the menu, the name and Find: the rest is here. */}
          <div className="mt-4 flex flex-wrap items-center gap-3 border-t border-slate-200 pt-4 lg:hidden">
            <Account
              name={me.data && displayName(me.data)}
              email={me.data?.email}
              leaving={leaving}
              onLeave={leave}
              themeId="theme-switch-menu"
            />
          </div>
        </nav>
        <main id="main" className="min-w-0 flex-1 px-4 py-6 sm:px-6 sm:py-8 xl:px-0">
          {hydrated ? children : <Loading />}
        </main>
      </div>
    </AdminContext.Provider>
  );
}
