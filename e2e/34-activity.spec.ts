/**
 * The audit log in the admin pages: a change of a user made in the form shows on the Activity page
 * with its fields before and after, the page's filters live in the URL and survive a reload, and
 * the user's History tab shows the same entry. Pictured (e2e/screenshots/34-*.png) wide and on a
 * phone, light and dark, and checked with axe.
 */
import type { Page } from "@playwright/test";
import { expectNoSeriousViolation as axeClean } from "./axe";
import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

const ALL_MODES = [
  [1280, 800, "light"],
  [1280, 800, "dark"],
  [390, 844, "light"],
  [390, 844, "dark"],
] as const;

/** The page in each mode it is pictured in; axe only where `axe` says (the accessibility walk, e2e/11, checks every page as it opens). */
async function pictures(
  page: Page,
  name: string,
  modes: readonly (typeof ALL_MODES)[number][] = ALL_MODES,
  axe = true,
): Promise<void> {
  const dismiss = page.getByRole("button", { name: "Dismiss" });
  while ((await dismiss.count()) > 0) await dismiss.first().click();
  for (const [width, height, theme] of modes) {
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: theme });
    if (axe) await axeClean(page, `${name} ${width} ${theme}`);
    await screenshot(page, `34-${name}-${width}-${theme}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

test("34. a user changed in the form shows on the Activity page with before and after, its filters survive a reload, and on the user's History tab", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const id = unique();
  await openSignedIn(page, "/users/new");
  await page.getByLabel("E-mail", { exact: true }).fill(`audit.${id}@example.com`);
  await page.getByLabel("First and middle names").fill("Audra");
  await page.getByLabel("Last name", { exact: true }).fill(`Trail${id}`);
  await page
    .getByRole("group", { name: /Access roles/ })
    .getByLabel("Member")
    .check();
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page).toHaveURL(/\/users\/[0-9a-f]{24}$/);
  const userPath = new URL(page.url()).pathname;

  await page.getByRole("link", { name: "Edit", exact: true }).click();
  await page.getByLabel("Phone").fill("+34 600 111 222");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page).toHaveURL(new RegExp(`${userPath}$`));

  // The Activity page, filtered to changes of users: the filters go into the URL.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Activity" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Activity" })).toBeVisible();
  await page.getByLabel("Kind of record").selectOption("user");
  await page.getByLabel("Action").selectOption("user.updated");
  await expect(page).toHaveURL(/\/activity\?resourceType=user&action=user.updated$/);
  const row = page
    .getByRole("row")
    .filter({ hasText: `Audra Trail${id}` })
    .first();
  await expect(row).toContainText("Changed user");
  await expect(row).toContainText("phone");

  // Its details: each changed field before and after.
  await row.getByRole("link").first().click();
  await expect(page).toHaveURL(/entry=[0-9a-f]{24}/);
  const phone = page.getByTestId("audit-change").filter({ hasText: "phone" });
  await expect(phone.getByRole("cell").nth(0)).toHaveText("—");
  await expect(phone.getByRole("cell").nth(1)).toHaveText("+34 600 111 222");

  // A reload keeps the filters and the opened entry.
  await page.reload();
  await expect(page.getByLabel("Kind of record")).toHaveValue("user");
  await expect(page.getByLabel("Action")).toHaveValue("user.updated");
  await expect(page.getByRole("group", { name: "Applied filters" })).toContainText("Action: Changed user");
  await expect(page.getByTestId("audit-change").filter({ hasText: "phone" })).toContainText("+34 600 111 222");
  await pictures(page, "activity");

  // A filter that matches nothing says so.
  await page.getByLabel("From").fill("2999-01-01");
  await expect(page.getByText("No activity matches these filters")).toBeVisible();
  await expect(page).toHaveURL(/from=2999-01-01/);

  // The user's History tab shows its own entries: the change and the create.
  await page.goto(userPath);
  await page.getByRole("navigation", { name: "User" }).getByRole("link", { name: "History" }).click();
  await expect(page).toHaveURL(new RegExp(`${userPath}/history$`));
  const history = page.getByRole("table", { name: /History of this user/ });
  await expect(history.getByRole("row").filter({ hasText: "Changed user" })).toHaveCount(1);
  await expect(history.getByRole("row").filter({ hasText: "Created user" })).toHaveCount(1);
  await history.getByRole("row").filter({ hasText: "Changed user" }).getByRole("link").first().click();
  await expect(page.getByTestId("audit-change").filter({ hasText: "phone" })).toContainText("+34 600 111 222");
  // The same table and details as the Activity page: one wide light and one narrow dark look suffice.
  await pictures(page, "user-history", [ALL_MODES[0], ALL_MODES[3]], false);

  // A survey's Activity tab and its Revisions page link to each other.
  await page.goto("/surveys");
  await page.getByRole("table").getByRole("link").first().click();
  await page.getByRole("navigation", { name: "Survey" }).getByRole("link", { name: "Activity" }).click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}\/activity$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Activity of");
  await page.getByRole("link", { name: "revisions", exact: true }).click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}\/history$/);
  await page.getByRole("link", { name: "Activity: who changed what" }).click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}\/activity$/);
  await pictures(page, "survey-history", [ALL_MODES[0], ALL_MODES[3]], false);
});
