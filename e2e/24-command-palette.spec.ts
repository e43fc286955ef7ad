/**
 * The command palette: Ctrl+K (or the header's Find button) opens it; it finds a user by e-mail
 * and a survey by code through the lists' own searches and opens the chosen one with Enter, at
 * once (the record's own read still pending); it offers "New user" and the menu's pages; Escape
 * closes it and gives the focus back; stale searches are aborted; empty, error and unsaved-form
 * cases answer in words; and it passes axe in both themes and at a phone's width.
 */
import type { Page, Route } from "@playwright/test";
import { expectNoSeriousViolation } from "./axe";
import { expect, STATE_MODES as MODES, openPalette, openSignedIn, screenshot, test } from "./fixtures";

const LABEL = "Find users, surveys and pages";
const palette = (page: Page) => page.getByRole("dialog", { name: LABEL });
const input = (page: Page) => palette(page).getByRole("combobox");

interface Found {
  user: { _id: string; email: string };
  survey: { _id: string; code: string; name: string };
}

/** A user other than the admin and a survey of the seeded company, read through the API. */
async function records(page: Page): Promise<Found> {
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  const headers = { Authorization: `Bearer ${token}`, Admin: "true" };
  const users = (await (await page.request.get("/v2/users?limit=10", { headers })).json()).data
    .users as Found["user"][];
  const surveys = (await (await page.request.get("/v2/surveys?limit=10", { headers })).json()).data
    .surveys as Found["survey"][];
  return { user: users[4], survey: surveys[2] };
}

/** Holds the answers to the requests `matches` picks until `release()`; the requests stay pending meanwhile. */
async function hold(page: Page, matches: (url: URL) => boolean) {
  const held: Route[] = [];
  await page.route(matches, (route) => void held.push(route));
  return {
    count: () => held.length,
    release: async () => {
      await page.unroute(matches);
      await Promise.all(held.map((route) => route.continue().catch(() => undefined)));
    },
  };
}

test("Ctrl+K finds a user by e-mail and Enter opens the record at once, its own read still pending", async ({
  page,
}) => {
  await openSignedIn(page, "/surveys");
  const { user } = await records(page);
  const record = await hold(page, (url) => url.pathname === `/v2/users/${user._id}`);

  await openPalette(page);
  await expect(input(page)).toBeFocused();
  await input(page).pressSequentially(user.email);
  const option = palette(page).getByRole("option", { name: new RegExp(user.email.replace(/[.+]/g, "\\$&")) });
  await expect(option).toBeVisible();
  await expect(option).toHaveAttribute("aria-selected", "true");
  await expect(palette(page).getByTestId("palette-status")).toContainText("Enter opens the chosen one");
  await screenshot(page, "24-palette-user");

  await page.keyboard.press("Enter");
  await page.waitForURL(`**/users/${user._id}`);
  await expect(palette(page)).toBeHidden();
  // Shown from what the search found while the record's own request has not been answered.
  await expect(page.locator("main").getByText(user.email, { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
  expect(record.count(), "the record's own read was asked for and is still held").toBeGreaterThan(0);
  await record.release();
});

test("a survey is found by its code and opens with Enter at once", async ({ page }) => {
  await openSignedIn(page, "/users");
  const { survey } = await records(page);
  const record = await hold(page, (url) => url.pathname === `/v2/surveys/${survey._id}`);

  await page.getByRole("button", { name: "Find" }).click();
  await expect(input(page)).toBeFocused();
  await input(page).pressSequentially(survey.code);
  const option = palette(page).getByRole("option").filter({ hasText: survey.code }).first();
  await expect(option).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await page.waitForURL(`**/surveys/${survey._id}`);
  await expect(page.locator("main code", { hasText: survey.code }).first()).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: survey.name })).toBeVisible();
  expect(record.count()).toBeGreaterThan(0);
  await record.release();
});

