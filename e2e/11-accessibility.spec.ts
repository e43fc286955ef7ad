/**
 * The walk of every page: each passes axe-core's WCAG 2.0/2.1 A and AA rules with no violation of
 * any impact, on a desktop in both themes and on a phone in dark mode (the system's
 * setting, followed by the app's own theme script; the header's switch is tested in
 * 29-themes-and-errors); and, as loaded, has a title, one h1, a label on every form control and
 * a Content-Security-Policy it does not break. The pages come from app/ itself: a new
 * page/page.tsx fails the first test until it has an entry in PAGES, so none can be forgotten.
 */
import { THEME_SCRIPT } from "@/lib/client/theme";
import type { APIRequestContext, Page } from "@playwright/test";
import { readdirSync } from "node:fs";
import path from "node:path";
import { axeViolations, describeViolations, WCAG_21_AA } from "./axe";
import { expect, openSignedIn, test, unique } from "./fixtures";
import { unlabelledControls, watchPolicy } from "./page-checks";

const APP = path.join(__dirname, "..", "app");

/** The route of every app/**\/page.* (route groups such as `(admin)` add no segment). */
function appRoutes(): string[] {
  return readdirSync(APP, { recursive: true, encoding: "utf8" })
    .filter((file) => /^page\.(tsx|ts|jsx|js|mdx)$/.test(path.basename(file)))
    .map((file) => path.dirname(file).split(path.sep))
    .filter((segments) => !segments.some((segment) => segment.startsWith("_")))
    .map((segments) => `/${segments.filter((segment) => segment !== "." && !/^\(.+\)$/.test(segment)).join("/")}`)
    .sort();
}

/** Records of the seeded company a page's URL needs. */
interface Ids {
  /** A user with reporting lines, and one without (a new invitee). */
  user: string;
  newUser: string;
  survey: string;
  surveyV1: string;
  invitation: string;
  /** A record of each kind of reference data, by its page's path. */
  reference: Record<string, string>;
  /** A webhook with one delivery in its log. */
  webhook: string;
}

interface Entry {
  /** Admin pages need a session; the others are checked signed out. */
  signedIn: boolean;
  urls: (ids: Ids) => string[];
  /** Brings the page to a state worth checking too (a menu opened, errors shown). */
  also?: { name: string; act: (page: Page) => Promise<void> }[];
}

/** The pages of reference data, one list, form and record page per kind. */
const REFERENCE_PAGES = ["/access-roles", "/job-titles", "/properties", "/bots"];

