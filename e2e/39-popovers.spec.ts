/**
 * Every popover of the users list (Columns, Export, Views, the bulk Actions) closes on Escape and
 * on a press outside it, and the focus returns to its button after Escape; one left open closes
 * when a dialog (the command palette) takes the focus. At 1440 px in light and 390 px in dark.
 */
import type { Locator, Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, STATE_MODES, test } from "./fixtures";

/** Opens the popover of `button` (its panel is `panel`), then closes it by Escape and by a press outside. */
async function closesBothWays(page: Page, button: Locator, panel: Locator) {
  await button.click();
  await expect(button).toHaveAttribute("aria-expanded", "true");
  await expect(panel).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
  await expect(button).toHaveAttribute("aria-expanded", "false");
  await expect(button).toBeFocused();

  await button.click();
  await expect(panel).toBeVisible();
  await page.getByRole("heading", { level: 1 }).click();
  await expect(panel).toBeHidden();
  await expect(button).toHaveAttribute("aria-expanded", "false");
}

for (const mode of STATE_MODES) {
  test(`39. the list's popovers close on Escape and outside, and give the focus back (${mode.width} px, ${mode.theme})`, async ({
    page,
  }) => {
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    await openSignedIn(page, "/users");
    await expect(page.getByTestId("users-total")).toBeVisible();

    const columns = page.getByRole("button", { name: "Columns", exact: true });
    await closesBothWays(page, columns, page.getByRole("group", { name: "Columns shown" }));
    await closesBothWays(
      page,
      page.getByRole("button", { name: "Export" }),
      page.getByRole("button", { name: /^CSV/ }),
    );
    await closesBothWays(
      page,
      page.getByRole("button", { name: /^Views/ }),
      page.getByText(/No saved view yet|Your views|Shared with the company/).first(),
    );

    await page
      .getByRole("checkbox", { name: /^Select (?!all)/ })
      .first()
      .check();
    const actions = page.getByRole("button", { name: "Actions" });
    await actions.click();
    await expect(page.getByRole("button", { name: "Deactivate" })).toBeVisible();
    await screenshot(page, `39-popover-actions-${mode.width}-${mode.theme}`);
    await page.keyboard.press("Escape");
    await expect(page.getByRole("button", { name: "Deactivate" })).toBeHidden();
    await expect(actions).toBeFocused();
    await actions.click();
    await page.getByTestId("selected-count").click();
    await expect(page.getByRole("button", { name: "Deactivate" })).toBeHidden();

    // A choice closes the menu; the dialog it opens has the focus, and Escape there closes the dialog only.
    await actions.click();
    await page.getByRole("button", { name: "Add access role…" }).click();
    const dialog = page.getByRole("alertdialog", { name: /^Add access role for 1 user/ });
    await expect(dialog).toBeVisible();
    await expect(page.getByRole("button", { name: "Deactivate" })).toBeHidden();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();

    // Left open, the Columns popover does not stay behind a dialog that takes the focus.
    await columns.click();
    await expect(page.getByRole("group", { name: "Columns shown" })).toBeVisible();
    await screenshot(page, `39-popover-columns-${mode.width}-${mode.theme}`);
    await page.getByRole("button", { name: "Find" }).click();
    await expect(page.getByRole("dialog", { name: "Find users, surveys and pages" })).toBeVisible();
    await expect(page.getByRole("group", { name: "Columns shown" })).toBeHidden();
  });
}
