/**
 * The first click on a record shows it from what the page already holds: from a freshly loaded
 * list (users, surveys) with every `GET /v2` held back 300 ms, the record's page shows its name
 * while the record's own GET is still held; a survey just created shows from the create answer.
 * Behaviour only: how fast is bench:ui's to measure (docs/benchmarks.md#npm-run-benchui).
 */
import type { Page, Request, Route } from "@playwright/test";
import { expect, openSignedIn, test, unique } from "./fixtures";

const API_DELAY_MS = 300;

/**
 * Holds back every `GET /v2` by 300 ms, and the GETs of `held` (a path) until `release()`: what
 * the page shows before then it took from what it already had.
 */
async function slowApi(page: Page) {
  let heldPath: RegExp | undefined;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const heldRequests: Request[] = [];
  let heldAnswered = 0;
  await page.route(/\/v2\//, async (route: Route) => {
    const request = route.request();
    if (request.method() === "GET") {
      await new Promise((resolve) => setTimeout(resolve, API_DELAY_MS));
      if (heldPath?.test(new URL(request.url()).pathname)) {
        heldRequests.push(request);
        await released;
      }
    }
    await route.continue().catch(() => undefined);
  });
  page.on("requestfinished", (request) => {
    if (heldPath?.test(new URL(request.url()).pathname) && request.method() === "GET") heldAnswered++;
  });
  return {
    hold: (path: RegExp) => (heldPath = path),
    release: () => release(),
    answered: () => heldAnswered,
    asked: () => heldRequests.length,
  };
}

/** The `_rsc` requests of the page that are not prefetches: a navigation that waited for the server. */
function watchNavigationFetches(page: Page): string[] {
  const fetched: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.searchParams.has("_rsc") && !request.headers()["next-router-prefetch"]) fetched.push(url.pathname);
  });
  return fetched;
}

for (const list of [
  { name: "users", path: "/users", record: /^\/users\/[0-9a-f]{24}$/ },
  { name: "surveys", path: "/surveys", record: /^\/surveys\/[0-9a-f]{24}$/ },
] as const) {
  test(`47. a ${list.name.slice(0, -1)} opened from a fresh list shows its name before its own GET is answered, and its page was fetched ahead`, async ({
    page,
  }) => {
    await openSignedIn(page, list.path);
    const api = await slowApi(page);
    // A new page load: nothing of the record is in the router's or the queries' caches.
    await page.goto(list.path);
    const row = page.locator("tbody tr").first();
    const link = row.locator("td").first().getByRole("link");
    await expect(link).toBeVisible();
    const href = (await link.getAttribute("href")) ?? "";
    expect(href).toMatch(list.record);
    const name = (await link.innerText()).trim();
    // The record's GET (the hover's prefetch and the page's own read) is held from here on.
    api.hold(new RegExp(`^/v2${href}$`));
    // Let the list settle as a person would look at it: the row's page is prefetched meanwhile.
    await page.waitForLoadState("networkidle");
    const navigations = watchNavigationFetches(page);

    await row.locator("td").last().hover();
    await row.locator("td").last().click();
    await expect(page).toHaveURL(new RegExp(`${href}$`));
    await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
    expect(api.answered(), "the record's own GET is still held").toBe(0);
    // The page itself came from the prefetch: the click asked the server for no page of the record
    // (the record's own tabs, once on screen, fetch their pages ahead too: those are not the click's).
    expect(navigations.filter((path) => path === href)).toEqual([]);

    api.release();
    await expect.poll(() => api.answered()).toBeGreaterThan(0);
    await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  });
}

test("47. a survey just created shows from the create answer, before its GET is answered", async ({ page }) => {
  const code = `first_${unique()}`;
  await openSignedIn(page, "/surveys/new");
  const api = await slowApi(page);
  api.hold(/^\/v2\/surveys\/[0-9a-f]{24}$/);
  await page.getByLabel("Code").fill(code);
  await page.getByLabel("Name").fill(`First click ${code}`);
  await expect(page.getByText("✓ available")).toBeVisible();
  await page.getByRole("button", { name: "Create survey" }).click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}$/);
  await expect(page.getByRole("heading", { level: 1, name: `First click ${code}` })).toBeVisible();
  await expect(page.getByRole("main").getByText(code, { exact: true })).toBeVisible();
  expect(api.answered(), "the survey's GET is still held").toBe(0);
  api.release();
  await expect.poll(() => api.answered()).toBeGreaterThan(0);
});
