import { expect, openSignedIn, screenshot, signIn, test } from "./fixtures";

const total = (page: import("@playwright/test").Page) => page.getByTestId("users-total");
const rows = (page: import("@playwright/test").Page) => page.locator("tbody tr");
const count = async (page: import("@playwright/test").Page) =>
  Number((await total(page).innerText()).replace(/\D/g, ""));

test("1. sign in; the users page shows the seeded users and their total", async ({ page }) => {
  await page.goto("/sign-in");
  await expect(page).toHaveTitle(/Sign in/);
  await signIn(page);
  await page.waitForURL("**/users");
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  await expect(total(page)).toHaveText(/\d+ users/);
  expect(await count(page)).toBeGreaterThan(200);
  await expect(rows(page)).toHaveCount(10);
  await expect(rows(page).first()).toContainText("@");
  await expect(page.getByRole("navigation", { name: "Pages" })).toContainText(/Page 1 of \d+/);
  await screenshot(page, "1-users");

  await page.setViewportSize({ width: 768, height: 1024 });
  await screenshot(page, "1-users-tablet");
});

test("2. search by name prefix and e-mail part, filter by access role and state; the URL follows and Back restores", async ({
  page,
}) => {
  await openSignedIn(page, "/users");
  await expect(total(page)).toHaveText(/\d+ users/);
  const everyone = await count(page);

  const search = page.getByRole("searchbox", { name: "Search" });
  await search.fill("luc");
  await expect(page).toHaveURL(/[?&]search=luc(&|$)/);
  await expect.poll(() => count(page)).toBeLessThan(everyone);
  const lucias = await count(page);
  expect(lucias).toBeGreaterThan(0);
  for (const name of await rows(page).locator("td:first-child a").allInnerTexts()) expect(name).toMatch(/^Lucía /);

  // An e-mail part: the local part of the first match, typed with its punctuation.
  const email = (await rows(page).first().locator("td").nth(1).innerText()).trim();
  const localPart = email.split("@")[0];
  await search.fill(localPart);
  await expect(page).toHaveURL(new RegExp(`search=${encodeURIComponent(localPart).replace(/\./g, "\\.")}`));
  await expect(total(page)).toHaveText("1 user");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText(email);

  await search.fill("");
  await expect(page).not.toHaveURL(/search=/);
  await expect.poll(() => count(page)).toBe(everyone);

  await page.getByLabel("Access role").selectOption({ label: "Admin" });
  await expect(page).toHaveURL(/accessRole=[0-9a-f]{24}/);
  await expect.poll(() => count(page)).toBeLessThan(10);
  const admins = await count(page);
  for (const roles of await rows(page).locator("td:nth-child(3)").allInnerTexts()) expect(roles).toContain("Admin");

  await page.getByLabel("Access role").selectOption({ label: "Member" });
  await expect.poll(() => count(page)).toBe(everyone - admins);
  const members = await count(page);
  const membersUrl = page.url();

  await page.getByLabel("Status").selectOption({ label: "Inactive" });
  await expect(page).toHaveURL(/isActive=false/);
  await expect.poll(() => count(page)).toBeLessThan(members);
  const inactive = await count(page);
  expect(inactive).toBeGreaterThan(0);
  await expect(rows(page).getByText("Inactive", { exact: true })).toHaveCount(Math.min(inactive, 10));
  await screenshot(page, "2-users-filtered");

  const shared = page.url();

  await page.goBack();
  await expect(page).toHaveURL(membersUrl);
  await expect(page.getByLabel("Status")).toHaveValue("true");
  await expect.poll(() => count(page)).toBe(members);

  await page.goBack();
  await expect(page).toHaveURL(/accessRole=/);
  await expect.poll(() => count(page)).toBe(admins);

  // The URL alone reproduces a view (a shared link).
  await page.goto(shared);
  await expect(page.getByLabel("Status")).toHaveValue("false");
  await expect(page.getByLabel("Access role")).toHaveValue(/[0-9a-f]{24}/);
  await expect.poll(() => count(page)).toBe(inactive);
});
