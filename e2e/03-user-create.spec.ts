import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

test("3. create a user (an invalid e-mail shows on its field), find it, edit its phone, boss and extensions, deactivate it", async ({
  page,
}) => {
  const id = unique();
  const email = `e2e.${id}@example.com`;
  await openSignedIn(page, "/users");
  await page.getByRole("link", { name: "New user" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "New user" })).toBeVisible();

  const emailField = page.getByLabel("E-mail", { exact: true });
  await emailField.fill("not-an-email");
  await page.getByLabel("First and middle names").fill("Zoë Ana");
  await page.getByLabel("Last name", { exact: true }).fill(`Tester${id}`);
  await page
    .getByRole("group", { name: /Access roles/ })
    .getByLabel("Member")
    .check();
  await page.getByLabel("Job title").selectOption({ label: "Designer" });
  await page.getByRole("button", { name: "Create user" }).click();

  await expect(emailField).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator("#user-email-error")).toHaveText("Must be an e-mail address.");
  await expect(emailField).toBeFocused();
  await expect(page).toHaveURL(/\/users\/new$/);
  await screenshot(page, "3-user-create-invalid");
  await page.setViewportSize({ width: 768, height: 1024 });
  await screenshot(page, "3-user-create-tablet");
  await page.setViewportSize({ width: 1280, height: 800 });

  await emailField.fill(email);
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page).toHaveURL(/\/users\/[0-9a-f]{24}$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(`Zoë Ana Tester${id}`);
  await expect(page.getByRole("status").filter({ hasText: "The user was created." })).toBeVisible();

  await page.getByRole("link", { name: "Users", exact: true }).first().click();
  await page.getByRole("searchbox", { name: "Search" }).fill(`tester${id}`);
  await expect(page.getByTestId("users-total")).toHaveText("1 user");
  await page.getByRole("link", { name: `Zoë Ana Tester${id}` }).click();

  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await expect(page.getByLabel("E-mail (cannot be changed)")).toHaveAttribute("readonly", "");
  await expect(page.getByLabel("E-mail (cannot be changed)")).toHaveValue(email);
  await page.getByLabel("Phone").fill("+34 611 222 333");
  // A boss, picked by typing part of an e-mail; the user being edited is never offered.
  const boss = page.getByRole("combobox", { name: "Boss" });
  await boss.fill("admin");
  await page.getByRole("listbox", { name: "Boss" }).getByRole("option").first().click();
  const chips = page.getByRole("list", { name: "Boss" }).getByRole("listitem");
  await expect(chips).toHaveCount(1);
  // The chip names the boss once its record has been read by id; until then it says "Loading…".
  await expect(chips.first()).not.toContainText("Loading…");
  const bossName = (await chips.first().innerText()).replace("✕", "").trim();
  expect(bossName).not.toBe("");
  // Extensions: JSON that does not parse is refused on its field, nothing is sent.
  const extensions = page.getByLabel("Extra data (JSON object)");
  await extensions.fill('{"team": "blue"');
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(extensions).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator("#user-extensions-error")).toContainText("Is not valid JSON");
  await expect(extensions).toBeFocused();
  await extensions.fill('{"team": "blue", "shift": 2}');
  await screenshot(page, "3-user-edit-hierarchy");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(/\/users\/[0-9a-f]{24}$/);
  await expect(page.getByText("+34 611 222 333")).toBeVisible();
  await expect(
    page.getByRole("region", { name: "Reporting lines" }).getByRole("link", { name: bossName }),
  ).toBeVisible();
  await expect(page.getByText('"team": "blue"')).toBeVisible();

  await page.getByRole("button", { name: "Deactivate" }).click();
  await page.getByRole("button", { name: "Yes, deactivate" }).click();
  await expect(page.getByRole("status").filter({ hasText: "deactivated" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 }).getByText("Inactive")).toBeVisible();
  await expect(page.getByRole("button", { name: "Activate" })).toBeVisible();
  await screenshot(page, "3-user-detail");
});
