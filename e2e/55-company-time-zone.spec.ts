/**
 * The company's time zone, set on Company settings (docs/api.md#days): an admin finds a zone by
 * typing part of its name, saves it, and the pages with a date filter say "Days are in" that zone,
 * and Results prints the chosen days as those days; Undo in the notice puts the zone back. At
 * 1440 px in light and 390 px in dark, with axe on the page.
 */
import type { Page } from "@playwright/test";
import { expectNoViolation } from "./axe";
import { expect, openSignedIn, screenshot, STATE_MODES, TAKING_SCREENSHOTS, test } from "./fixtures";

const notice = (page: Page, text: string | RegExp) =>
  page.getByRole("status", { name: "Notifications" }).locator("[data-toast]").filter({ hasText: text });

const axeClean = (page: Page, label: string): Promise<void> => expectNoViolation(page, { include: "#main" }, label);

/** The company's zone back to UTC through the API, whatever the test left: the other specs read days in UTC. */
async function resetZone(page: Page): Promise<void> {
  const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
  const reset = await page.request.patch("/v2/company", {
    headers: { Authorization: `Bearer ${token}`, Admin: "true" },
    data: { timeZone: "UTC" },
  });
  expect(reset.status()).toBe(200);
}

async function chooseZone(page: Page, search: string, zone: string): Promise<void> {
  await page.getByLabel("Find a time zone").fill(search);
  await page.getByRole("listbox", { name: "Time zone" }).selectOption(zone);
  await page.getByRole("button", { name: "Save time zone" }).click();
}

for (const mode of STATE_MODES) {
  test.describe(`at ${mode.width} px, ${mode.theme}`, () => {
    test.use({ viewport: { width: mode.width, height: mode.height }, colorScheme: mode.theme });
    test.afterEach(async ({ page }) => resetZone(page));

    test("an admin sets the zone, the date filters say it, Results prints its days, and Undo puts it back", async ({
      page,
    }) => {
      await openSignedIn(page, "/settings");
      const current = page.getByText(/^Current time zone$/).locator("..");
      await expect(current).toContainText("UTC (UTC+00:00)");
      await page.getByLabel("Find a time zone").fill("europe");
      await page.getByRole("listbox", { name: "Time zone" }).selectOption("Europe/Paris");
      await expect(page.getByText("Chosen: Europe/Paris")).toBeVisible();
      await axeClean(page, "the settings page");
      await screenshot(page, `55-settings-${mode.width}-${mode.theme}`);
      if (TAKING_SCREENSHOTS) {
        const other = mode.theme === "dark" ? "light" : "dark";
        await page.emulateMedia({ colorScheme: other });
        await screenshot(page, `55-settings-${mode.width}-${other}`);
        await page.emulateMedia({ colorScheme: mode.theme });
      }

      // Typing part of a name narrows the list; each zone shows its offset now.
      await page.getByLabel("Find a time zone").fill("auckland");
      await expect(page.getByRole("listbox", { name: "Time zone" }).getByRole("option")).toHaveText([
        /^Pacific\/Auckland \(UTC\+1[23]:00\)$/,
      ]);
      await chooseZone(page, "auckland", "Pacific/Auckland");
      await expect(notice(page, "The company’s time zone is now Pacific/Auckland")).toBeVisible();
      await expect(current).toContainText("Pacific/Auckland");
      await axeClean(page, "the settings page with its notice");

      // Undo, from the notice: back to UTC at once.
      await notice(page, "now Pacific/Auckland").getByRole("button", { name: "Undo" }).click();
      await expect(notice(page, "The company’s time zone is back to UTC.")).toBeVisible();
      await expect(current).toContainText("UTC (UTC+00:00)");

      // Saved again, it holds on the pages that filter by day, reached from the menu.
      await chooseZone(page, "los ang", "America/Los_Angeles");
      await expect(notice(page, "now America/Los_Angeles")).toBeVisible();
      if (mode.width < 1024) await page.getByRole("button", { name: "Menu" }).click();
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Users" }).click();
      // On a phone the filters fold behind one button.
      if (mode.width < 1024) await page.getByRole("button", { name: "Filters", exact: true }).click();
      await page.getByRole("button", { name: "More filters" }).click();
      await expect(page.getByTestId("day-zone")).toHaveText("Days are in America/Los_Angeles.");

      // Results of one day: the period prints that day, not the UTC day its bounds fall on.
      const token = (await (await page.request.post("/api/auth/token")).json()).accessToken as string;
      const surveys = await page.request.get("/v2/surveys?limit=1", {
        headers: { Authorization: `Bearer ${token}`, Admin: "true" },
      });
      const id = (await surveys.json()).data.surveys[0]._id as string;
      await page.goto(`/surveys/${id}/results?from=2026-11-01&to=2026-11-01`);
      await expect(page.getByTestId("day-zone")).toHaveText("Days are in America/Los_Angeles.");
      await expect(page.getByText("Period", { exact: true }).locator("..")).toContainText("1 Nov 2026 – 1 Nov 2026");
      await screenshot(page, `55-results-zone-${mode.width}-${mode.theme}`);
    });
  });
}