test("“New user” and the menu's pages are offered; arrows choose, Enter goes", async ({ page }) => {
  await openSignedIn(page, "/surveys");
  await openPalette(page);
  const options = palette(page).getByRole("option");
  await expect(options.filter({ hasText: "New user" })).toBeVisible();
  await expect(options.filter({ hasText: "New survey" })).toBeVisible();
  // Every page of the main menu, read from the menu itself.
  await page.keyboard.press("Escape");
  const menu = await page.getByRole("navigation", { name: "Main" }).getByRole("link").allInnerTexts();
  expect(menu.length).toBeGreaterThan(2);
  await page.keyboard.press("Control+K");
  for (const label of menu) await expect(options.filter({ hasText: `Go to ${label}` })).toHaveCount(1);

  await input(page).pressSequentially("new");
  await expect(options.first()).toHaveText(/New user/);
  await page.keyboard.press("ArrowDown");
  await expect(options.filter({ hasText: "New survey" })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("ArrowUp");
  await expect(options.filter({ hasText: "New user" })).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await page.waitForURL("**/users/new");
  await expect(page.getByRole("heading", { level: 1, name: "New user" })).toBeFocused();
});

test("Escape closes the palette and gives the focus back where it was", async ({ page }) => {
  await openSignedIn(page, "/users");
  const find = page.getByRole("button", { name: "Find" });
  await expect(find).toBeEnabled();
  await find.focus();
  await page.keyboard.press("Enter");
  await expect(palette(page)).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(palette(page)).toBeHidden();
  await expect(find).toBeFocused();

  const search = page.getByRole("searchbox", { name: "Search" });
  await search.focus();
  await page.keyboard.press("Control+K");
  await expect(input(page)).toBeFocused();
  await input(page).pressSequentially("something");
  await page.keyboard.press("Escape");
  await expect(palette(page)).toBeHidden();
  await expect(search).toBeFocused();

  // Opened again, it starts from an empty search.
  await page.keyboard.press("Control+K");
  await expect(input(page)).toHaveValue("");
  await page.keyboard.press("Control+K");
  await expect(palette(page)).toBeHidden();
});

test.describe("answers in words", () => {
  // The failed search answers 500 on purpose.
  test.use({ expectedConsoleErrors: [/status of 500/] });

  test("no match, and a failed search, are said in plain words", async ({ page }) => {
    await openSignedIn(page, "/users");
    await openPalette(page);
    const status = palette(page).getByTestId("palette-status");
    await expect(status).toContainText("Type a name or an e-mail");
    await input(page).pressSequentially("zzqxv");
    await expect(status).toHaveText("No users or surveys match “zzqxv”.");
    await expect(palette(page).getByRole("option")).toHaveCount(0);
    await screenshot(page, "24-palette-empty");
    await page.keyboard.press("Escape");

    const failing = (url: URL) => url.pathname === "/v2/users" && url.searchParams.get("search") === "broken";
    await page.route(failing, (route) =>
      route.fulfill({
        status: 500,
        contentType: "application/json",
        body: '{"error":{"status":500,"code":"internal","message":"The server failed.","requestId":"req-1"}}',
      }),
    );
    await page.keyboard.press("Control+K");
    await input(page).pressSequentially("broken");
    await expect(status).toContainText("The search could not be done: The server failed.");
    await expect(status.getByText(/Searching/)).toHaveCount(0);
    await screenshot(page, "24-palette-error");
    await page.unroute(failing);
    await status.getByRole("button", { name: "Retry" }).click();
    await expect(status).toHaveText("No users or surveys match “broken”.");
  });
});

test("a newer search aborts the request of an older one still waiting", async ({ page }) => {
  await openSignedIn(page, "/users");
  const aborted: string[] = [];
  page.on("requestfailed", (request) => aborted.push(request.url()));
  const slow = await hold(page, (url) => url.pathname === "/v2/users" && url.searchParams.get("search") === "ana");

  await openPalette(page);
  await input(page).pressSequentially("ana");
  await expect.poll(() => slow.count()).toBe(1);
  await input(page).pressSequentially(" p");
  await expect.poll(() => aborted.some((url) => new URL(url).searchParams.get("search") === "ana")).toBe(true);
  await expect(palette(page).getByTestId("palette-status")).not.toContainText("Searching");
  await slow.release();
});

test("from a form with unsaved changes, the palette asks before leaving", async ({ page }) => {
  await openSignedIn(page, "/users");
  const { user } = await records(page);
  await page.goto(`/users/${user._id}/edit`);
  const phone = page.getByLabel("Phone");
  await phone.fill("+34 600 999 000");
  await openPalette(page);
  await input(page).pressSequentially("surveys");
  await palette(page).getByRole("option", { name: "Go to Surveys" }).click();
  const ask = page.getByRole("alertdialog", { name: "Leave without saving?" });
  await expect(ask).toBeVisible();
  await ask.getByRole("button", { name: "Cancel" }).click();
  await expect(page).toHaveURL(new RegExp(`/users/${user._id}/edit$`));
  await expect(phone).toHaveValue("+34 600 999 000");

  await page.keyboard.press("Control+K");
  await input(page).pressSequentially("surveys");
  await page.keyboard.press("Enter");
  await ask.getByRole("button", { name: "Leave and discard" }).click();
  await page.waitForURL("**/surveys");
});

test("open, with results, the palette passes axe in both themes and fits a phone", async ({ page }) => {
  test.setTimeout(120_000);
  await openSignedIn(page, "/users");
  for (const mode of MODES) {
    const label = `${mode.width} px, ${mode.theme}`;
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await page.goto("/users");
    await expect(page.getByTestId("users-total")).toBeVisible();
    // Phones have no Ctrl+K: the header's button is there.
    await page.getByRole("button", { name: "Find" }).click();
    await input(page).pressSequentially("a");
    await expect(palette(page).getByRole("group", { name: "Users" })).toBeVisible();
    await expect(palette(page).getByTestId("palette-status")).not.toContainText("Searching");
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark")), `${label}: theme`).toBe(
      mode.theme === "dark",
    );
    await expectNoSeriousViolation(page, `${label}: no serious or critical violation`);
    const box = await palette(page).boundingBox();
    expect
      .soft(box && box.x >= 0 && box.x + box.width <= mode.width, `${label}: the palette fits the screen`)
      .toBe(true);
    await screenshot(page, `24-palette-${mode.width}-${mode.theme}`);
  }
});
