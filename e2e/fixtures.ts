/**
 * The `test` every spec uses: it fails on any browser console error or uncaught page error, and
 * offers signing in and saving screenshots.
 */
import { test as base, expect, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { E2E_ADMIN_EMAIL, E2E_ADMIN_PASSWORD } from "./env";

export const SCREENSHOTS = path.join(__dirname, "screenshots");

interface Fixtures {
  /** Console errors a test provokes on purpose (a 404 it asks for): matched and let through. */
  expectedConsoleErrors: RegExp[];
  consoleErrors: string[];
  failureReport: void;
}

export const test = base.extend<Fixtures>({
  expectedConsoleErrors: [[], { option: true }],
  consoleErrors: [
    async ({ page, expectedConsoleErrors }, use) => {
      const errors: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()} (${message.location().url})`);
      });
      page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
      await use(errors);
      const unexpected = errors.filter((error) => !expectedConsoleErrors.some((pattern) => pattern.test(error)));
      expect(unexpected, "the browser console shows no error").toEqual([]);
    },
    { auto: true },
  ],
  // CI keeps only the log: a failed test prints where its page was and what it showed, and the
  // requests that were refused, beside the trace and screenshot of test-results/ (docs/testing.md).
  failureReport: [
    async ({ page }, use, testInfo) => {
      const refused: string[] = [];
      const visited: string[] = [];
      page.on("response", (response) => {
        if (response.status() >= 400)
          refused.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
      });
      page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
      });
      await use();
      if (testInfo.status === testInfo.expectedStatus) return;
      const texts = async (role: "heading" | "alert" | "status") =>
        (
          await page
            .getByRole(role)
            .allInnerTexts()
            .catch(() => [])
        ).map((text) => text.replace(/\s+/g, " ").slice(0, 120));
      const report = [
        `page at the failure: ${page.url()}`,
        `pages opened: ${visited.slice(-8).join(" → ") || "none"}`,
        `headings: ${(await texts("heading")).join(" | ") || "none"}`,
        `alerts and statuses: ${[...(await texts("alert")), ...(await texts("status"))].filter(Boolean).join(" | ") || "none"}`,
        `refused requests: ${refused.slice(-10).join(", ") || "none"}`,
      ];
      console.log(`[failure report] ${testInfo.title}\n  ${report.join("\n  ")}`);
    },
    { auto: true },
  ],
});

export { expect };

export async function signIn(page: Page, email = E2E_ADMIN_EMAIL, password = E2E_ADMIN_PASSWORD): Promise<void> {
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Opens `path`, signing in on the way if the page asks for it. */
export async function openSignedIn(page: Page, path: string): Promise<void> {
  await page.goto(path);
  // Either the page itself or, without a session, the sign-in page it sends the browser to.
  await page
    .getByRole("heading", { level: 1 })
    .filter({ hasNotText: /^Sign in required$/ })
    .first()
    .waitFor();
  if (new URL(page.url()).pathname === "/sign-in") {
    await signIn(page);
    await page.waitForURL((url) => url.pathname !== "/sign-in");
  }
  // The shell's Find button is enabled once React has taken over the shell: a click on its menu
  // before then (a test's first step) could be lost between the server's HTML and the router.
  await expect(page.getByRole("button", { name: "Find", includeHidden: true })).toBeEnabled();
}

/**
 * Opens the command palette with Ctrl+K, once the header's Find button is enabled: until the page
 * has hydrated no listener hears the shortcut.
 */
export async function openPalette(page: Page): Promise<void> {
  await expect(page.getByRole("button", { name: "Find" })).toBeEnabled();
  await page.keyboard.press("Control+K");
  await expect(page.getByRole("dialog", { name: "Find users, surveys and pages" })).toBeVisible();
}

/** Whether the run takes screenshots: CI asks for none (E2E_SCREENSHOTS=0), pictures nobody opens (docs/testing.md). */
export const TAKING_SCREENSHOTS = process.env.E2E_SCREENSHOTS !== "0";

export async function screenshot(page: Page, name: string): Promise<void> {
  if (!TAKING_SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let spinners and late layout settle so the picture shows the page as a person sees it.
  await page.waitForLoadState("networkidle").catch(() => undefined);
  // From the top: a page scrolled down would draw its sticky header midway down the full-page picture.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * The looks a spec of particular states (a dialog, a toast, an error, the palette) pictures and
 * checks: a desktop in light and a phone in dark, so both widths and both themes once. The
 * accessibility walk (e2e/11) checks every page wide in both themes and on a phone in dark.
 */
export const STATE_MODES = [
  { width: 1440, height: 900, theme: "light" },
  { width: 390, height: 844, theme: "dark" },
] as const;

/** A value unique to this run, for e-mails and survey codes. */
export const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
