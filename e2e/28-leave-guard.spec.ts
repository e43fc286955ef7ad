/**
 * Unsaved edits are never lost without a word: a link or menu click and Back ask first in a
 * dialog whose Cancel keeps the form as it was, and reload or closing the tab get the browser's
 * own prompt.
 */
import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

test("a dirty user form asks before a menu click and before Back; Cancel keeps the edit", async ({ page }) => {
  await openSignedIn(page, "/users");
  await page.getByRole("link", { name: "New user" }).click();
  const email = page.getByLabel("E-mail", { exact: true });
  const typed = `guard.${unique()}@example.com`;
  await email.fill(typed);

  // A menu click: the dialog, and the page stays.
  const menuLink = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Surveys" });
  await menuLink.click();
  const dialog = page.getByRole("alertdialog", { name: "Leave without saving?" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await screenshot(page, "28-leave-guard");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/users\/new$/);
  await expect(email).toHaveValue(typed);
  // The focus goes back to what opened the dialog.
  await expect(menuLink).toBeFocused();

  // Back: asked too; Cancel keeps the page and the edit.
  await page.evaluate(() => history.back());
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page).toHaveURL(/\/users\/new$/);
  await expect(email).toHaveValue(typed);

  // Back again, and this time leave: the list it came from.
  await page.evaluate(() => history.back());
  await dialog.getByRole("button", { name: "Leave and discard" }).click();
  await expect(page).toHaveURL(/\/users(\?.*)?$/);
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
});

test("a clean form leaves without asking; a dirty survey form asks and Leave follows the link", async ({ page }) => {
  await openSignedIn(page, "/surveys/new");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();

  await page.goto("/surveys/new");
  await page.getByLabel("Name").fill("Half-written");
  await page.getByRole("link", { name: "Cancel" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Leave without saving?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Leave and discard" }).click();
  await expect(page).toHaveURL(/\/surveys(\?.*)?$/);
  await expect(page.getByRole("heading", { level: 1, name: "Surveys" })).toBeVisible();
});

test("reloading or closing a dirty form gets the browser's own prompt", async ({ page }) => {
  await openSignedIn(page, "/surveys/new");
  await page.getByLabel("Name").fill("Not saved");
  const prompts: string[] = [];
  page.on("dialog", (dialog) => {
    prompts.push(dialog.type());
    void dialog.dismiss();
  });
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => prompts).toEqual(["beforeunload"]);
});
