/**
 * The pages this part of the admin changed, pictured on a desktop in light and on a phone in dark
 * (e2e/screenshots/23-*.png), each checked for its theme and for no sideways scrolling; the
 * accessibility walk checks every page's own look in each theme and width.
 * The lists are checked too for a data table (or, on a phone, cards) that fits the page.
 */
import type { Page } from "@playwright/test";
import { expect, STATE_MODES as MODES, openSignedIn, screenshot, test, unique } from "./fixtures";

async function check(page: Page, name: string, dark: boolean, width: number): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.classList.contains("dark")), `${name}: theme`).toBe(dark);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect.soft(overflow, `${name}: no sideways scrolling`).toBeLessThanOrEqual(0);
  await screenshot(page, `23-${name}-${width}-${dark ? "dark" : "light"}`);
}

test.describe("screens", () => {
  test.use({ expectedConsoleErrors: [/status of (404|500)/] });

  test("toasts, the leave dialog, plain messages, the 404 and a failed record, light and dark, wide and narrow", async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await openSignedIn(page, "/users");
    const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
    const users = await (
      await page.request.get("/v2/users?limit=1", { headers: { Authorization: `Bearer ${token}`, Admin: "true" } })
    ).json();
    const user = users.data.users[0]._id as string;
    const record = (url: URL) => url.pathname === `/v2/users/${user}`;

    for (const [index, mode] of MODES.entries()) {
      const dark = mode.theme === "dark";
      await page.setViewportSize({ width: mode.width, height: mode.height });
      await page.emulateMedia({ colorScheme: mode.theme });

      await page.goto(`/users/${user}/edit`);
      // A new number each round, so that the form has something unsaved.
      await page.getByLabel("Phone").fill(`+34 600 123 45${index}`);
      await page.getByRole("link", { name: "Cancel" }).click();
      await expect(page.getByRole("alertdialog")).toBeVisible();
      await check(page, "leave-dialog", dark, mode.width);
      await page.getByRole("button", { name: "Cancel" }).click();
      await page.getByRole("button", { name: "Save changes" }).click();
      await expect(page).toHaveURL(new RegExp(`/users/${user}$`));
      await expect(page.getByRole("heading", { level: 1 })).toBeFocused();
      await expect(page.locator("[data-toast]").first()).toBeVisible();
      await check(page, "user-saved-toast", dark, mode.width);

      await page.goto(`/users/new`);
      await page.getByRole("button", { name: "Create user" }).click();
      await expect(page.locator("#user-email-error")).toBeVisible();
      await check(page, "user-form-errors", dark, mode.width);

      // The record's own read fails: its error state.
      await page.route(record, (route) =>
        route.fulfill({
          status: 500,
          contentType: "application/json",
          body: '{"error":{"status":500,"code":"internal","message":"The server failed.","requestId":"req-1"}}',
        }),
      );
      await page.goto(`/users/${user}`);
      await expect(page.getByRole("button", { name: "Retry" })).toBeVisible();
      await check(page, "record-error", dark, mode.width);
      await page.unroute(record);

      await page.goto("/no-such-page");
      await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
      await check(page, "404", dark, mode.width);
    }

    await page.context().clearCookies();
    for (const mode of MODES) {
      await page.setViewportSize({ width: mode.width, height: mode.height });
      await page.emulateMedia({ colorScheme: mode.theme });
      await page.goto("/sign-in");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.locator("#sign-in-email-error")).toBeVisible();
      await check(page, "sign-in-errors", mode.theme === "dark", mode.width);
    }
  });
});

test("the lists, and a user opened from its list, light and dark, wide and narrow", async ({ page }) => {
  test.setTimeout(180_000);
  await openSignedIn(page, "/users");
  // An invitation kept in the outbox, so that its list has a row to show.
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  const headers = { Authorization: `Bearer ${token}`, Admin: "true" };
  const roles = (await (await page.request.get("/v2/access-roles", { headers })).json()).data.accessRoles as {
    _id: string;
    isAdmin: boolean;
  }[];
  const invited = await page.request.post("/v2/users?notifyEmail=true", {
    headers,
    data: { email: `screens.${unique()}@example.com`, accessRoles: [roles.find((role) => !role.isAdmin)!._id] },
  });
  expect(invited.status()).toBe(201);

  for (const mode of MODES) {
    const dark = mode.theme === "dark";
    const phone = mode.width < 640;
    await page.setViewportSize({ width: mode.width, height: mode.height });
    await page.emulateMedia({ colorScheme: mode.theme });
    const rows = page.locator(phone ? '[data-testid="data-card"]' : "tbody tr");

    for (const [name, path] of [
      ["users", "/users"],
      ["surveys", "/surveys"],
      ["outbox", "/outbox"],
    ] as const) {
      await page.goto(path);
      await expect(rows.first()).toBeVisible();
      await expect(page.getByText("Counting…")).toHaveCount(0);
      if (!phone) await expectTableFits(page, name);
      await check(page, name, dark, mode.width);
    }

    await page.goto("/users");
    const row = rows.nth(1);
    const href = await row.getByRole("link").first().getAttribute("href");
    const email = (
      await row
        .getByText(/^\S+@\S+$/)
        .last()
        .innerText()
    ).trim();
    await row.click();
    await page.waitForURL(`**${href}`);
    await expect(page.locator("main").getByText(email, { exact: true }).first()).toBeVisible();
    await check(page, "user-from-list", dark, mode.width);
  }
});

/** The table's header cells and each row's cells line up, and the table stays inside its card. */
async function expectTableFits(page: Page, name: string): Promise<void> {
  const layout = await page.locator("table").evaluate((table) => {
    const card = table.closest("section")!.getBoundingClientRect();
    const box = table.getBoundingClientRect();
    const lefts = (row: Element) => [...row.children].map((cell) => Math.round(cell.getBoundingClientRect().left));
    const head = lefts(table.querySelector("thead tr")!);
    return {
      inside: box.right <= card.right + 1 && box.left >= card.left - 1,
      aligned: [...table.querySelectorAll("tbody tr")].every((row) => lefts(row).join() === head.join()),
    };
  });
  expect
    .soft(layout, `${name}: the table fits its card and its columns line up`)
    .toEqual({ inside: true, aligned: true });
}
