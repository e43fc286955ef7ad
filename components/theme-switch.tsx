"use client";

import { applyTheme, chooseTheme, storedTheme, subscribeTheme, THEMES, type Theme } from "@/lib/client/theme";
import { useEffect, useSyncExternalStore, type ReactNode } from "react";

const icon = (path: ReactNode) => (
  <svg
    viewBox="0 0 20 20"
    fill="none"
    stroke="currentColor"
    strokeWidth={1.6}
    strokeLinecap="round"
    strokeLinejoin="round"
    className="h-4 w-4"
    aria-hidden
  >
    {path}
  </svg>
);

const CHOICES: Record<Theme, { label: string; icon: ReactNode }> = {
  system: {
    label: "System theme",
    icon: icon(
      <>
        <rect x="3" y="4" width="14" height="9" rx="1.5" />
        <path d="M7 16h6M10 13v3" />
      </>,
    ),
  },
  light: {
    label: "Light",
    icon: icon(
      <>
        <circle cx="10" cy="10" r="3.2" />
        <path d="M10 2.5v1.8M10 15.7v1.8M2.5 10h1.8M15.7 10h1.8M4.7 4.7l1.3 1.3M14 14l1.3 1.3M4.7 15.3 6 14M14 6l1.3-1.3" />
      </>,
    ),
  },
  dark: { label: "Dark", icon: icon(<path d="M15.5 12.5A6.5 6.5 0 0 1 7.5 4.5a6.5 6.5 0 1 0 8 8Z" />) },
};

/**
 * Light, dark, or the system's setting (followed live while chosen), remembered in this browser: three
 * small radio buttons, so the header keeps its room on a phone (arrow keys move between them, as radios do).
 */
/** `id` names its radio group: the header and the phone's menu each hold one. */
export function ThemeSwitch({ id = "theme-switch" }: { id?: string }) {
  // The server cannot know the choice: it renders none checked (not a "System" that may be wrong),
  // and the browser shows the stored one as it hydrates.
  const theme = useSyncExternalStore<Theme | null>(subscribeTheme, storedTheme, () => null);

  useEffect(() => {
    if (theme === null) return;
    // Also when another tab of this browser changed the choice.
    applyTheme(theme);
    if (theme !== "system") return;
    const media = matchMedia("(prefers-color-scheme: dark)");
    const follow = () => applyTheme("system");
    media.addEventListener("change", follow);
    return () => media.removeEventListener("change", follow);
  }, [theme]);

  return (
    <fieldset className="inline-flex shrink-0 rounded-md border border-slate-300 p-0.5 dark:border-slate-600">
      <legend className="sr-only">Theme</legend>
      {THEMES.map((value) => (
        <label
          key={value}
          title={CHOICES[value].label}
          className="relative cursor-pointer rounded p-1.5 text-slate-600 focus-within:ring-2 focus-within:ring-sky-600 has-[:checked]:bg-slate-200 has-[:checked]:text-slate-900 dark:text-slate-300 dark:has-[:checked]:bg-slate-700 dark:has-[:checked]:text-white"
        >
          {/* The radio covers its icon, transparent: a press anywhere on the icon is a press on the radio. */}
          <input
            type="radio"
            name={id}
            value={value}
            checked={theme === value}
            onChange={() => chooseTheme(value)}
            className="absolute inset-0 m-0 cursor-pointer appearance-none opacity-0"
          />
          {CHOICES[value].icon}
          <span className="sr-only">{CHOICES[value].label}</span>
        </label>
      ))}
    </fieldset>
  );
}
