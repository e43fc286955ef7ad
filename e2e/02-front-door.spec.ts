import { expect, screenshot, signIn, test } from "./fixtures";

test("the front door: / is the sign-in form, and after signing in the users list; signed in, / opens the users list", async ({
  page,
}) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { level: 1, name: "Sign in to the admin" })).toBeVisible();
  await expect(page.getByLabel("E-mail")).toBeFocused();
  await expect(page.getByLabel("Password")).toBeVisible();
  await screenshot(page, "2-front-door");

  await signIn(page);
  await page.waitForURL("**/users");
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  await expect(page.getByTestId("users-total")).toHaveText(/\d+ users/);

  // Signed in, the front door goes straight to the admin.
  await page.goto("/");
  await page.waitForURL("**/users");
  await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
});

test("the front door passes `next` on: after signing in at /?next=… the admin lands on that page", async ({ page }) => {
  await page.goto("/?next=%2Fsurveys%3FisActive%3Dall");
  await expect(page.getByText("you will be taken back")).toBeVisible();
  await signIn(page);
  await page.waitForURL("**/surveys?isActive=all");
  await expect(page.getByRole("heading", { level: 1, name: "Surveys" })).toBeVisible();
});

test("the health figures stay at /api/health", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ status: "ok", database: "embedded" });
});