const PAGES: Record<string, Entry> = {
  "/": { signedIn: false, urls: () => ["/"] },
  "/sign-in": { signedIn: false, urls: () => ["/sign-in", "/sign-in?next=%2Fsurveys"] },
  "/invitation/[token]": {
    signedIn: false,
    urls: (ids) => [`/invitation/${ids.invitation}`, "/invitation/not-a-real-token"],
  },
  "/docs": { signedIn: false, urls: () => ["/docs"] },
  // What the server entry shows, as a 400, for a page address it cannot read (e2e/45-hostile-edge.spec.ts).
  "/bad-request": { signedIn: false, urls: () => ["/bad-request"] },
  "/users": {
    signedIn: true,
    urls: () => ["/users"],
    also: [
      {
        name: "with every filter shown",
        act: async (page) => {
          // On a phone the filters fold behind one "Filters" button.
          const fold = page.getByRole("button", { name: /^Filters/ });
          if (await fold.isVisible()) await fold.click();
          await page.getByRole("button", { name: "More filters" }).click();
        },
      },
    ],
  },
  "/users/new": {
    signedIn: true,
    urls: () => ["/users/new"],
    also: [
      {
        name: "with the errors of an empty form",
        act: (page) => page.getByRole("button", { name: "Create user" }).click(),
      },
    ],
  },
  "/users/import": {
    signedIn: true,
    urls: () => ["/users/import"],
    also: [
      {
        name: "with a checked file's summary and its bad row",
        act: async (page) => {
          const csv = "email,firstName,accessRoles\nnot-an-e-mail,Bad,Member\n";
          await page
            .getByLabel("Choose a file")
            .setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
          await page.getByRole("button", { name: "Check the file" }).click();
          await page.getByRole("heading", { name: "1 row has problems" }).waitFor();
        },
      },
    ],
  },
  "/users/[id]": { signedIn: true, urls: (ids) => [`/users/${ids.user}`, `/users/${ids.newUser}`] },
  "/users/[id]/edit": { signedIn: true, urls: (ids) => [`/users/${ids.user}/edit`] },
  "/surveys": { signedIn: true, urls: () => ["/surveys", "/surveys?isActive=all"] },
  "/surveys/new": {
    signedIn: true,
    urls: () => ["/surveys/new"],
    also: [{ name: "with a refused code", act: (page) => page.getByLabel("Code").pressSequentially("Bad Code") }],
  },
  "/surveys/[id]": { signedIn: true, urls: (ids) => [`/surveys/${ids.survey}`, `/surveys/${ids.surveyV1}`] },
  "/surveys/[id]/edit": {
    signedIn: true,
    urls: (ids) => [`/surveys/${ids.survey}/edit`, `/surveys/${ids.surveyV1}/edit`],
  },
  "/surveys/[id]/history": { signedIn: true, urls: (ids) => [`/surveys/${ids.survey}/history`] },
  "/surveys/[id]/upgrade": { signedIn: true, urls: (ids) => [`/surveys/${ids.surveyV1}/upgrade`] },
  "/surveys/[id]/questions": {
    signedIn: true,
    urls: (ids) => [`/surveys/${ids.survey}/questions`],
    also: [
      {
        name: "with a new chat's empty name refused",
        act: async (page) => {
          await page.getByRole("button", { name: "Add a chat" }).click();
          await page.getByRole("button", { name: "Save questions" }).click();
        },
      },
    ],
  },
  "/surveys/[id]/preview": { signedIn: true, urls: (ids) => [`/surveys/${ids.survey}/preview`] },
  "/surveys/[id]/results": {
    signedIn: true,
    urls: (ids) => [`/surveys/${ids.survey}/results`, `/surveys/${ids.survey}/results?from=2020-01-01&to=2020-01-31`],
    also: [
      {
        // The range of 2020 holds no answer, so no chart: its tables are checked on the first address.
        name: "with a chart shown as a table",
        act: async (page) => {
          const toggles = page.getByText("Show as a table");
          if ((await toggles.count()) > 0) await toggles.first().click();
        },
      },
    ],
  },
  "/surveys/[id]/answers": { signedIn: true, urls: (ids) => [`/surveys/${ids.survey}/answers`] },
  "/surveys/[id]/activity": { signedIn: true, urls: (ids) => [`/surveys/${ids.survey}/activity`] },
  "/users/[id]/history": {
    signedIn: true,
    urls: (ids) => [`/users/${ids.user}/history`, `/users/${ids.newUser}/history`],
  },
  "/activity": {
    signedIn: true,
    urls: () => ["/activity"],
    also: [
      {
        name: "with an entry's details open",
        act: (page) =>
          page
            .getByRole("link", { name: /\d{2}:\d{2}:\d{2}/ })
            .filter({ visible: true })
            .first()
            .click(),
      },
      { name: "with filters that match nothing", act: (page) => page.getByLabel("From").fill("2999-01-01") },
    ],
  },
  "/outbox": { signedIn: true, urls: () => ["/outbox"] },
  "/settings": { signedIn: true, urls: () => ["/settings"] },
  ...Object.fromEntries(
    REFERENCE_PAGES.flatMap((base): [string, Entry][] => [
      [base, { signedIn: true, urls: () => [base, `${base}?search=zz-nothing`] }],
      [
        `${base}/new`,
        {
          signedIn: true,
          urls: () => [`${base}/new`],
          also: [
            {
              name: "with the errors of an empty form",
              act: (page) => page.getByRole("button", { name: /^Create / }).click(),
            },
          ],
        },
      ],
      [`${base}/[id]`, { signedIn: true, urls: (ids) => [`${base}/${ids.reference[base]}`] }],
    ]),
  ),
  "/api-keys": {
    signedIn: true,
    urls: () => ["/api-keys"],
    also: [
      { name: "with the form's errors shown", act: (page) => page.getByRole("button", { name: "Create key" }).click() },
      {
        name: "with a new key shown once",
        act: async (page) => {
          await page.getByLabel("Name").fill(`Accessibility ${unique()}`);
          await page.getByLabel(/^users:read/).check();
          await page.getByRole("button", { name: "Create key" }).click();
          await page.getByLabel("API key", { exact: true }).waitFor();
        },
      },
    ],
  },
  "/webhooks": { signedIn: true, urls: () => ["/webhooks"] },
  "/webhooks/receiver": { signedIn: true, urls: () => ["/webhooks/receiver"] },
  "/webhooks/new": {
    signedIn: true,
    urls: () => ["/webhooks/new"],
    also: [
      {
        name: "with the errors of an empty form",
        act: (page) => page.getByRole("button", { name: "Create webhook" }).click(),
      },
    ],
  },
  "/webhooks/[id]": {
    signedIn: true,
    urls: (ids) => [`/webhooks/${ids.webhook}`],
    also: [
      {
        name: "with a delivery's details open",
        act: (page) =>
          page
            .getByRole("link", { name: /\d{2}:\d{2}:\d{2}/ })
            .filter({ visible: true })
            .first()
            .click(),
      },
      {
        name: "with the disable confirmation open",
        act: (page) => page.getByRole("button", { name: "Disable", exact: true }).click(),
      },
    ],
  },
};

