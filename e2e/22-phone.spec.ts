/**
 * At 390 px (a phone): no page scrolls sideways, lists are cards with their status, the filters
 * fold into one "Filters" button that counts the applied ones, and forms are one column.
 */
import type { Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, test } from "./fixtures";

test.use({ viewport: { width: 390, height: 844 } });

const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

test("users list: cards with the status, no sideways scroll, filters behind one counted button", async ({ page }) => {
  await openSignedIn(page, "/users");
  const cards = page.getByTestId("data-card");
  await expect(cards).toHaveCount(10);
  await expect(page.locator("table")).toBeHidden();
  await expect(cards.first().getByText(/^(Active|Inactive)$/)).toBeVisible();
  await expect(cards.first().getByRole("link")).toBeVisible();
  expect(await scrollsSideways(page)).toBe(false);

  const filters = page.getByRole("button", { name: /^Filters/ });
  await expect(filters).toHaveAttribute("aria-expanded", "false");
  await expect(page.getByRole("searchbox", { name: "Search" })).toBeHidden();
  await screenshot(page, "22-phone-users");

  await filters.click();
  await expect(page.getByRole("searchbox", { name: "Search" })).toBeVisible();
  await page.getByLabel("Status").selectOption({ label: "Inactive" });
  await expect(page).toHaveURL(/isActive=false/);
  await expect(page.getByTestId("filters-count")).toHaveText("1");
  await page.getByRole("button", { name: "More filters" }).click();
  expect(await scrollsSideways(page)).toBe(false);
  await screenshot(page, "22-phone-users-filters");

  // A card opens its record with a tap anywhere on it.
  await page.getByRole("button", { name: /^Filters/ }).click();
  const card = cards.first();
  const href = await card.getByRole("link").getAttribute("href");
  await card.locator("dd").last().click();
  await page.waitForURL(`**${href}`);
  expect(await scrollsSideways(page)).toBe(false);
  await screenshot(page, "22-phone-user");
});

test("a user form is one column and does not scroll sideways", async ({ page }) => {
  await openSignedIn(page, "/users/new");
  const email = await page.getByRole("textbox", { name: "E-mail" }).boundingBox();
  const phone = await page.getByRole("textbox", { name: "Phone" }).boundingBox();
  expect(email && phone).toBeTruthy();
  expect(phone!.y).toBeGreaterThan(email!.y + email!.height);
  expect(Math.abs(phone!.x - email!.x)).toBeLessThan(2);
  expect(await scrollsSideways(page)).toBe(false);
  await screenshot(page, "22-phone-user-form");
});

test("surveys list: cards with code and status, no sideways scroll", async ({ page }) => {
  await openSignedIn(page, "/surveys");
  const cards = page.getByTestId("data-card");
  await expect(cards.first()).toBeVisible();
  await expect(cards.first().getByText("Code", { exact: true })).toBeVisible();
  await expect(cards.first().getByText(/^(Active|Inactive)$/)).toBeVisible();
  expect(await scrollsSideways(page)).toBe(false);
  await screenshot(page, "22-phone-surveys");
});
