import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

test("4. create a survey (a bad code is refused as typed), edit it twice, compare the first and last revisions, restore the first", async ({
  page,
}) => {
  const code = `e2e_${unique()}`;
  await openSignedIn(page, "/surveys");
  await page.getByRole("link", { name: "New survey" }).click();

  const codeField = page.getByLabel("Code");
  const create = page.getByRole("button", { name: "Create survey" });
  await codeField.pressSequentially("Bad Code");
  await expect(codeField).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator("#survey-code-error")).toHaveText(
    "At most 60 characters: lowercase letters, digits and _.",
  );
  await expect(create).toBeDisabled();
  await screenshot(page, "4-survey-code-refused");

  await codeField.fill("");
  await codeField.pressSequentially(code);
  await expect(codeField).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("✓ available")).toBeVisible();
  await page.getByLabel("Name").fill("Team pulse");
  await page.getByLabel("Admin: may answer").check();
  await create.click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}$/);
  await expect(page.getByRole("heading", { level: 1, name: "Team pulse" })).toBeVisible();

  // Two edits: the name, then the roles.
  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await page.getByLabel("Name").fill("Team pulse, weekly");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Team pulse, weekly" })).toBeVisible();

  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await page.getByLabel("Member: may answer").check();
  await page.getByLabel("Member: may view answers").check();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Member (answer, view answers)")).toBeVisible();

  await page.getByRole("link", { name: "Revisions", exact: true }).click();
  // The one data table of every list: a row opens that revision beside the one before it.
  const rows = page.getByRole("table", { name: /^Revisions, newest first/ }).locator("tbody tr");
  const revision = (n: number) => rows.filter({ has: page.getByRole("link", { name: `#${n}`, exact: true }) });
  await expect(rows).toHaveCount(3);
  await expect(page.getByRole("heading", { name: "Revision #1 ↔ #2" })).toBeVisible();
  await revision(1).getByRole("cell", { name: "Name", exact: true }).click();
  await expect(page).toHaveURL(/\/history\?left=0&right=1$/);
  await expect(page.getByRole("heading", { name: "Revision #0 ↔ #1" })).toBeVisible();
  await expect(page.getByRole("radio", { name: "Revision 1 on the right" })).toBeChecked();
  await page.goBack();
  await expect(page.getByRole("heading", { name: "Revision #1 ↔ #2" })).toBeVisible();

  // The choice shows at once, in the click's own task, before the router has taken the new URL
  // (docs/architecture.md, the admin pages).
  const chosenAtOnce = await page
    .getByRole("radio", { name: "Revision 0 on the left" })
    .evaluate((radio: HTMLInputElement) => {
      radio.click();
      return radio.checked;
    });
  expect(chosenAtOnce).toBe(true);
  await expect(page).toHaveURL(/\/history\?left=0&right=2$/);
  await page.getByRole("radio", { name: "Revision 2 on the right" }).check();
  const diff = page.getByTestId("revision-diff");
  await expect(page.getByRole("heading", { name: "Revision #0 ↔ #2" })).toBeVisible();
  await expect(diff.getByRole("row", { name: /Name/ })).toContainText("Team pulse");
  await expect(diff.getByRole("row", { name: /Name/ })).toContainText("Team pulse, weekly");
  await expect(diff.getByRole("row", { name: /Permissions \(v2\)/ })).toContainText("Member (answer, view answers)");
  await screenshot(page, "4-survey-history");

  await page.getByRole("button", { name: "Restore revision 0" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: "The survey was restored to revision 0. It is now at revision 3." }),
  ).toBeVisible();
  await expect(rows).toHaveCount(4);
  await expect(revision(3)).toContainText("Name");
  await expect(page).toHaveURL(/\/history$/);

  await page.getByRole("link", { name: "Team pulse" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Team pulse", exact: true })).toBeVisible();
  await expect(page.getByText("Member (answer")).toHaveCount(0);
});
