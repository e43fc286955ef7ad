"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useIsAdmin } from "../admin-shell";
import { focusRing } from "../ui";

/** The tabs of one user: the profile, and (for admins) its history from the audit log. */
export function UserTabs({ id }: { id: string }) {
  const pathname = usePathname();
  const isAdmin = useIsAdmin();
  if (!isAdmin) return null;
  const tabs = [
    { href: `/users/${id}`, label: "Profile" },
    { href: `/users/${id}/history`, label: "History" },
  ];
  return (
    <nav aria-label="User" className="-mt-2 mb-6 overflow-x-auto border-b border-slate-200">
      <ul className="flex min-w-max gap-1">
        {tabs.map((tab) => {
          const current = pathname === tab.href;
          return (
            <li key={tab.href}>
              <Link
                href={tab.href}
                aria-current={current ? "page" : undefined}
                className={`-mb-px block border-b-2 px-3 py-2 text-sm font-medium ${focusRing} ${current ? "border-sky-700 text-sky-800" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"}`}
              >
                {tab.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
