/**
 * The light/dark theme: the choice (light, dark, or the system's setting) is remembered in this
 * browser's localStorage; the page shows it through a `dark` class on <html>.
 */
export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

const THEME_STORAGE_KEY = "theme";

export function storedTheme(): Theme {
  try {
    const value = localStorage.getItem(THEME_STORAGE_KEY);
    return THEMES.includes(value as Theme) ? (value as Theme) : "system";
  } catch {
    // Storage can be refused (privacy settings): the system's setting then.
    return "system";
  }
}

export function applyTheme(theme: Theme): void {
  const dark = theme === "dark" || (theme === "system" && matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
}

export function chooseTheme(theme: Theme): void {
  try {
    if (theme === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, theme);
  } catch {
    // Not remembered, still shown.
  }
  applyTheme(theme);
  window.dispatchEvent(new Event(THEME_EVENT));
}

const THEME_EVENT = "themechange";

/** For useSyncExternalStore: the choice changes here, or in another tab of this browser. */
export function subscribeTheme(onChange: () => void): () => void {
  window.addEventListener(THEME_EVENT, onChange);
  window.addEventListener("storage", onChange);
  return () => {
    window.removeEventListener(THEME_EVENT, onChange);
    window.removeEventListener("storage", onChange);
  };
}

/**
 * The same as storedTheme + applyTheme, as a script the root layout writes into <head> (with the
 * request's CSP nonce): it runs before the first paint, so no page ever flashes the wrong theme.
 */
export const THEME_SCRIPT = `(function(){try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});var d=t==="dark"||(t!=="light"&&matchMedia("(prefers-color-scheme: dark)").matches);document.documentElement.classList.toggle("dark",d)}catch(e){}})()`;
