"use client";

import { useEffect, useSyncExternalStore } from "react";
import { applyTheme, chooseTheme, storedTheme, subscribeTheme, type Theme } from "@/lib/client/theme";
import { inputClass } from "./ui";

const LABELS: Record<Theme, string> = { system: "System theme", light: "Light", dark: "Dark" };

/** Light, dark, or the system's setting (followed live while chosen), remembered in this browser. */
export function ThemeSwitch() {
  // The server cannot know the choice: it renders "system", the browser then shows the stored one.
  const theme = useSyncExternalStore(subscribeTheme, storedTheme, () => "system" as Theme);

  useEffect(() => {
    // Also when another tab of this browser changed the choice.
    applyTheme(theme);
    if (theme !== "system") return;
    const media = matchMedia("(prefers-color-scheme: dark)");
    const follow = () => applyTheme("system");
    media.addEventListener("change", follow);
    return () => media.removeEventListener("change", follow);
  }, [theme]);

  return (
    <div>
      <label htmlFor="theme-switch" className="sr-only">
        Theme
      </label>
      <select
        id="theme-switch"
        value={theme}
        onChange={(event) => {
          chooseTheme(event.target.value as Theme);
        }}
        className={`${inputClass} w-auto py-1.5 pr-8`}
      >
        {(Object.keys(LABELS) as Theme[]).map((value) => (
          <option key={value} value={value}>
            {LABELS[value]}
          </option>
        ))}
      </select>
    </div>
  );
}
