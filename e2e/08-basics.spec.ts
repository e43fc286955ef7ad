import type { Page } from "@playwright/test";
import { adminPages, expect, openSignedIn, screenshot, test } from "./fixtures";

/** Every visible form control has an accessible name from a label (or aria-label/-labelledby). */
async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("input, select, textarea")]
      .filter((el) => (el as HTMLInputElement).type !== "hidden" && el.getClientRects().length > 0)
      .filter((el) => {
        const labelled = ((el as HTMLInputElement).labels?.length ?? 0) > 0;
        const aria = el.getAttribute("aria-label")?.trim() || el.getAttribute("aria-labelledby");
        return !labelled && !aria;
      })
      .map((el) => el.outerHTML.slice(0, 120)),
  );
}

async function checkBasics(page: Page, path: string) {
  await test.step(path, async () => {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
    await page.waitForLoadState("networkidle");
    // Late content (lists, forms) is in by now; check the settled page.
    await expect(page.getByRole("heading", { level: 1 }), `${path}: one h1`).toHaveCount(1);
    await expect(page, `${path}: a title`).toHaveTitle(/\S+ · Users & Surveys|Users & Surveys/);
    expect(await unlabelledControls(page), `${path}: every form control has a label`).toEqual([]);
  });
}

test("basics: every page has a title, one h1, and labels on all its form controls", async ({ page }) => {
  // Every admin page waits for its network to settle: about twenty pages on a busy machine.
  test.setTimeout(180_000);
  await checkBasics(page, "/sign-in");
  await checkBasics(page, "/invitation/not-a-real-token");
  await openSignedIn(page, "/users");

  await page.getByRole("button", { name: "More filters" }).click();
  expect(await unlabelledControls(page), "/users with all filters: every form control has a label").toEqual([]);
  const userHref = await page.locator("tbody a").first().getAttribute("href");

  await page.goto("/surveys?isActive=all");
  await expect(page.locator("tbody a").first()).toBeVisible();
  await screenshot(page, "8-surveys");
  const surveyHref = await page.locator("tbody a").last().getAttribute("href");
  await page.goto(surveyHref!);
  await expect(page.getByRole("heading", { name: "Chats and questions" })).toBeVisible();
  await screenshot(page, "8-survey-detail");

  for (const path of adminPages(userHref!, surveyHref!)) {
    await checkBasics(page, path);
  }
});

test("first-load JavaScript of the users page stays under 250 kB", async ({ page }) => {
  await openSignedIn(page, "/surveys");
  // A fresh document load of /users with nothing cached, as on a first visit.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await page.goto("/users");
  await expect(page.getByTestId("users-total")).toBeVisible();
  const sizes = await page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry as PerformanceResourceTiming)
      .filter((entry) => entry.initiatorType === "script" || entry.name.endsWith(".js"))
      .map((entry) => ({ url: entry.name, encoded: entry.encodedBodySize, decoded: entry.decodedBodySize })),
  );
  const encoded = sizes.reduce((sum, entry) => sum + entry.encoded, 0);
  const decoded = sizes.reduce((sum, entry) => sum + entry.decoded, 0);
  console.log(`users page first-load JS: ${(encoded / 1024).toFixed(1)} kB transferred (compressed), ${(decoded / 1024).toFixed(1)} kB uncompressed, ${sizes.length} files`);
  test.info().annotations.push({ type: "first-load-js", description: `${(encoded / 1024).toFixed(1)} kB compressed, ${(decoded / 1024).toFixed(1)} kB raw` });
  expect(encoded).toBeGreaterThan(0);
  expect(encoded).toBeLessThan(250 * 1024);
});
