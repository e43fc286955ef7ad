/**
 * The pictures the README shows: the users list, a user, a survey's history and the command
 * palette, light and dark, at 1440 px. They go to e2e/screenshots/ like every other picture;
 * `DOCS_SCREENSHOTS=1` writes them to docs/screenshots/ instead, to refresh the committed ones.
 */
import type { Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { SCREENSHOTS, expect, openPalette, openSignedIn, test, unique } from "./fixtures";

const DIRECTORY =
  process.env.DOCS_SCREENSHOTS === "1" ? path.join(__dirname, "..", "docs", "screenshots") : SCREENSHOTS;

/** The viewport as a person sees it, once nothing is loading. */
async function picture(page: Page, name: string): Promise<void> {
  await page.waitForLoadState("networkidle").catch(() => undefined);
  await expect(page.getByText(/^(Loading|Counting|Searching)\b.*…$/)).toHaveCount(0);
  mkdirSync(DIRECTORY, { recursive: true });
  await page.screenshot({ path: path.join(DIRECTORY, `${name}.png`) });
}

test("the README's pictures: users, a user, a survey's history and the palette, light and dark", async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openSignedIn(page, "/users");
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  const headers = { Authorization: `Bearer ${token}`, Admin: "true" };

  // A user with reporting lines, so that the record shows them.
  const users = (await (await page.request.get("/v2/users?limit=50", { headers })).json()).data.users as {
    _id: string;
    email: string;
    companies: { hierarchy: Record<string, string[]> }[];
  }[];
  const user = users.find((record) => Object.values(record.companies[0].hierarchy).some((ids) => ids.length > 0))!;

  // A survey with a history: created, renamed, then made a sub-survey only.
  const created = await page.request.post("/v2/surveys", {
    headers,
    data: { code: `pulse_${unique()}`, name: "Onboarding pulse", version: 2 },
  });
  expect(created.status()).toBe(201);
  const survey = (await created.json())._id as string;
  for (const change of [{ name: "Onboarding pulse, weekly" }, { onlySubSurvey: true }]) {
    expect((await page.request.patch(`/v2/surveys/${survey}`, { headers, data: change })).status()).toBe(200);
  }

  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });

    await page.goto("/users");
    await expect(page.locator("tbody tr").first()).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(theme === "dark");
    await picture(page, `users-list-${theme}`);

    await page.goto(`/users/${user._id}`);
    await expect(page.locator("main").getByText(user.email, { exact: true }).first()).toBeVisible();
    await picture(page, `user-${theme}`);

    await page.goto(`/surveys/${survey}/history?left=0&right=2`);
    await expect(page.getByRole("heading", { name: "Revision #0 ↔ #2" })).toBeVisible();
    await expect(page.getByTestId("revision-diff")).toContainText("Onboarding pulse, weekly");
    await picture(page, `survey-history-${theme}`);

    await page.goto("/users");
    await openPalette(page);
    await page.getByRole("dialog").getByRole("combobox").pressSequentially("ana");
    await expect(page.getByRole("dialog").getByRole("option").first()).toHaveAttribute("aria-selected", "true");
    await picture(page, `command-palette-${theme}`);
  }
});
