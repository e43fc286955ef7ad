"use client";

import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { takeHeadingFocusRequest } from "@/lib/client/feedback";
import { REFERENCE, useReference } from "@/lib/client/reference";
import { useHydrated } from "@/lib/client/use-hydrated";
import { signOut } from "@/lib/client/session";
import { displayName, useMe } from "@/lib/client/users";
import { CommandPalette } from "./command-palette";
import { ThemeSwitch } from "./theme-switch";
import { Button, Loading, focusRing } from "./ui";

const NAV = [
  { href: "/users", label: "Users", adminOnly: false },
  { href: "/surveys", label: "Surveys", adminOnly: false },
  ...Object.values(REFERENCE).map((kind) => ({ href: kind.href, label: kind.title, adminOnly: false })),
  { href: "/outbox", label: "Outbox", adminOnly: true },
  { href: "/api-keys", label: "API keys", adminOnly: true },
  { href: "/docs", label: "API reference", adminOnly: false },
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
  // The pages' content is data fetched in the browser: rendered there only, it cannot differ
  // from server HTML when a query answers before a part of the page has hydrated.
  const hydrated = useHydrated();
  useHeadingFocus(pathname);

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
      <a href="#main" className={`sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 ${focusRing}`}>
        Skip to content
      </a>
      {/* On a phone the menu takes several rows: the header scrolls away instead of covering the page. */}
      <header className="z-30 border-b border-slate-200 bg-white/95 backdrop-blur sm:sticky sm:top-0">
        <div className="mx-auto flex max-w-7xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3 sm:px-6">
          <Link href="/users" className={`rounded text-base font-semibold tracking-tight text-slate-900 ${focusRing}`}>
            Users <span className="text-sky-700">&amp;</span> Surveys
          </Link>
          <nav aria-label="Main" className="flex flex-wrap items-center gap-1">
            {pages.map((item) => {
              const current = pathname === item.href || pathname.startsWith(`${item.href}/`);
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  aria-current={current ? "page" : undefined}
                  className={`whitespace-nowrap rounded-md px-2 py-1.5 text-sm font-medium sm:px-3 ${focusRing} ${
                    current ? "bg-sky-50 text-sky-800" : "text-slate-600 hover:bg-slate-100 hover:text-slate-900"
                  }`}
                >
                  {item.label}
                </Link>
              );
            })}
          </nav>
          <div className="ml-auto flex items-center gap-3">
            <CommandPalette pages={pages} canCreate={isAdmin !== false} />
            <ThemeSwitch />
            {me.data && (
              <span className="hidden max-w-56 truncate text-sm text-slate-600 md:inline" title={me.data.email}>
                {displayName(me.data)}
              </span>
            )}
            <Button kind="ghost" onClick={leave} disabled={leaving}>
              {leaving ? "Signing out…" : "Sign out"}
            </Button>
          </div>
        </div>
      </header>
      {isAdmin === false && (
        <p role="status" className="border-b border-amber-200 bg-amber-50 px-4 py-2 text-center text-sm text-amber-900">
          You are signed in without an admin role: you can look around, but not change anything.
        </p>
      )}
      <main id="main" className="mx-auto max-w-7xl px-4 py-6 sm:px-6 sm:py-8">
        {hydrated ? children : <Loading />}
      </main>
    </AdminContext.Provider>
  );
}
