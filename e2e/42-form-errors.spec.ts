/**
 * A bad JSON field is one error among the form's: a new user with a bad e-mail and bad extra data
 * shows both errors at once. At 1440 px in light and 390 px in dark.
 */
import { expect, openSignedIn, screenshot, STATE_MODES, test } from "./fixtures";

for (const mode of STATE_MODES) {
  test(`42. a bad JSON field does not hide the form's other errors (${mode.width} px, ${mode.theme})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await openSignedIn(page, "/users/new");
    await page.getByLabel("E-mail", { exact: true }).fill("not-an-email");
    await page.getByLabel("Extra data (JSON object)").fill("{ team: blue");
    await page.getByRole("button", { name: "Create user" }).click();
    await expect(page.locator("#user-email-error")).toHaveText("Must be an e-mail address.");
    await expect(page.locator("#user-extensions-error")).toContainText("Is not valid JSON");
    await expect(page.getByLabel("E-mail", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Extra data (JSON object)")).toHaveAttribute("aria-invalid", "true");
    await expect(page).toHaveURL(/\/users\/new$/);
    await screenshot(page, `42-form-errors-${mode.width}-${mode.theme}`);
  });
}
