/**
 * Dark mode follows the system until a theme is chosen in the header, the choice is remembered
 * in this browser and shown from the first frame; a record that fails to load says so with a
 * Retry; an unknown address gets a 404 in the admin's look with a way back; /docs is in the menu.
 */
import type { Page } from "@playwright/test";
import { expectNoSeriousViolation } from "./axe";
import { expect, openSignedIn, screenshot, test } from "./fixtures";

const isDark = (page: Page) => page.evaluate(() => document.documentElement.classList.contains("dark"));

async function firstIds(page: Page): Promise<{ user: string; survey: string }> {
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  const headers = { Authorization: `Bearer ${token}`, Admin: "true" };
  const users = await (await page.request.get("/v2/users?limit=1", { headers })).json();
  const surveys = await (await page.request.get("/v2/surveys?limit=1", { headers })).json();
  return { user: users.data.users[0]._id, survey: surveys.data.surveys[0]._id };
}

test("the theme follows the system, the switch overrides it, and the choice survives a reload from the first frame", async ({
  page,
}) => {
  // Records, before any script of the page runs, whether the first frame already had the class.
  await page.addInitScript(() => {
    requestAnimationFrame(() => {
      (window as unknown as { darkAtFirstFrame: boolean }).darkAtFirstFrame =
        document.documentElement.classList.contains("dark");
    });
  });
  const darkAtFirstFrame = () =>
    page
      .waitForFunction(() => "darkAtFirstFrame" in window)
      .then(() => page.evaluate(() => (window as unknown as { darkAtFirstFrame: boolean }).darkAtFirstFrame));

  await page.emulateMedia({ colorScheme: "dark" });
  await openSignedIn(page, "/users");
  expect(await isDark(page)).toBe(true);
  const themes = page.getByRole("group", { name: "Theme" });
  const theme = (name: "System theme" | "Light" | "Dark") => themes.getByRole("radio", { name });
  await expect(theme("System theme")).toBeChecked();
  // Three small buttons, not a full-width select: in the header at 1440, in the Menu on a phone.
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 844 });
    if (width < 1024) await page.getByRole("button", { name: "Menu" }).click();
    const shown = page.getByRole("group", { name: "Theme" }).filter({ visible: true });
    await expect(shown).toHaveCount(1);
    expect((await shown.boundingBox())!.width, `${width} px`).toBeLessThan(120);
    if (width < 1024) await page.keyboard.press("Escape");
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  // A choice reaches the page's class in an effect after the click's render: waited for, not read at once.
  await theme("Light").check();
  await expect.poll(() => isDark(page)).toBe(false);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  expect(await darkAtFirstFrame()).toBe(false);
  await expect(theme("Light")).toBeChecked();

  await page.emulateMedia({ colorScheme: "light" });
  // By keyboard too: the arrow key moves the choice, as radios do.
  await theme("Light").focus();
  await page.keyboard.press("ArrowRight");
  await expect.poll(() => isDark(page)).toBe(true);
  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  expect(await darkAtFirstFrame()).toBe(true);
  await expect(theme("Dark")).toBeChecked();
  // The choice holds on pages outside the admin shell too.
  await page.goto("/docs");
  expect(await isDark(page)).toBe(true);

  // Back to the system's setting: light again under a light system.
  // The server cannot know the stored choice: it checks none of the three, rather than a "System
  // theme" that may be wrong; the page shows the stored one once it has hydrated.
  const served = await (await page.request.get("/users")).text();
  const radios = served.match(/<input[^>]*name="theme-switch"[^>]*>/g) ?? [];
  expect(radios).toHaveLength(3);
  expect(radios.filter((tag) => /\schecked/.test(tag))).toEqual([]);
  await page.goto("/users");
  await expect(theme("Dark")).toBeChecked();
  await theme("System theme").check();
  await expect.poll(() => isDark(page)).toBe(false);
});

test.describe("a record that fails to load", () => {
  test.use({ expectedConsoleErrors: [/status of 500/] });

  test("says what happened, leaves no spinner behind, and Retry brings it", async ({ page }) => {
    await openSignedIn(page, "/users");
    const ids = await firstIds(page);
    let failing = true;
    for (const path of [`/v2/users/${ids.user}`, `/v2/surveys/${ids.survey}`]) {
      // The record's own read (the survey's carries ?populate=true), not the lists.
      await page.route(
        (url) => url.pathname === path,
        (route) =>
          failing
            ? route.fulfill({
                status: 500,
                contentType: "application/json",
                body: JSON.stringify({
                  error: { status: 500, code: "internal", message: "The server failed.", requestId: "req-test-500" },
                }),
              })
            : route.continue(),
      );
    }
    for (const [url, what] of [
      [`/users/${ids.user}`, "user"],
      [`/surveys/${ids.survey}`, "survey"],
    ] as const) {
      failing = true;
      await page.goto(url);
      const alert = page.getByRole("alert").filter({ hasText: `The ${what} could not be loaded` });
      await expect(alert).toBeVisible();
      await expect(alert).toContainText("The server failed.");
      await expect(page.getByText(/^(Loading|Counting)\b.*…$/)).toHaveCount(0);
      await expect(page.getByRole("status").filter({ hasText: /Loading|Counting/ })).toHaveCount(0);
      if (what === "user") {
        await screenshot(page, "22-record-error");
      }
      failing = false;
      await page.getByRole("button", { name: "Retry" }).click();
      await expect(alert).toHaveCount(0);
      await expect(page.getByRole("link", { name: "Edit", exact: true })).toBeVisible();
    }
  });
});

test.describe("lost ways", () => {
  test.use({ expectedConsoleErrors: [/status of 404 \(Not Found\)/] });

  test("an unknown address shows a 404 in the admin's look, accessible in both themes, with a way back to the users list", async ({
    page,
  }) => {
    await openSignedIn(page, "/users");
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.reload();
      expect(await isDark(page)).toBe(scheme === "dark");
      await expectNoSeriousViolation(page, `the not-found page, ${scheme}`);
    }
    await page.getByRole("link", { name: "Back to the users list" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  });

  test("the API reference is in the menu, and leads back to the admin", async ({ page }) => {
    await openSignedIn(page, "/users");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API reference" }).click();
    await expect(page).toHaveURL(/\/docs$/);
    await page.getByRole("link", { name: "Back to the admin" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  });
});
