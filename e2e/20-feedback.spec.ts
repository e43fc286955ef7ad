/**
 * What the admin says back: a toast for every create, save, deactivate/activate and restore, in
 * the same words for users and surveys, with Undo after a deactivation; the focus on the new
 * page's heading after a save; and messages next to fields written for a person.
 */
import type { Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

/** Anything of zod's or the API's raw wording that must never show next to a field. */
const RAW = /`|expected (string|number|array)|Too (small|big)|>=|<=|Invalid input|Request id/i;

const toast = (page: Page, text: string | RegExp) =>
  page.getByRole("status", { name: "Notifications" }).locator("[data-toast]").filter({ hasText: text });

async function createUser(page: Page, id: string): Promise<void> {
  await page.goto("/users/new");
  await page.getByLabel("E-mail", { exact: true }).fill(`toast.${id}@example.com`);
  await page.getByLabel("First and middle names").fill("Tess");
  await page.getByLabel("Last name", { exact: true }).fill(`Toast${id}`);
  await page
    .getByRole("group", { name: /Access roles/ })
    .getByLabel("Member")
    .check();
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page).toHaveURL(/\/users\/[0-9a-f]{24}$/);
}

test("a user's create, save, deactivate and Undo each answer with a toast; the focus lands on the heading", async ({
  page,
}) => {
  const id = unique();
  await openSignedIn(page, "/users");
  await createUser(page, id);
  const heading = page.getByRole("heading", { level: 1 });
  await expect(heading).toContainText(`Tess Toast${id}`);
  await expect(toast(page, "The user was created.")).toBeVisible();
  await expect(heading).toBeFocused();
  // Dismissible: the × closes it at once.
  await toast(page, "The user was created.").getByRole("button", { name: "Dismiss" }).click();
  await expect(toast(page, "The user was created.")).toHaveCount(0);

  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await page.getByLabel("Phone").fill("+34 600 000 001");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(/\/users\/[0-9a-f]{24}$/);
  await expect(toast(page, "Your changes to the user were saved.")).toBeVisible();
  await expect(heading).toBeFocused();

  await page.getByRole("button", { name: "Deactivate" }).click();
  await page.getByRole("button", { name: "Yes, deactivate" }).click();
  const deactivated = toast(page, "The user was deactivated.");
  await expect(deactivated).toBeVisible();
  await expect(heading.getByText("Inactive")).toBeVisible();
  // Toasts stack: the save's is still there (newest first) while the deactivation's is added.
  await expect(page.locator("[data-toast]").first()).toContainText("deactivated");
  await screenshot(page, "20-toast-undo");
  await deactivated.getByRole("button", { name: "Undo" }).click();
  await expect(toast(page, "The user was activated.")).toBeVisible();
  await expect(heading.getByText("Active", { exact: true })).toBeVisible();
  await expect(deactivated).toHaveCount(0);
  // And the API agrees: the user is active again.
  const userId = new URL(page.url()).pathname.split("/").pop()!;
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  const record = await page.request.get(`/v2/users/${userId}`, {
    headers: { Authorization: `Bearer ${token}`, Admin: "true" },
  });
  expect((await record.json()).isActive).toBe(true);
  // Gone by themselves after a few seconds: no message outlives the action that caused it.
  await expect(page.locator("[data-toast]")).toHaveCount(0, { timeout: 20_000 });
});

test("a survey's create and save answer in the same words as a user's", async ({ page }) => {
  const code = `toast_${unique()}`;
  await openSignedIn(page, "/surveys/new");
  await page.getByLabel("Code").fill(code);
  await expect(page.getByText("✓ available")).toBeVisible();
  await page.getByLabel("Name").fill("Toast pulse");
  await page.getByLabel("Admin: may answer").check();
  await page.getByRole("button", { name: "Create survey" }).click();
  await expect(toast(page, "The survey was created.")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: "Toast pulse" })).toBeFocused();

  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await page.getByLabel("Name").fill("Toast pulse, weekly");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(toast(page, /^Your changes to the survey were saved\. It is now at revision 1\./)).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: "Toast pulse, weekly" })).toBeFocused();
});

test.describe("plain-language messages", () => {
  test("sign-in submitted empty asks for the e-mail and password, without code, type names or request id", async ({
    page,
  }) => {
    await page.goto("/sign-in");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("#sign-in-email-error")).toHaveText("Enter your e-mail.");
    await expect(page.locator("#sign-in-password-error")).toHaveText("Enter your password.");
    await expect(page.getByLabel("E-mail")).toBeFocused();
    await expect(page.getByLabel("E-mail")).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator("main")).not.toContainText(RAW);
    await screenshot(page, "20-sign-in-empty");
    // Only the password now: its own message, still plain.
    await page.getByLabel("E-mail").fill("someone@example.com");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator("#sign-in-email-error")).toHaveCount(0);
    await expect(page.locator("#sign-in-password-error")).toHaveText("Enter your password.");
  });

  test("the user and survey forms say what to enter", async ({ page }) => {
    await openSignedIn(page, "/users/new");
    await page.getByRole("button", { name: "Create user" }).click();
    await expect(page.locator("#user-email-error")).toHaveText("Enter the e-mail address.");
    await expect(page.locator("#user-accessRoles-error")).toHaveText("Choose at least one access role.");
    await expect(page.locator("form")).not.toContainText(RAW);

    await page.goto("/surveys/new");
    await page.getByLabel("Code").pressSequentially("Bad Code");
    await expect(page.locator("#survey-code-error")).toHaveText(
      "At most 60 characters: lowercase letters, digits and _.",
    );
  });
});
