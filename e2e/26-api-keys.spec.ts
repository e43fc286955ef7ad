import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

test("API keys: create one with scopes, see and copy it once, use it, revoke it with a confirmation", async ({
  page,
  context,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await openSignedIn(page, "/api-keys");
  await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();

  // The form says what is missing before anything is sent.
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Enter a name.")).toBeVisible();

  const name = `Payroll ${unique()}`;
  await page.getByLabel("Name").fill(name);
  // Admin power is shown apart, marked dangerous, and never chosen by default.
  await expect(page.getByLabel("admin: dangerous")).toBeVisible();
  await expect(page.getByLabel("admin: dangerous")).not.toBeChecked();
  await page.getByLabel(/^users:read/).check();
  await page.getByLabel(/^surveys:read/).check();
  await page.getByRole("button", { name: "Create key" }).click();

  const field = page.getByLabel("API key", { exact: true });
  await expect(field).toHaveValue(/^usk_[A-Za-z0-9_-]{43}$/);
  const key = await field.inputValue();
  await expect(page.getByText("you will not see it again")).toBeVisible();
  await page.getByRole("button", { name: "Copy key" }).click();
  await expect(page.getByRole("button", { name: "Copied", exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await screenshot(page, "24-api-key-created");

  // The key works for the scopes it was given, and only those.
  const asKey = (path: string) =>
    page.request.get(path, { headers: { Authorization: `Bearer ${key}`, Admin: "true" } });
  expect((await asKey("/v2/users")).status()).toBe(200);
  expect((await asKey("/v2/access-roles")).status()).toBe(403);

  // Once dismissed, the key is gone from the page, and the list shows only its prefix.
  await page.getByRole("button", { name: "I have copied it" }).click();
  await expect(page.getByLabel("API key", { exact: true })).toHaveCount(0);
  await page.reload();
  const row = page.getByRole("row").filter({ hasText: name });
  await expect(row).toContainText(`${key.slice(0, 12)}…`);
  await expect(row).toContainText("users:read");
  // Who made it is shown.
  await expect(page.getByRole("columnheader", { name: "Created by" })).toBeVisible();
  await expect(row).toContainText("@");
  await expect(page.locator("body")).not.toContainText(key);
  await screenshot(page, "26-api-keys-list");

  // Revoking asks first; Cancel keeps the key.
  await row.getByRole("button", { name: `Revoke the key ${name}` }).click();
  const dialog = page.getByRole("alertdialog", { name: `Revoke the key “${name}”?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  expect((await asKey("/v2/users")).status()).toBe(200);

  await row.getByRole("button", { name: `Revoke the key ${name}` }).click();
  await dialog.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("status").filter({ hasText: `API key “${name}” revoked` })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: name })).toHaveCount(0);
  expect((await asKey("/v2/users")).status()).toBe(401);

  // The Activity page keeps what was revoked: the key's last name and scopes, nothing after.
  await page.goto("/activity?resourceType=apiKey&action=apiKey.deleted");
  const revoked = page.getByRole("row").filter({ hasText: "Deleted API key" }).first();
  await expect(revoked).toContainText(`API key “${name}”`);
  // Its creation too is named by the name the entry kept, though the key cannot be read any more.
  await page.goto("/activity?resourceType=apiKey&action=apiKey.created");
  await expect(page.getByRole("row").filter({ hasText: "Created API key" }).first()).toContainText(`API key “${name}”`);
  await page.goto("/activity?resourceType=apiKey&action=apiKey.deleted");
  await revoked.getByRole("link").first().click();
  await expect(page).toHaveURL(/entry=[0-9a-f]{24}/);
  const named = page.getByTestId("audit-change").filter({ hasText: /^name/ });
  await expect(named.getByRole("cell").nth(0)).toHaveText(name);
  await expect(named.getByRole("cell").nth(1)).toHaveText("—");
  await expect(
    page
      .getByTestId("audit-change")
      .filter({ hasText: /^scopes/ })
      .getByRole("cell")
      .nth(0),
  ).toContainText("users:read");
  await screenshot(page, "26-api-key-revoked-activity");
});
