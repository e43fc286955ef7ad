/**
 * Notices never cover a control, and one kind of confirmation (docs/architecture.md, the admin
 * pages): every action that raises a notice is performed at 1440 and at 390 px, and after each
 * the notice's box overlaps no interactive control on screen, and every such control still takes
 * a click (the element at its centre is the control, not the notice). An undoable change acts at
 * once and offers Undo; a bulk action's Undo puts back exactly the users it changed.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";
import { axeClean, coveredControls, expectNoticeCoversNothing, notice } from "./notice-checks";

async function api(page: Page): Promise<{ request: APIRequestContext; headers: Record<string, string> }> {
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  return { request: page.request, headers: { Authorization: `Bearer ${token}`, Admin: "true" } };
}

async function createUsers(page: Page, tag: string, count: number): Promise<{ ids: string[]; names: string[] }> {
  const { request, headers } = await api(page);
  const roles = (await (await request.get("/v2/access-roles", { headers })).json()).data.accessRoles as {
    _id: string;
    isAdmin: boolean;
  }[];
  const ids: string[] = [];
  const names: string[] = [];
  for (let index = 0; index < count; index++) {
    const last = `${tag}n${index}`;
    const name = { displayName: `Notice ${last}`, names: "Notice", lastName: last, secondLastName: "" };
    const created = await request.post("/v2/users", {
      headers,
      data: { email: `${last}@example.com`, name, accessRoles: [roles.find((role) => !role.isAdmin)!._id] },
    });
    expect(created.status()).toBe(201);
    ids.push((await created.json())._id);
    names.push(name.displayName);
  }
  return { ids, names };
}

async function activeOf(page: Page, ids: string[]): Promise<boolean[]> {
  const { request, headers } = await api(page);
  return Promise.all(
    ids.map(async (id) => (await (await request.get(`/v2/users/${id}`, { headers })).json()).isActive as boolean),
  );
}

for (const mode of [
  { width: 1440, height: 900, theme: "light" },
  { width: 390, height: 844, theme: "dark" },
] as const) {
  test.describe(`at ${mode.width} px, ${mode.theme}`, () => {
    test.use({ viewport: { width: mode.width, height: mode.height }, colorScheme: mode.theme });

    test("a user's create, save, deactivate and Undo: each notice covers no control", async ({ page }) => {
      const tag = unique();
      await openSignedIn(page, "/users/new");
      await page.getByLabel("E-mail", { exact: true }).fill(`notice.${tag}@example.com`);
      await page.getByLabel("First and middle names").fill("Nora");
      await page.getByLabel("Last name", { exact: true }).fill(`Notice${tag}`);
      await page
        .getByRole("group", { name: /Access roles/ })
        .getByLabel("Member")
        .check();
      await page.getByRole("button", { name: "Create user" }).click();
      await expectNoticeCoversNothing(page, "The user was created.");

      await page.getByRole("link", { name: "Edit", exact: true }).click();
      await page.getByLabel("Phone").fill("+34 600 000 047");
      await page.getByRole("button", { name: "Save changes" }).click();
      await expectNoticeCoversNothing(page, "Your changes to the user were saved.");

      // Scrolled down, a new notice still covers nothing: the page moves down under it.
      await page.evaluate(() => window.scrollTo(0, 120));
      await page.getByRole("button", { name: "Deactivate" }).click();
      // The one modal asks, because the keys it may revoke cannot be given back.
      const dialog = page.getByRole("alertdialog", { name: /^Deactivate Nora Notice/ });
      await expect(dialog).toBeVisible();
      await expect(page.getByRole("alertdialog")).toHaveCount(1);
      await dialog.getByRole("button", { name: "Yes, deactivate" }).click();
      await expectNoticeCoversNothing(page, "The user was deactivated.");
      await axeClean(page);
      await screenshot(page, `51-deactivated-${mode.width}-${mode.theme}`);
      await notice(page, "The user was deactivated.").getByRole("button", { name: "Undo" }).click();
      await expectNoticeCoversNothing(page, "The user was activated.");
      const id = new URL(page.url()).pathname.split("/").pop()!;
      expect(await activeOf(page, [id])).toEqual([true]);
    });

    test("bulk deactivate acts after its one modal and Undo reactivates exactly the users it changed", async ({
      page,
    }) => {
      const tag = `bk${unique()}`;
      await openSignedIn(page, "/users");
      const { ids, names } = await createUsers(page, tag, 3);
      // The third is inactive already: the bulk action leaves it unchanged, and Undo must too.
      const { request, headers } = await api(page);
      expect(
        (await request.post("/v2/users/bulk", { headers, data: { ids: [ids[2]], action: "deactivate" } })).status(),
      ).toBe(200);

      await page.goto(`/users?search=${tag}&isActive=all`);
      for (const name of names) await page.getByRole("checkbox", { name: `Select ${name}` }).check();
      await expect(page.getByTestId("selected-count")).toHaveText("3 selected");
      await page.getByText("Actions").click();
      await page.getByRole("button", { name: "Deactivate" }).click();
      await page
        .getByRole("alertdialog", { name: "Deactivate for 3 users?" })
        .getByRole("button", { name: "Deactivate (3)" })
        .click();
      await expectNoticeCoversNothing(page, "Deactivated 2 users. 2 changed, 1 unchanged, 0 failed.");
      expect(await activeOf(page, ids)).toEqual([false, false, false]);
      await axeClean(page);
      await screenshot(page, `51-bulk-undo-${mode.width}-${mode.theme}`);

      await notice(page, "Deactivated 2 users.").getByRole("button", { name: "Undo" }).click();
      await expectNoticeCoversNothing(page, "Undone: activated 2 users.");
      expect(await activeOf(page, ids)).toEqual([true, true, false]);
    });

    test("bulk activate acts at once, with no question, and Undo deactivates only those it activated", async ({
      page,
    }) => {
      const tag = `ba${unique()}`;
      await openSignedIn(page, "/users");
      const { ids, names } = await createUsers(page, tag, 2);
      const { request, headers } = await api(page);
      expect(
        (await request.post("/v2/users/bulk", { headers, data: { ids: [ids[0]], action: "deactivate" } })).status(),
      ).toBe(200);

      await page.goto(`/users?search=${tag}&isActive=all`);
      for (const name of names) await page.getByRole("checkbox", { name: `Select ${name}` }).check();
      await page.getByText("Actions").click();
      await page.getByRole("button", { name: "Activate", exact: true }).click();
      await expect(page.getByRole("alertdialog")).toHaveCount(0);
      await expectNoticeCoversNothing(page, "Activated 1 user. 1 changed, 1 unchanged, 0 failed.");
      expect(await activeOf(page, ids)).toEqual([true, true]);
      await notice(page, "Activated 1 user.").getByRole("button", { name: "Undo" }).click();
      await expectNoticeCoversNothing(page, "Undone: deactivated 1 user.");
      expect(await activeOf(page, ids)).toEqual([false, true]);
    });

    test("a survey's create and save: the notice leaves Preview's Send free", async ({ page }) => {
      const code = `notice_${unique()}`;
      await openSignedIn(page, "/surveys/new");
      await page.getByLabel("Code").fill(code);
      await expect(page.getByText("✓ available")).toBeVisible();
      await page.getByLabel("Name").fill("Notice pulse");
      await page.getByLabel("Admin: may answer").check();
      await page.getByRole("button", { name: "Create survey" }).click();
      await expectNoticeCoversNothing(page, "The survey was created.");

      await page.getByRole("link", { name: "Edit", exact: true }).click();
      await page.getByLabel("Name").fill("Notice pulse, weekly");
      await page.getByRole("button", { name: "Save changes" }).click();
      await expectNoticeCoversNothing(page, /^Your changes to the survey were saved\./);

      await page.getByRole("link", { name: "Preview" }).first().click();
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
      if ((await notice(page, /saved/).count()) > 0) expect(await coveredControls(page)).toEqual([]);
      await screenshot(page, `51-preview-${mode.width}-${mode.theme}`);
    });
  });
}
