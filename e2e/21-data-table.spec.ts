/**
 * The one data table of every list: the whole row opens its record (mouse and Enter), the sort in
 * its column header with aria-sort, page numbers and size, removable filter chips, the column
 * chooser remembered across a reload, and a Retry when the list fails to load.
 */
import type { Page } from "@playwright/test";
import { E2E_ADMIN_EMAIL } from "./env";
import { expect, openSignedIn, screenshot, test } from "./fixtures";

const rows = (page: Page) => page.locator("tbody tr");
const total = async (page: Page) => Number((await page.getByTestId("users-total").innerText()).replace(/\D/g, ""));

test("a click anywhere on a row, or Enter on a focused row, opens its record; the first cell stays a real link", async ({
  page,
}) => {
  await openSignedIn(page, "/users");
  const row = rows(page).nth(2);
  const link = row.locator("td").first().getByRole("link");
  const href = await link.getAttribute("href");
  expect(href).toMatch(/^\/users\/[0-9a-f]{24}$/);
  const email = (await row.locator("td").nth(1).innerText()).trim();

  // The Status cell is no link: the row itself answers the click.
  await row.locator("td").nth(4).click();
  await page.waitForURL(`**${href}`);
  await expect(page.getByText(email, { exact: true }).first()).toBeVisible();

  await page.goBack();
  await page.waitForURL("**/users");
  const again = rows(page).nth(3);
  const next = await again.locator("td").first().getByRole("link").getAttribute("href");
  await again.focus();
  await expect(again).toBeFocused();
  await page.keyboard.press("Enter");
  await page.waitForURL(`**${next}`);
});

test("surveys: a click on the row opens the survey and shows its code", async ({ page }) => {
  await openSignedIn(page, "/surveys");
  await screenshot(page, "21-surveys");
  const row = rows(page).first();
  const code = (await row.locator("td").nth(1).innerText()).trim();
  await row.locator("td").nth(3).click();
  await page.waitForURL(/\/surveys\/[0-9a-f]{24}$/);
  await expect(page.locator("code", { hasText: code }).first()).toBeVisible();
});

test("the sort the API allows is shown and toggled in its column header with aria-sort", async ({ page }) => {
  await openSignedIn(page, "/users");
  const modified = page.getByRole("columnheader", { name: /Modified/ });
  await expect(modified).toHaveAttribute("aria-sort", "descending");
  await expect(page.getByRole("columnheader", { name: "Name" })).toHaveAttribute("aria-sort", "none");
  const newest = await rows(page).first().locator("td").first().innerText();

  await modified.getByRole("button").click();
  await expect(page).toHaveURL(/[?&]orderBy=asc/);
  await expect(modified).toHaveAttribute("aria-sort", "ascending");
  await expect(rows(page).first().locator("td").first()).not.toHaveText(newest);

  await modified.getByRole("button").click();
  await expect(page).not.toHaveURL(/orderBy=/);
  await expect(modified).toHaveAttribute("aria-sort", "descending");
  await expect(rows(page).first().locator("td").first()).toHaveText(newest);
});

