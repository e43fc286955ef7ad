/**
 * The reference-data pages (access roles, job titles, properties, bots): reached from the menu,
 * each list counts the users holding each record; a record is created and edited through its
 * form, with plain messages, the leave guard and toasts; pictured wide and narrow, light and dark.
 */
import type { Page } from "@playwright/test";
import { expect, STATE_MODES as MODES, openSignedIn, screenshot, test, unique } from "./fixtures";

const menu = (page: Page) => page.getByRole("navigation", { name: "Main" });
const toast = (page: Page, text: string) => page.locator("[data-toast]").filter({ hasText: text });

test.describe("a name the company already uses", () => {
  // The refused duplicate name is a real 409 answer, which the browser logs.
  test.use({ expectedConsoleErrors: [/status of 409 \(Conflict\)/] });

  test("a job title is created and renamed through its pages, asking before unsaved edits are left", async ({
    page,
  }) => {
    await openSignedIn(page, "/users");
    await menu(page).getByRole("link", { name: "Job titles" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Job titles" })).toBeVisible();
    // The seeded job titles are held by users: each count links to them.
    const table = page.getByRole("table");
    await expect(table.getByRole("link", { name: /^\d+ users?$/ }).first()).toBeVisible();

    const name = `Night auditor ${unique()}`;
    await page.getByRole("link", { name: "New job title" }).click();
    await page.getByRole("button", { name: "Create job title" }).click();
    await expect(page.locator("#jobTitles-name-error")).toHaveText("Enter the job title's name.");
    await expect(page.getByLabel("Name")).toBeFocused();
    await page.getByLabel("Name").fill(name);
    await page.getByRole("button", { name: "Create job title" }).click();
    await expect(toast(page, "The job title was created.")).toBeVisible();
    await expect(page).toHaveURL(/\/job-titles$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeFocused();

    await page.getByLabel("Search").fill(name.toUpperCase());
    await expect(page).toHaveURL(/search=/);
    const row = table.getByRole("row").filter({ hasText: name });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText("None");
    // The whole row opens the record, which shows at once from the list.
    await row.getByRole("cell").last().click();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);

    const renamed = `${name} (renamed)`;
    await page.getByLabel("Name").fill(renamed);
    await menu(page).getByRole("link", { name: "Bots" }).click();
    await expect(page.getByRole("alertdialog")).toBeVisible();
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByLabel("Name")).toHaveValue(renamed);
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(toast(page, "Your changes to the job title were saved.")).toBeVisible();
    await expect(page).toHaveURL(/\/job-titles$/);
    await page.getByLabel("Search").fill(renamed);
    await expect(page).toHaveURL(/search=/);
    await expect(table.getByRole("link", { name: renamed })).toBeVisible();

    // A name the company already uses is refused next to the field, in words.
    await page.getByRole("link", { name: "New job title" }).click();
    await page.getByLabel("Name").fill(renamed);
    await page.getByRole("button", { name: "Create job title" }).click();
    await expect(page.locator("#jobTitles-name-error")).toHaveText(
      "Another job title of the company already has this name.",
    );
  });
});

test("an access role is created as an admin role, then edited to grant no admin rights", async ({ page }) => {
  await openSignedIn(page, "/access-roles");
  // The seeded Admin role is held by users; its count opens them in the users list.
  const admin = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Admin", exact: true }) });
  await expect(admin.getByText("Yes", { exact: true })).toBeVisible();
  const holders = admin.getByRole("link", { name: /^\d+ users?$/ });
  const count = Number((await holders.innerText()).split(" ")[0]);
  await holders.click();
  await expect(page).toHaveURL(/\/users\?accessRole=[0-9a-f]{24}&isActive=all$/);
  await expect(page.getByTestId("users-total")).toHaveText(`${count} ${count === 1 ? "user" : "users"}`);

  const name = `Auditors ${unique()}`;
  await page.goto("/access-roles/new");
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Admin role").check();
  await page.getByRole("button", { name: "Create access role" }).click();
  await expect(toast(page, "The access role was created.")).toBeVisible();
  await page.getByLabel("Search").fill(name);
  await expect(page).toHaveURL(/search=/);
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row.getByText("Yes", { exact: true })).toBeVisible();
  await row.getByRole("link", { name }).click();
  await expect(page.getByLabel("Admin role")).toBeChecked();
  await page.getByLabel("Admin role").uncheck();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(toast(page, "Your changes to the access role were saved.")).toBeVisible();
  await expect(row).toContainText("No");
});

test("the reference pages, wide and narrow, light and dark, never scroll sideways", async ({ page }) => {
  test.setTimeout(120_000);
  await openSignedIn(page, "/access-roles");
  for (const mode of MODES) {
    const dark = mode.theme === "dark";
    const phone = mode.width < 640;
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    for (const href of ["/access-roles", "/job-titles", "/properties", "/bots"]) {
      await page.goto(href);
      const rows = page.locator(phone ? '[data-testid="data-card"]' : "tbody tr");
      await expect(rows.first()).toBeVisible();
      await expect(page.getByText("…", { exact: true })).toHaveCount(0);
      expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(dark);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect.soft(overflow, `${href} at ${mode.width} px: no sideways scrolling`).toBeLessThanOrEqual(0);
    }
    await page.goto("/access-roles");
    const rows = page.locator(phone ? '[data-testid="data-card"]' : "tbody tr");
    // The pictures show the page once its list and counts are in.
    await expect(rows.first().getByRole("link", { name: /^\d+ users?$/ })).toBeVisible();
    await screenshot(page, `31-access-roles-${mode.width}-${mode.theme}`);
    await rows.first().getByRole("link").first().click();
    await expect(page.getByRole("button", { name: "Save changes" })).toBeVisible();
    await expect(page.getByText("…", { exact: true })).toHaveCount(0);
    await screenshot(page, `31-access-role-${mode.width}-${mode.theme}`);
  }
});
