/**
 * The command palette ranks its actions and pages by the query, as cmdk scores them: "new s"
 * chooses New survey and "new u" New user, so Enter does what was typed. At 1440 px in light and
 * 390 px in dark (the header's Find button opens it on a phone).
 */
import type { Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, STATE_MODES, test } from "./fixtures";

const palette = (page: Page) => page.getByRole("dialog", { name: "Find users, surveys and pages" });

async function type(page: Page, text: string) {
  await page.getByRole("button", { name: "Find" }).click();
  const input = palette(page).getByRole("combobox");
  await expect(input).toBeFocused();
  await input.pressSequentially(text);
  await expect(palette(page).getByTestId("palette-status")).not.toContainText("Searching");
}

for (const mode of STATE_MODES) {
  test(`40. "new s" chooses New survey and "new u" New user; Enter goes there (${mode.width} px, ${mode.theme})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await openSignedIn(page, "/users");
    await expect(page.getByRole("button", { name: "Find" })).toBeEnabled();

    await type(page, "new s");
    const options = palette(page).getByRole("option");
    await expect(options.first()).toHaveText(/New survey/);
    await expect(options.filter({ hasText: "New survey" })).toHaveAttribute("aria-selected", "true");
    await expect(options.filter({ hasText: "New user" })).toHaveAttribute("aria-selected", "false");
    await screenshot(page, `40-palette-new-s-${mode.width}-${mode.theme}`);
    await page.keyboard.press("Enter");
    await page.waitForURL("**/surveys/new");
    await expect(page.getByRole("heading", { level: 1, name: "New survey" })).toBeVisible();

    await type(page, "new u");
    await expect(options.first()).toHaveText(/New user/);
    await expect(options.filter({ hasText: "New user" })).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("Enter");
    await page.waitForURL("**/users/new");
    await expect(page.getByRole("heading", { level: 1, name: "New user" })).toBeVisible();

    // A page named by the start of its words comes first too.
    await type(page, "activ");
    await expect(options.filter({ hasText: "Go to Activity" })).toHaveAttribute("aria-selected", "true");
  });
}