test("every page under app/ is in the accessibility check", () => {
  const routes = appRoutes();
  expect(routes.length).toBeGreaterThan(10);
  expect(
    routes,
    "each app/**/page.tsx has an entry in PAGES of e2e/11-accessibility.spec.ts (and each entry a page)",
  ).toEqual(Object.keys(PAGES).sort());
});

test("the check finds a violation when a page has one, in the whole page or in the part it is given", async ({
  page,
}) => {
  await openSignedIn(page, "/users");
  // A button with no name.
  await page.evaluate(() => document.querySelector("main")?.append(document.createElement("button")));
  const rules = async (scope: Parameters<typeof axeViolations>[1]) =>
    (await axeViolations(page, scope)).map((violation) => violation.id);
  expect(await rules({ tags: WCAG_21_AA })).toContain("button-name");
  expect(await rules({ rules: ["button-name"], include: "main" })).toEqual(["button-name"]);
  expect(await rules({ rules: ["button-name"], include: "header" })).toEqual([]);
});

/** A bearer token from the browser's session cookie, for reading ids through the API. */
async function bearer(request: APIRequestContext): Promise<Record<string, string>> {
  const response = await request.post("/api/auth/token");
  expect(response.status()).toBe(200);
  return { Authorization: `Bearer ${(await response.json()).accessToken}`, Admin: "true" };
}

async function readIds(page: Page): Promise<Ids> {
  const headers = await bearer(page.request);
  const get = async (url: string) => {
    const response = await page.request.get(url, { headers });
    expect(response.status(), url).toBe(200);
    return (await response.json()).data;
  };
  const users = (await get("/v2/users?limit=100&isActive=all")).users as {
    _id: string;
    companies: { hierarchy: Record<string, string[]> }[];
  }[];
  const user = users.find((record) => Object.values(record.companies[0].hierarchy).some((ids) => ids.length > 0))!._id;
  const surveys = (await get("/v2/surveys?limit=100&isActive=all")).surveys as { _id: string; version: number }[];
  const survey = surveys.find((record) => record.version === 2)!._id;
  const surveyV1 = surveys.find((record) => record.version === 1)!._id;

  // A real invitation: a new user invited by e-mail, whose link waits in the outbox.
  const email = `a11y.${unique()}@example.com`;
  const roles = (await get("/v2/access-roles")).accessRoles as { _id: string; isAdmin: boolean }[];
  const created = await page.request.post("/v2/users?notifyEmail=true", {
    headers,
    data: { email, accessRoles: [roles.find((role) => !role.isAdmin)!._id] },
  });
  expect(created.status()).toBe(201);
  const newUser = (await created.json())._id as string;
  const mail = (await get(`/v2/outbox?to=${encodeURIComponent(email)}`)).mails[0] as { text: string };
  const invitation = /\/invitation\/([\w-]+)/.exec(mail.text)![1];
  const reference: Record<string, string> = {};
  for (const base of REFERENCE_PAGES) {
    const records = Object.values(await get(`/v2${base}`)).find(Array.isArray) as { _id: string }[];
    reference[base] = records[0]._id;
  }
  // A webhook to a port where nothing listens (e2e/serve.ts allows 127.0.0.1), for an event no
  // other spec raises, with the failed attempt of a test delivery in its log.
  const webhook = await page.request.post("/v2/webhooks", {
    headers,
    data: { url: "http://127.0.0.1:9/a11y", events: ["webhook.deleted"], description: "Accessibility check" },
  });
  expect(webhook.status()).toBe(201);
  const webhookId = (await webhook.json())._id as string;
  expect((await page.request.post(`/v2/webhooks/${webhookId}/test`, { headers })).status()).toBe(200);
  return { user, newUser, survey, surveyV1, invitation, reference, webhook: webhookId };
}

/** Waits until the page has loaded what it shows (no spinner, no request in flight). */
async function settle(page: Page): Promise<void> {
  await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
  await page.waitForLoadState("networkidle");
  await expect(page.getByText(/^(Loading|Taking you)\b.*…$/)).toHaveCount(0);
}

/** The WCAG rules whose outcome a theme can change: the rest read the same document. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

interface Mode {
  label: string;
  /** The layout was checked whole in another theme: only the colours are new. */
  coloursOnly?: boolean;
  /** A phone's width: the page must not scroll sideways either. */
  phone: boolean;
  /** The theme the page must show (the `dark` class on <html>). */
  dark: boolean;
}

