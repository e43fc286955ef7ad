import { expect, openSignedIn, screenshot, signIn, test, unique } from "./fixtures";

test("6. invite a user, open the link from the outbox, set a password, sign in as that user", async ({ page }) => {
  const id = unique();
  const email = `invitee.${id}@example.com`;
  const password = `pw-${id}-long`;
  await openSignedIn(page, "/users/new");
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("First and middle names").fill("Iris");
  await page.getByLabel("Last name", { exact: true }).fill(`Invited${id}`);
  await page
    .getByRole("group", { name: /Access roles/ })
    .getByLabel("Member")
    .check();
  await page.getByLabel(/Send an invitation e-mail/).check();
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByRole("status").filter({ hasText: "invitation e-mail" })).toBeVisible();

  await page.getByRole("link", { name: "Outbox" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Outbox" })).toBeVisible();
  // The outbox is a table: the mail's row opens it below the list.
  await page.locator("tbody tr").filter({ hasText: email }).click();
  const mail = page.getByRole("article").filter({ hasText: email });
  await expect(mail).toHaveCount(1);
  await expect(mail.getByRole("heading")).toContainText("You are invited");
  await screenshot(page, "6-outbox");
  const link = await mail.getByRole("link", { name: /\/invitation\// }).getAttribute("href");
  expect(link).toMatch(/\/invitation\/[\w-]+$/);

  // The admin leaves; the invitee opens the link in the same browser.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto(new URL(link!).pathname);
  await expect(page.getByRole("heading", { level: 1, name: "Set your password" })).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();
  await page.getByLabel("New password").fill(password);
  await page.getByLabel("Repeat the password").fill(password);
  await page.getByRole("button", { name: "Set password" }).click();
  await expect(page.getByRole("status")).toContainText("Your password is set");

  await page.goto("/sign-in");
  await signIn(page, email, password);
  await page.waitForURL("**/users");
  await expect(page.getByRole("banner")).toContainText(`Iris Invited${id}`);
  await expect(page.getByRole("status").filter({ hasText: "without an admin role" })).toBeVisible();
  await expect(page.getByTestId("users-total")).toBeVisible();
  await screenshot(page, "6-invitee-signed-in");
});
