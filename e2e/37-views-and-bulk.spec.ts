import type { Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, TAKING_SCREENSHOTS, test, unique } from "./fixtures";

/** The page in each width and theme a person may see it in, without the toasts that cover it. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    for (const theme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: theme });
      await screenshot(page, `37-${name}-${width}-${theme}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

const shots = TAKING_SCREENSHOTS;

test("Saved views: save the filtered users list, and its link opened in a fresh page restores the filters", async ({
  page,
  context,
}) => {
  await openSignedIn(page, "/users");
  await page.getByLabel("Status").selectOption("all");
  await page.getByLabel("Search").fill("example");
  await expect(page).toHaveURL(/search=example/);

  const name = `Everyone ${unique()}`;
  await page.getByRole("button", { name: "Save view" }).click();
  const dialog = page.getByRole("dialog", { name: "Save the current view" });
  await expect(dialog.getByLabel("Name")).toBeFocused();
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByLabel("Share with everyone in the company").check();
  if (shots) await screenshots(page, "save-dialog");
  await dialog.getByRole("button", { name: "Save view" }).click();
  await expect(page.getByText(`View “${name}” saved.`)).toBeVisible();
  await expect(page).toHaveURL(/[?&]view=[0-9a-f]{24}/);
  const id = new URL(page.url()).searchParams.get("view")!;

  await page.getByText("Views", { exact: false }).first().click();
  const link = page.getByRole("link", { name });
  await expect(link).toHaveAttribute("href", /isActive=all/);
  if (shots) await screenshots(page, "menu");

  // The bare link names only the view: the page reads it and shows its filters.
  const fresh = await context.newPage();
  await fresh.goto(`/users?view=${id}`);
  await expect(fresh).toHaveURL(/isActive=all/);
  await expect(fresh).toHaveURL(/search=example/);
  await expect(fresh.getByLabel("Status")).toHaveValue("all");
  await expect(fresh.getByLabel("Search")).toHaveValue("example");
  await expect(fresh.getByTestId("current-view")).toHaveText(name);
  await fresh.close();
});

test("Bulk actions: select two users and deactivate them; the summary says 2 changed, the list shows them inactive, and the Activity page shows each change", async ({
  page,
}) => {
  await openSignedIn(page, "/users");
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  const headers = { Authorization: `Bearer ${token}`, Admin: "true" };
  const roles = (await (await page.request.get("/v2/access-roles", { headers })).json()).data.accessRoles as {
    _id: string;
    isAdmin: boolean;
  }[];
  const tag = `bulk${unique()}`;
  const emails = [`${tag}.one@example.com`, `${tag}.two@example.com`];
  const names = [`Bulk ${tag}one`, `Bulk ${tag}two`];
  for (const [index, email] of emails.entries()) {
    const name = { displayName: names[index], names: "Bulk", lastName: names[index].split(" ")[1], secondLastName: "" };
    const created = await page.request.post("/v2/users", {
      headers,
      data: { email, name, accessRoles: [roles.find((role) => !role.isAdmin)!._id] },
    });
    expect(created.status()).toBe(201);
  }

  await page.goto(`/users?search=${tag}`);
  for (const name of names) await page.getByRole("checkbox", { name: `Select ${name}` }).check();
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
  await page.getByText("Actions").click();
  if (shots) await screenshots(page, "bulk-bar");
  await page.getByRole("button", { name: "Deactivate" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Deactivate for 2 users?" });
  await confirm.getByRole("button", { name: "Deactivate (2)" }).click();
  await expect(page.getByText("Deactivated 2 users. 2 changed, 0 unchanged, 0 failed.")).toBeVisible();

  await page.goto(`/users?search=${tag}&isActive=all`);
  const table = page.getByRole("table");
  for (const email of emails)
    await expect(
      table.getByRole("row").filter({ hasText: email }).getByText("Inactive", { exact: true }),
    ).toBeVisible();
  if (shots) {
    await page.getByRole("checkbox", { name: "Select all on this page" }).check();
    await screenshots(page, "selected");
  }

  // Each change of the bulk action is audited like a single edit (docs/api.md#audit-log).
  await page.goto("/activity?resourceType=user&action=user.updated");
  for (const name of names) {
    const row = page.getByRole("row").filter({ hasText: name }).first();
    await expect(row).toContainText("Changed user");
    await expect(row).toContainText("isActive");
  }
});
