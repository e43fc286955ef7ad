import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

test("5. upgrade a version 1 survey to version 2, with a preview of the change", async ({ page }) => {
  await openSignedIn(page, "/surveys/new");
  await page.getByLabel("Code").fill(`legacy_${unique()}`);
  await page.getByLabel("Name").fill("Legacy onboarding");
  await page.getByLabel(/Version 1/).check();
  await page.getByRole("group", { name: "Roles that may answer" }).getByLabel("Member").check();
  await page.getByLabel("Group", { exact: true }).fill("night_team");
  await page.getByRole("group", { name: "Roles of the group" }).getByLabel("Admin").check();
  await page.getByRole("button", { name: "Create survey" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Legacy onboarding" })).toBeVisible();
  await expect(page.getByText("Permissions v1", { exact: true })).toBeVisible();

  await page.getByRole("link", { name: "Upgrade to version 2" }).click();
  const preview = page.getByTestId("upgrade-preview");
  await expect(preview.getByRole("row", { name: /Roles and rights/ })).toContainText("Member (answer)");
  await expect(preview.getByRole("row", { name: /Groups/ })).toContainText("night_team: Admin");
  await screenshot(page, "5-survey-upgrade-preview");

  await page.getByRole("button", { name: "Upgrade to version 2" }).click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}$/);
  await expect(
    page.getByRole("status").filter({ hasText: "It now uses the version 2 permission model." }),
  ).toBeVisible();
  await expect(page.getByText("Permissions v2", { exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Upgrade to version 2" })).toHaveCount(0);
  await expect(page.getByText("Member (answer)")).toBeVisible();
  await expect(page.getByText("night_team: Admin")).toBeVisible();
  await screenshot(page, "5-survey-upgraded");
});
