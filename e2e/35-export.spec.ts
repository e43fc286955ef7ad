import type { Page } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { axeViolations, describeViolations, WCAG_21_AA } from "./axe";
import { expect, openSignedIn, screenshot, SCREENSHOTS, test } from "./fixtures";

/** The number the list's toolbar shows as its total ("1,234 users"). */
async function shownTotal(page: Page, noun: string): Promise<number> {
  const text = await page.getByTestId(`${noun}-total`).innerText();
  return Number(text.replace(/[^\d]/g, ""));
}

/** Chooses a format in the Export menu and answers the downloaded file's text and name. */
async function exportAs(page: Page, format: "CSV" | "NDJSON"): Promise<{ text: string; name: string }> {
  await page.getByRole("button", { name: "Export" }).click();
  const downloading = page.waitForEvent("download");
  await page.getByRole("button", { name: new RegExp(`^${format}`) }).click();
  const download = await downloading;
  return { text: await readFile((await download.path())!, "utf8"), name: download.suggestedFilename() };
}

/** A filtered view spanning several pages: every Member, active or not. */
async function openMembers(page: Page): Promise<number> {
  await openSignedIn(page, "/users?isActive=all&limit=10");
  await page.getByLabel("Access role").selectOption({ label: "Member" });
  await expect(page).toHaveURL(/accessRole=[0-9a-f]{24}/);
  await expect(page.getByTestId("users-total")).toHaveText(/\d+ users/);
  return shownTotal(page, "users");
}

test("Export: the users list's current view downloads as CSV with every matching row (not just the page), and as NDJSON", async ({
  page,
}) => {
  const total = await openMembers(page);
  expect(total).toBeGreaterThan(10);

  const csv = await exportAs(page, "CSV");
  expect(csv.name).toMatch(/^users-\d{4}-\d{2}-\d{2}\.csv$/);
  const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
  expect(rows).toHaveLength(total);
  for (const row of rows) expect(row.accessRoles.split(";")).toContain("Member");
  expect(new Set(rows.map((row) => row.email)).size).toBe(total);
  await expect(page.getByText(`Exported ${total.toLocaleString("en")} users to ${csv.name}.`)).toBeVisible();

  const ndjson = await exportAs(page, "NDJSON");
  expect(ndjson.name).toMatch(/^users-\d{4}-\d{2}-\d{2}\.ndjson$/);
  const records = ndjson.text
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { email: string });
  expect(records.map((record) => record.email)).toEqual(rows.map((row) => row.email));
});

test("Export: the menu opens on CSV, closes with Escape, passes axe, in both themes and widths; the surveys list exports its view", async ({
  page,
}) => {
  await openMembers(page);
  await page.getByRole("button", { name: "Export" }).click();
  await expect(page.getByRole("button", { name: /^CSV/ })).toBeFocused();
  expect(describeViolations(await axeViolations(page, { tags: WCAG_21_AA }))).toEqual([]);
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    for (const theme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: theme });
      await screenshot(page, `35-export-menu-${width}-${theme}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: /^CSV/ })).toHaveCount(0);

  await openSignedIn(page, "/surveys?isActive=all");
  await expect(page.getByTestId("surveys-total")).toHaveText(/\d+ surveys?/);
  const surveys = await shownTotal(page, "surveys");
  const file = await exportAs(page, "CSV");
  expect(file.name).toMatch(/^surveys-\d{4}-\d{2}-\d{2}\.csv$/);
  const surveyRows = parse(file.text, { columns: true }) as Record<string, string>[];
  expect(surveyRows).toHaveLength(surveys);
  expect(Object.keys(surveyRows[0])).toEqual(expect.arrayContaining(["_id", "code", "name", "isActive"]));
});

test("Export: progress shows rows against the total while the file streams, and Cancel stops it", async ({ page }) => {
  await openSignedIn(page, "/users?isActive=all");
  await expect(page.getByTestId("users-total")).toHaveText(/\d+ users/);
  // The answer is held back until the progress has been seen, so the test never races the server.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/v2/users/export?**", async (route) => {
    await held;
    // The page has cancelled by now: the request is gone, which is what this test wants.
    await route.continue().catch(() => undefined);
  });
  await page.getByRole("button", { name: "Export" }).click();
  await page.getByRole("button", { name: /^CSV/ }).click();
  const progress = page.getByRole("progressbar", { name: "Exporting users" });
  await expect(progress).toBeVisible();
  // Not the fixture's screenshot(): it waits for the network to rest, which the held answer never does.
  await page.screenshot({ path: path.join(SCREENSHOTS, "35-export-progress.png") });
  await page.getByRole("button", { name: "Cancel" }).click();
  release();
  await expect(page.getByText("Export cancelled.")).toBeVisible();
  await expect(progress).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Export" })).toBeVisible();
  await page.unrouteAll({ behavior: "ignoreErrors" });
});
