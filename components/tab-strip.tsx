"use client";

/**
 * The tabs of one record (a user's Profile and History, a survey's Overview to Activity): links,
 * the current one marked. On a narrow screen the strip scrolls sideways, and a fade with an arrow
 * on the side that has more tabs says so; the current tab is scrolled into view.
 */
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { focusRing } from "./ui";

interface Tab {
  href: string;
  label: string;
  /** The pointer or focus rests on the tab: the page may fetch its data ahead of the click. */
  onIntent?: () => void;
}

export function TabStrip({ label, tabs }: { label: string; tabs: Tab[] }) {
  const pathname = usePathname();
  const scroller = useRef<HTMLUListElement>(null);
  const [more, setMore] = useState({ before: false, after: false });

  const measure = useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    // One pixel of slack: a scroll position is fractional under zoom.
    const before = element.scrollLeft > 1;
    const after = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
    setMore((current) => (current.before === before && current.after === after ? current : { before, after }));
  }, []);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    element.querySelector('[aria-current="page"]')?.scrollIntoView({ block: "nearest", inline: "nearest" });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, [measure, pathname, tabs.length]);

  const fade =
    "pointer-events-none absolute inset-y-0 flex w-10 items-center from-slate-50 to-transparent text-lg text-slate-500";
  return (
    <nav
      aria-label={label}
      className="relative -mt-2 mb-6"
      data-scrolls={more.before || more.after ? "true" : undefined}
    >
      <ul
        ref={scroller}
        onScroll={measure}
        className="flex [scrollbar-width:none] gap-1 overflow-x-auto shadow-[inset_0_-1px_0_var(--color-slate-200)]"
      >
        {/* The strip's line is a shadow of the scroller, under the current tab's border: a border would be clipped. */}
        {tabs.map((tab) => {
          const current = pathname === tab.href;
          return (
            <li key={tab.href} className="shrink-0">
              <Link
                href={tab.href}
                // Each tab's page is rendered per request: fetched whole ahead, a tab opens at once.
                prefetch
                onMouseEnter={tab.onIntent}
                onFocus={tab.onIntent}
                aria-current={current ? "page" : undefined}
                className={`block border-b-2 px-3 py-2 text-sm font-medium whitespace-nowrap ${focusRing} ${
                  current
                    ? "border-sky-700 text-sky-800"
                    : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
                }`}
              >
                {tab.label}
              </Link>
            </li>
          );
        })}
      </ul>
      {more.before && (
        <span aria-hidden data-testid="tabs-more-before" className={`${fade} left-0 justify-start bg-gradient-to-r`}>
          ‹
        </span>
      )}
      {more.after && (
        <span aria-hidden data-testid="tabs-more-after" className={`${fade} right-0 justify-end bg-gradient-to-l`}>
          ›
        </span>
      )}
    </nav>
  );
}
