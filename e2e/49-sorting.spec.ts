/**
 * Sorting the users and surveys lists (docs/api.md#sorting): at 1440 px each sortable column header
 * is a button with `aria-sort`, operable by keyboard, and the order lives in the URL like the
 * filters; at 390 px (no headers) a "Sort by" select and a direction button do the same. axe finds
 * no serious or critical violation in either width.
 */
import type { Page } from "@playwright/test";
import { expectNoSeriousViolation } from "./axe";
import { expect, openSignedIn, test } from "./fixtures";

const fold = (text: string) =>
  text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .trim();

/**
 * The text of column `index` of every row on the page, once the list shows the answer of its
 * current order: while another order loads, the previous rows stay, marked busy.
 */
async function column(page: Page, index: number): Promise<string[]> {
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0);
  return page
    .locator("tbody tr")
    .evaluateAll((rows, at) => rows.map((row) => (row.querySelectorAll("td")[at]?.textContent ?? "").trim()), index);
}

test.describe("at 1440 px", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("users sort by name, e-mail and created from their headers, by mouse and keyboard, kept in the URL", async ({
    page,
  }) => {
    await openSignedIn(page, "/users?isActive=all");
    const name = page.getByRole("columnheader", { name: /(^|\s)Name$/ });
    const email = page.getByRole("columnheader", { name: /^E-mail/ });
    await expect(page.getByRole("columnheader", { name: /^Modified/ })).toHaveAttribute("aria-sort", "descending");
    await expect(name).toHaveAttribute("aria-sort", "none");

    await name.getByRole("button").click();
    await expect(page).toHaveURL(/[?&]sort=name/);
    await expect(page).toHaveURL(/[?&]orderBy=asc/);
    await expect(name).toHaveAttribute("aria-sort", "ascending");
    await expect(page.getByRole("columnheader", { name: /^Modified/ })).toHaveAttribute("aria-sort", "none");
    const names = (await column(page, 0)).map(fold);
    expect(names).toEqual([...names].sort());

    // Keyboard: Enter on the focused header button reverses the order.
    await name.getByRole("button").focus();
    await page.keyboard.press("Enter");
    await expect(name).toHaveAttribute("aria-sort", "descending");
    await expect(page).not.toHaveURL(/orderBy=asc/);
    const reversed = (await column(page, 0)).map(fold);
    expect(reversed).toEqual([...reversed].sort().reverse());

    await email.getByRole("button").focus();
    await page.keyboard.press("Space");
    await expect(email).toHaveAttribute("aria-sort", "ascending");
    await expect(page).toHaveURL(/[?&]sort=email/);
    const emails = await column(page, 1);
    expect(emails).toEqual([...emails].sort());

    // The URL alone restores the order, after a reload too.
    await page.reload();
    await expect(page.getByRole("columnheader", { name: /^E-mail/ })).toHaveAttribute("aria-sort", "ascending");

    await openSignedIn(page, "/users?sort=createdAt&orderBy=asc");
    await expect(page.getByRole("columnheader", { name: /^Created/ })).toHaveAttribute("aria-sort", "ascending");
    await expectNoSeriousViolation(page, "users sorted, 1440");
  });

  test("surveys sort by name, code and modified from their headers", async ({ page }) => {
    await openSignedIn(page, "/surveys?isActive=all");
    const code = page.getByRole("columnheader", { name: /^Code/ });
    await code.getByRole("button").click();
    await expect(page).toHaveURL(/[?&]sort=code/);
    await expect(code).toHaveAttribute("aria-sort", "ascending");
    const codes = await column(page, 1);
    expect(codes).toEqual([...codes].sort());

    // While the new order loads (held back here), the rows of the previous one are marked busy.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/v2\/surveys\?.*sort=name/, async (route) => {
      await held;
      await route.continue();
    });
    const name = page.getByRole("columnheader", { name: /(^|\s)Name$/ });
    await name.getByRole("button").click();
    await expect(name).toHaveAttribute("aria-sort", "ascending");
    await expect(page).toHaveURL(/[?&]sort=name/);
    await expect(page.locator("[aria-busy=true]").getByRole("table")).toBeVisible();
    release();
    const names = (await column(page, 0)).map((text) => text.toLowerCase());
    expect(names).toEqual([...names].sort());

    const modified = page.getByRole("columnheader", { name: /^Modified/ });
    await modified.getByRole("button").click();
    await expect(modified).toHaveAttribute("aria-sort", "descending");
    await expect(page).not.toHaveURL(/sort=/);
    await expectNoSeriousViolation(page, "surveys sorted, 1440");
  });
});

test("at 1440 px, Activity's date filter says which zone its days are in: the company's", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openSignedIn(page, "/activity");
  await expect(page.getByTestId("day-zone")).toHaveText(/^Days are in [A-Za-z_/]+\.$/);
});

test.describe("at 390 px", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("a Sort by select and a direction button order the users' cards", async ({ page }) => {
    await openSignedIn(page, "/users?isActive=all");
    const sort = page.getByLabel("Sort by");
    await expect(sort).toBeVisible();
    await sort.selectOption({ label: "E-mail" });
    await expect(page).toHaveURL(/[?&]sort=email/);
    await expect(page.getByRole("button", { name: "A → Z ↑" })).toBeVisible();
    await page.getByRole("button", { name: "A → Z ↑" }).click();
    await expect(page).toHaveURL(/[?&]sort=email/);
    await expect(page).not.toHaveURL(/orderBy=asc/);
    await expect(page.getByRole("button", { name: "Z → A ↓" })).toBeVisible();
    await expectNoSeriousViolation(page, "users sorted, 390");

    await openSignedIn(page, "/surveys");
    await page.getByLabel("Sort by").selectOption({ label: "Code" });
    await expect(page).toHaveURL(/[?&]sort=code/);
    await expectNoSeriousViolation(page, "surveys sorted, 390");
  });
});