async function expectAccessible(page: Page, mode: Mode, label: string): Promise<void> {
  await settle(page);
  expect
    .soft(
      await page.evaluate(() => document.documentElement.classList.contains("dark")),
      `${mode.label} ${label}: the ${mode.dark ? "dark" : "light"} theme`,
    )
    .toBe(mode.dark);
  // Only violations are read, so axe details nothing else; a theme's second look at a page already
  // checked in the same layout needs only the rules of colour.
  const found = describeViolations(
    await axeViolations(page, mode.coloursOnly ? { rules: COLOUR_RULES } : { tags: WCAG_21_AA }),
  );
  expect.soft(found, `${mode.label} ${label}: no WCAG 2.1 A/AA violation`).toEqual([]);
  if (mode.phone) {
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect.soft(overflow, `${mode.label} ${label}: no sideways scrolling`).toBeLessThanOrEqual(0);
  }
}

/** The three ways each page is checked: wide and light, wide and dark, a phone in dark mode. */
const MODES: Mode[] = [
  { label: "desktop", phone: false, dark: false },
  { label: "desktop, dark", phone: false, dark: true, coloursOnly: true },
  { label: "390 px, dark", phone: true, dark: true },
];

/**
 * Puts the open page in a mode without loading it again: the width, the system's colour scheme,
 * and the app's own theme script (the one its layout runs before the first paint) to follow it.
 */
async function enter(page: Page, mode: Mode): Promise<void> {
  await page.setViewportSize(mode.phone ? { width: 390, height: 844 } : { width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: mode.dark ? "dark" : "light" });
  await page.evaluate(THEME_SCRIPT);
}

/** The page as it is now, in every mode. */
async function expectAccessibleInEveryMode(page: Page, label: string): Promise<void> {
  for (const mode of MODES) {
    await enter(page, mode);
    await expectAccessible(page, mode, label);
  }
}

/** One page's address and the further states of it to check. */
interface Visit {
  route: string;
  url: string;
  entry: Entry;
}

/** Loads a page once and checks it, and each further state of it, in every mode. */
async function checkVisit(page: Page, { route, url, entry }: Visit): Promise<void> {
  await test.step(`${route}: ${url}`, async () => {
    await enter(page, MODES[0]);
    const response = await page.goto(url);
    expect.soft(response?.headers()["content-security-policy"], `${url}: a policy`).toContain("frame-ancestors 'none'");
    await settle(page);
    await expect.soft(page.getByRole("heading", { level: 1 }), `${url}: one h1`).toHaveCount(1);
    await expect.soft(page, `${url}: a title`).toHaveTitle(/\S+ · Users & Surveys|Users & Surveys/);
    expect.soft(await unlabelledControls(page), `${url}: every form control has a label`).toEqual([]);
    await expectAccessibleInEveryMode(page, url);
    for (const state of entry.also ?? []) {
      await enter(page, MODES[0]);
      await state.act(page);
      await expectAccessibleInEveryMode(page, `${url} ${state.name}`);
    }
  });
}

/**
 * Two tabs of one browser take the visits in turn from one queue: axe's work is the browser's,
 * one core per tab, so on a two-core machine two tabs halve the walk (docs/testing.md).
 */
async function checkInTwoTabs(first: Page, second: Page, visits: Visit[]): Promise<void> {
  const queue = [...visits];
  const lane = async (page: Page) => {
    for (let visit = queue.shift(); visit; visit = queue.shift()) await checkVisit(page, visit);
  };
  await Promise.all([lane(first), lane(second)]);
}

/**
 * The admin pages signed in, then (the session ended) the public pages; each page is loaded once
 * and checked in every mode, and so is each further state of it.
 */
async function checkEveryPage(page: Page): Promise<void> {
  const second = await page.context().newPage();
  // The fixture watches the first tab's console; the second tab's errors are gathered here.
  const secondErrors: string[] = [];
  second.on("console", (message) => {
    if (message.type() === "error") secondErrors.push(`console: ${message.text()} (${message.location().url})`);
  });
  second.on("pageerror", (error) => secondErrors.push(`page error: ${error.message}`));
  const problems = [await watchPolicy(page), await watchPolicy(second)];
  await openSignedIn(page, "/users");
  const ids = await readIds(page);
  for (const signedIn of [true, false]) {
    if (!signedIn) await page.context().clearCookies();
    const visits = Object.entries(PAGES)
      .filter(([, entry]) => entry.signedIn === signedIn)
      .flatMap(([route, entry]) => entry.urls(ids).map((url) => ({ route, url, entry })));
    await checkInTwoTabs(page, second, visits);
  }
  await second.close();
  expect(secondErrors, "the second tab's console shows no error").toEqual([]);
  expect(problems.flat(), "no Content-Security-Policy violation").toEqual([]);
}

// One walk of every page (five of them a survey's tabs) in three modes on a two-core machine: minutes, not seconds.
test("every page, light and dark, wide and on a phone, has no accessibility violation (WCAG 2.1 A and AA), and none scrolls sideways on a phone", async ({
  page,
}) => {
  test.setTimeout(900_000);
  await checkEveryPage(page);
});
