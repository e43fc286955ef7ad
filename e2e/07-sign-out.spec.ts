import { expect, openSignedIn, screenshot, signIn, test } from "./fixtures";

test("7. sign out; an admin page then asks for sign-in, and leads back to it afterwards", async ({ page }) => {
  await openSignedIn(page, "/users?search=ana");
  await expect(page.getByTestId("users-total")).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);

  await page.goto("/users?search=ana&isActive=all");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fusers%3Fsearch%3Dana%26isActive%3Dall$/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the admin" })).toBeVisible();
  await expect(page.getByText("you will be taken back")).toBeVisible();
  await screenshot(page, "7-sign-in-required");

  await signIn(page);
  await page.waitForURL("**/users?search=ana&isActive=all");
  await expect(page.getByRole("searchbox", { name: "Search" })).toHaveValue("ana");
  await expect(page.getByLabel("Status")).toHaveValue("all");
});

test("an ended session (cookie gone) brings the admin to sign-in and back to the same view", async ({
  page,
  context,
}) => {
  await openSignedIn(page, "/surveys?isActive=all");
  await expect(page.getByRole("heading", { level: 1, name: "Surveys" })).toBeVisible();
  await context.clearCookies();
  await page.reload();
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fsurveys%3FisActive%3Dall$/);
  await signIn(page);
  await page.waitForURL("**/surveys?isActive=all");
  await expect(page.getByLabel("Status")).toHaveValue("all");
});