test("page numbers, first and last, a page size and “Showing 11–20 of N”", async ({ page }) => {
  await openSignedIn(page, "/users");
  const pages = page.getByRole("navigation", { name: "Pages" });
  const everyone = await total(page);
  const last = Math.ceil(everyone / 10);
  await expect(pages.getByTestId("showing")).toHaveText(`Showing 1–10 of ${everyone.toLocaleString("en")} users`);
  await expect(pages.getByRole("button", { name: "Page 1", exact: true })).toHaveAttribute("aria-current", "page");

  await pages.getByRole("button", { name: "Page 2", exact: true }).click();
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  await expect(pages.getByTestId("showing")).toHaveText(`Showing 11–20 of ${everyone.toLocaleString("en")} users`);
  await expect(pages.getByRole("button", { name: "Page 2", exact: true })).toHaveAttribute("aria-current", "page");
  await screenshot(page, "21-users-page-2");

  await pages.getByRole("button", { name: "Last page" }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]page=${last}(&|$)`));
  await expect(pages.getByTestId("showing")).toHaveText(new RegExp(`^Showing ${(last - 1) * 10 + 1}–${everyone} of`));
  await expect(pages.getByRole("button", { name: "Next page" })).toBeDisabled();

  await pages.getByRole("button", { name: "First page" }).click();
  await expect(page).not.toHaveURL(/page=/);
  await expect(pages.getByRole("button", { name: "Previous page" })).toBeDisabled();

  await pages.getByLabel("Per page").selectOption("25");
  await expect(page).toHaveURL(/[?&]limit=25/);
  await expect(rows(page)).toHaveCount(25);
  await expect(pages.getByTestId("showing")).toHaveText(`Showing 1–25 of ${everyone.toLocaleString("en")} users`);

  // One user found: the words agree with the number.
  await page.goto(`/users?email=${encodeURIComponent(E2E_ADMIN_EMAIL)}`);
  await expect(pages.getByTestId("showing")).toHaveText("Showing 1–1 of 1 user");
  await expect(page.getByTestId("users-total")).toHaveText("1 user");
});

test("the applied filters are chips, each removable, and “Clear all”", async ({ page }) => {
  await openSignedIn(page, "/users?isActive=false&search=a");
  const chips = page.getByRole("group", { name: "Applied filters" });
  await expect(chips.getByText("Search: a", { exact: true })).toBeVisible();
  await expect(chips.getByText("Status: Inactive", { exact: true })).toBeVisible();
  await expect(page.getByTestId("users-total")).toBeVisible();

  // While the new filter's answer is held back, the rows stay but the old total is not shown as the new one.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/v2/users?*accessRole=*", async (route) => {
    await held;
    await route.continue();
  });
  await page.getByLabel("Access role", { exact: true }).selectOption({ label: "Member" });
  await expect(chips.getByText("Access role: Member", { exact: true })).toBeVisible();
  await expect(page.getByText("Counting…")).toBeVisible();
  await expect(page.getByTestId("users-total")).toHaveCount(0);
  release();
  await expect(page.getByTestId("users-total")).toHaveText(/^\d[\d,]* users?$/);
  await page.unroute("**/v2/users?*accessRole=*");
  await screenshot(page, "21-users-chips");

  await chips.getByRole("button", { name: "Remove filter Status: Inactive" }).click();
  await expect(page).not.toHaveURL(/isActive=/);
  await expect(page.getByLabel("Status")).toHaveValue("true");
  await expect(chips.getByText("Status: Inactive")).toHaveCount(0);
  await expect(page).toHaveURL(/search=a/);

  await chips.getByRole("button", { name: "Clear all" }).click();
  await expect(page).toHaveURL(/\/users$/);
  await expect(page.getByRole("group", { name: "Applied filters" })).toHaveCount(0);
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveValue("");
});

test("the column chooser hides a column, and the choice survives a reload", async ({ page }) => {
  await openSignedIn(page, "/users");
  await expect(page.getByRole("columnheader", { name: "Job title" })).toBeVisible();
  await page.getByText("Columns", { exact: true }).click();
  await page.getByRole("checkbox", { name: "Job title column" }).uncheck();
  await expect(page.getByRole("columnheader", { name: "Job title" })).toHaveCount(0);
  await expect(rows(page).first().locator("td")).toHaveCount(5);

  await page.reload();
  await expect(rows(page)).toHaveCount(10);
  await expect(page.getByRole("columnheader", { name: "Job title" })).toHaveCount(0);
  await expect(page.getByRole("columnheader", { name: "Access roles" })).toBeVisible();

  await page.getByText("Columns", { exact: true }).click();
  await page.getByRole("checkbox", { name: "Job title column" }).check();
  await expect(page.getByRole("columnheader", { name: "Job title" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("columnheader", { name: "Job title" })).toBeVisible();
});

test.describe("a list that fails to load", () => {
  test.use({ expectedConsoleErrors: [/status of 500/] });

  test("shows what happened and a Retry that loads it", async ({ page }) => {
    await openSignedIn(page, "/surveys");
    await page.route("**/v2/users?*", (route) =>
      route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "internal", message: "The server failed." } }),
      }),
    );
    await page.goto("/users");
    await expect(page.getByRole("alert").filter({ hasText: "The users could not be loaded" })).toBeVisible();
    await expect(page.getByText("Counting…")).toHaveCount(0);
    await page.unroute("**/v2/users?*");
    await page.getByRole("button", { name: "Retry" }).click();
    await expect(rows(page)).toHaveCount(10);
    await expect(page.getByRole("alert").filter({ hasText: "could not be loaded" })).toHaveCount(0);
  });
});
