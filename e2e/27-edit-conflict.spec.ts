/**
 * Two admins edit one survey at once, each in a browser context of their own: the first save
 * wins; the second form is refused by the server (`If-Match`, 412), says who saved and when,
 * shows what differs field by field, and lets its admin overwrite or reload. The conflict panel
 * is pictured (e2e/screenshots/24-*.png) and checked with axe in both themes, wide and narrow.
 */
import type { Browser, Page } from "@playwright/test";
import { expectNoSeriousViolation } from "./axe";
import { expect, STATE_MODES as MODES, openSignedIn, screenshot, test, unique } from "./fixtures";

// The refused save is a 412 the browser reports in the console.
test.use({ expectedConsoleErrors: [/status of 412/] });

async function admin(browser: Browser, path: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await openSignedIn(page, path);
  return page;
}

async function createSurvey(page: Page): Promise<string> {
  await openSignedIn(page, "/surveys/new");
  await page.getByLabel("Code").fill(`conflict_${unique()}`);
  await page.getByLabel("Name").fill("Quarterly pulse");
  await page.getByRole("button", { name: "Create survey" }).click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}$/);
  return new URL(page.url()).pathname;
}

async function openEdit(page: Page, href: string): Promise<void> {
  await openSignedIn(page, `${href}/edit`);
  await expect(page.getByLabel("Name")).toBeEditable();
}

test("24. two admins edit one survey: the second save says who saved first and what changed, then overwrites or reloads", async ({
  browser,
  page,
}) => {
  // Two sign-ins, four axe checks and pictures, two rounds of edits.
  test.setTimeout(180_000);
  const href = await createSurvey(page);
  const other = await admin(browser, `${href}/edit`);

  // Both forms are open on the same version.
  await openEdit(page, href);
  await expect(other.getByLabel("Name")).toHaveValue("Quarterly pulse");

  // The other admin saves first.
  await other.getByLabel("Name").fill("Quarterly pulse (theirs)");
  await other.getByLabel("Active").uncheck();
  await other.getByRole("button", { name: "Save changes" }).click();
  await expect(other.getByRole("heading", { level: 1, name: "Quarterly pulse (theirs)" })).toBeVisible();

  // This admin's save is refused: who, when, and yours vs theirs field by field.
  await page.getByLabel("Name").fill("Quarterly pulse (mine)");
  await page.getByRole("button", { name: "Save changes" }).click();
  const panel = page.getByRole("region", { name: "This survey was changed while you were editing it" });
  await expect(panel).toBeVisible();
  await expect(panel).toContainText(/Saved by (?!someone else)\S+/);
  await expect(panel.locator("time")).toHaveAttribute("datetime", /^\d{4}-\d{2}-\d{2}T/);
  const nameRow = panel.locator("tr[data-field=name]");
  await expect(nameRow).toContainText("Quarterly pulse (mine)");
  await expect(nameRow).toContainText("Quarterly pulse (theirs)");
  await expect(panel.locator("tr[data-field=isActive]")).toContainText("Yes");
  await expect(panel.locator("tr[data-field=isActive]")).toContainText("No");
  await expect(page.getByRole("button", { name: "Save changes" })).toBeHidden();

  for (const mode of MODES) {
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.classList.contains("dark")))
      .toBe(mode.theme === "dark");
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect.soft(overflow, `${mode.width} ${mode.theme}: no sideways scrolling`).toBeLessThanOrEqual(0);
    await expectNoSeriousViolation(page, `${mode.width} ${mode.theme}`);
    await screenshot(page, `27-edit-conflict-${mode.width}-${mode.theme}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });

  // Overwrite: this edit is saved over theirs (only the fields it changed).
  await panel.getByRole("button", { name: "Overwrite with mine" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Quarterly pulse (mine)" })).toBeVisible();

  // Again, and this time reload: the edit is dropped, after a confirmation.
  await openEdit(page, href);
  await openEdit(other, href);
  await other.getByLabel("Name").fill("Quarterly pulse, final");
  await other.getByRole("button", { name: "Save changes" }).click();
  await expect(other.getByRole("heading", { level: 1, name: "Quarterly pulse, final" })).toBeVisible();

  await page.getByLabel("Name").fill("Lost edit");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(panel).toBeVisible();
  await panel.getByRole("button", { name: "Reload saved version" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Discard your changes?" });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Discard and reload" }).click();
  await expect(panel).toBeHidden();
  await expect(page.getByLabel("Name")).toHaveValue("Quarterly pulse, final");
  // The reloaded form saves against the version it now shows.
  await page.getByLabel("Name").fill("Quarterly pulse, final 2");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Quarterly pulse, final 2" })).toBeVisible();
  await other.context().close();
});
