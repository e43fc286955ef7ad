/**
 * The Import users page (docs/api.md#import): a CSV with one bad row is checked (the dry run shows
 * its summary and the bad row), imported with the progress bar reaching 100%, and the new users
 * appear in the users list. The last state is pictured and checked with axe, wide and narrow, light and dark.
 */
import type { Page } from "@playwright/test";
import { expectNoSeriousViolation } from "./axe";
import { expect, openSignedIn, screenshot, STATE_MODES, test, unique } from "./fixtures";

async function checkViews(page: Page, name: string): Promise<void> {
  const dismiss = page.getByRole("button", { name: "Dismiss" });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
  for (const mode of STATE_MODES) {
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    // The page follows the system theme by a class its script sets: checked once it has.
    await expect(page.locator("html")).toHaveClass(mode.theme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect.soft(overflow, `${mode.width} ${mode.theme}: no sideways scrolling`).toBeLessThanOrEqual(0);
    await expectNoSeriousViolation(page, `${mode.width} ${mode.theme}`);
    await screenshot(page, `36-import-${name}-${mode.width}-${mode.theme}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

test("Import users: a file with one bad row is checked, imported to 100%, and its users are listed", async ({
  page,
}) => {
  test.setTimeout(60_000);
  const run = unique();
  const emails = [`imp.ana.${run}@example.com`, `imp.bea.${run}@example.com`];
  const csv = [
    "email,firstName,lastName,secondLastName,isActive,accessRoles,jobTitle",
    `${emails[0]},Ana${run},Import,,true,Member,`,
    `not-an-e-mail,Bad,Row,,true,Member,`,
    `${emails[1]},Bea${run},Import,,true,Member,`,
  ].join("\n");

  await openSignedIn(page, "/users");
  await page.getByRole("link", { name: "Import users" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Import users" })).toBeVisible();
  // The last state shows every part of the page: the first is only pictured.
  await screenshot(page, "36-import-empty-1280-light");

  await page
    .getByLabel("Choose a file")
    .setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await expect(page.getByText("people.csv")).toBeVisible();
  await page.getByRole("button", { name: "Check the file" }).click();

  const summary = page.getByRole("definition");
  const check = page.getByRole("region", { name: "2. Check" });
  await expect(check.getByLabel("What the import would do")).toBeVisible({ timeout: 15_000 });
  await expect(check.getByText("Would be created")).toBeVisible();
  await expect(summary.first()).toHaveText("2");
  await expect(check.getByRole("heading", { name: "1 row has problems" })).toBeVisible();
  await expect(check.getByRole("table").getByText("must be an e-mail address")).toBeVisible();
  await expect(check.getByRole("table").getByRole("link", { name: "Line 3" })).toBeVisible();

  const download = page.waitForEvent("download");
  await check.getByRole("button", { name: "Download the error report" }).click();
  const report = await download;
  const text = await (
    await report.createReadStream()
  )
    .toArray()
    .then((chunks) => Buffer.concat(chunks).toString("utf8"));
  expect(text).toBe("line,path,message\n3,email,must be an e-mail address\n");

  await check.getByRole("button", { name: "Import" }).click();
  const done = page.getByRole("region", { name: "3. Import" });
  await expect(done.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100", { timeout: 15_000 });
  await expect(done.getByLabel("What the import did")).toBeVisible();
  await expect(done.getByLabel("What the import did").getByRole("definition").first()).toHaveText("2");
  await expect(page.getByText("Imported: 2 created, 0 updated.")).toBeVisible();
  await checkViews(page, "imported");

  await done.getByRole("link", { name: "Go to the users" }).click();
  await page.getByLabel("Search").first().fill(`Ana${run}`);
  await expect(page.getByRole("link", { name: new RegExp(`Ana${run} Import`) }).first()).toBeVisible();
});

for (const width of [1440, 390]) {
  test(`Import users at ${width} px: the template downloads with every column, and isActive "yes" is the row's problem, not a guess`, async ({
    page,
  }) => {
    test.setTimeout(60_000);
    await page.setViewportSize({ width, height: 900 });
    await openSignedIn(page, "/users/import");
    await expect(page.getByRole("heading", { level: 1, name: "Import users" })).toBeVisible();

    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download a template" }).click();
    const template = await download;
    expect(template.suggestedFilename()).toBe("users-import-template.csv");
    const header = await (
      await template.createReadStream()
    )
      .toArray()
      .then((chunks) => Buffer.concat(chunks).toString("utf8"));
    expect(header).toBe("email,displayName,firstName,lastName,secondLastName,isActive,accessRoles,jobTitle,phone\r\n");

    const run = unique();
    const csv = `${header}yes.${run}@example.com,,Yes,Person,,yes,Member,,\r\n`;
    await page
      .getByLabel("Choose a file")
      .setInputFiles({ name: "template.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Check the file" }).click();
    const check = page.getByRole("region", { name: "2. Check" });
    await expect(check.getByRole("heading", { name: "1 row has problems" })).toBeVisible({ timeout: 15_000 });
    // A table at 1440, a card per row on a phone: the problem and its column are shown either way.
    const problem = (width < 640 ? check.getByTestId("data-card") : check.getByRole("row")).filter({
      hasText: 'must be true or false, not "yes"',
    });
    await expect(problem).toBeVisible();
    await expect(problem.getByText("isActive", { exact: true })).toBeVisible();
  });
}
