/**
 * On a phone (390 × 844): the menu is one button (a disclosure, keyboard operable, Escape closes
 * it and the focus returns), so the first record of the users and surveys lists is on the first
 * screen; a record's tab strip scrolls sideways with a fade and an arrow on the side that has
 * more; headings and e-mails never break inside a word. At 1440 the menu stays a sidebar. Light
 * and dark, axe clean.
 */
import type { Locator } from "@playwright/test";
import { expectNoSeriousViolation as axeClean } from "./axe";
import { expect, openSignedIn, screenshot, test, unique } from "./fixtures";

const PHONE = { width: 390, height: 844 };
const WIDE = { width: 1440, height: 900 };
const THEMES = ["light", "dark"] as const;

/**
 * Where the text of `locator` wraps from one line to the next inside a word: each pair of
 * characters on either side of a line break that is neither a space nor a separator of an address
 * (a break after `@` or `-`, or before `.`, `-`, `_`, `+`). Also how many lines it takes.
 */
async function lineBreaks(locator: Locator): Promise<{ lines: number; insideWords: string[] }> {
  return locator.evaluate((element) => {
    const chars: { c: string; top: number; node: number }[] = [];
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    let index = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode(), index++) {
      const text = node.textContent ?? "";
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect && rect.width > 0) chars.push({ c: text[i], top: rect.top, node: index });
      }
    }
    let lines = chars.length > 0 ? 1 : 0;
    const insideWords: string[] = [];
    for (let i = 1; i < chars.length; i++) {
      if (chars[i].top <= chars[i - 1].top + 2) continue;
      lines++;
      const before = chars[i - 1].c;
      const after = chars[i].c;
      // A break between two elements (the name and its status badge) is between words too.
      const allowed =
        chars[i].node !== chars[i - 1].node ||
        /\s/.test(before) ||
        /\s/.test(after) ||
        before === "@" ||
        before === "-" ||
        /[.\-_+]/.test(after);
      if (!allowed)
        insideWords.push(
          `${chars
            .slice(Math.max(0, i - 6), i)
            .map((c) => c.c)
            .join("")}|${chars
            .slice(i, i + 6)
            .map((c) => c.c)
            .join("")}`,
        );
    }
    return { lines, insideWords };
  });
}

for (const theme of THEMES) {
  test(`48. at 390 px (${theme}) the menu is one button and the first record of each list is on the first screen`, async ({
    page,
  }) => {
    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: theme });
    for (const list of [
      { path: "/users", heading: "Users" },
      { path: "/surveys", heading: "Surveys" },
    ]) {
      await openSignedIn(page, list.path);
      await expect(page.getByRole("heading", { level: 1, name: list.heading })).toBeVisible();
      const menuButton = page.getByRole("button", { name: "Menu" });
      await expect(menuButton).toBeVisible();
      await expect(menuButton).toHaveAttribute("aria-expanded", "false");
      await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
      // The header is one row.
      const header = await page.locator("body > header, header").first().boundingBox();
      expect(header!.height).toBeLessThan(70);
      const firstCard = page.getByTestId("data-card").first();
      await expect(firstCard).toBeVisible();
      const box = await firstCard.boundingBox();
      expect(box!.y + box!.height, `the first record of ${list.path} ends within the first screen`).toBeLessThanOrEqual(
        PHONE.height,
      );
      await axeClean(page, `${list.path} 390 ${theme}`);
      await screenshot(page, `48-${list.heading.toLowerCase()}-390-${theme}`);
    }

    // The menu: opened by the button, a link in it leads on and closes it.
    const menuButton = page.getByRole("button", { name: "Menu" });
    await menuButton.click();
    await expect(menuButton).toHaveAttribute("aria-expanded", "true");
    const menu = page.getByRole("navigation", { name: "Main" });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("button", { name: "Sign out" })).toBeVisible();
    await expect(menu.getByRole("group", { name: "Theme" })).toBeVisible();
    await axeClean(page, `menu open 390 ${theme}`);
    await screenshot(page, `48-menu-open-390-${theme}`);
    await menu.getByRole("link", { name: "Users", exact: true }).click();
    await expect(page).toHaveURL(/\/users$/);
    await expect(menu).toBeHidden();
    await expect(menuButton).toHaveAttribute("aria-expanded", "false");
  });
}

test("48. the menu button works from the keyboard: Enter opens, Tab reaches the links, Escape closes and the focus returns", async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await openSignedIn(page, "/surveys");
  const menuButton = page.getByRole("button", { name: "Menu" });
  await menuButton.focus();
  await page.keyboard.press("Enter");
  const menu = page.getByRole("navigation", { name: "Main" });
  await expect(menu).toBeVisible();
  // The menu follows its button in the order of Tab.
  let reached = false;
  for (let i = 0; i < 12 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await menu
      .getByRole("link", { name: "Users", exact: true })
      .evaluate((link) => link === document.activeElement);
  }
  expect(reached, "Tab reaches the menu's links").toBe(true);
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(menuButton).toBeFocused();
  await expect(menuButton).toHaveAttribute("aria-expanded", "false");
  // A press outside closes it too.
  await menuButton.click();
  await expect(menu).toBeVisible();
  await page.getByRole("heading", { level: 1, name: "Surveys" }).click();
  await expect(menu).toBeHidden();
});

test("48. at 1440 px the menu is the sidebar, with no menu button", async ({ page }) => {
  await page.setViewportSize(WIDE);
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    await openSignedIn(page, "/users");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Menu" })).toBeHidden();
    await expect(page.getByRole("banner").getByRole("button", { name: "Sign out" })).toBeVisible();
    await axeClean(page, `users 1440 ${theme}`);
    await screenshot(page, `48-users-1440-${theme}`);
  }
});

test("48. a survey's tab strip scrolls sideways on a phone with a hint on the side that has more", async ({ page }) => {
  await openSignedIn(page, "/surveys");
  const first = page.locator("tbody tr").first().locator("td").first().getByRole("link");
  await first.click();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}$/);
  const strip = page.getByRole("navigation", { name: "Survey" });
  const scroller = strip.getByRole("list");
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize(PHONE);
    await expect(strip.getByRole("link", { name: "Activity" })).toBeAttached();
    expect(
      await scroller.evaluate((element) => element.scrollWidth > element.clientWidth),
      "the tabs are wider than the phone",
    ).toBe(true);
    await expect(page.getByTestId("tabs-more-after")).toBeVisible();
    await expect(page.getByTestId("tabs-more-before")).toBeHidden();
    await axeClean(page, `survey 390 ${theme}`);
    await screenshot(page, `48-survey-tabs-390-${theme}`);
    // Scrolled to its end, the hint moves to the other side and the last tab is on screen.
    await scroller.evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
    await expect(page.getByTestId("tabs-more-before")).toBeVisible();
    await expect(page.getByTestId("tabs-more-after")).toBeHidden();
    // (Less than a pixel may stay under the edge after a scroll to the end.)
    await expect(strip.getByRole("link", { name: "Activity" })).toBeInViewport({ ratio: 0.98 });
    await scroller.evaluate((element) => element.scrollTo({ left: 0 }));
    await page.setViewportSize(WIDE);
    await expect(page.getByTestId("tabs-more-after")).toBeHidden();
    await screenshot(page, `48-survey-tabs-1440-${theme}`);
  }
});

test("48. headings and e-mails never break inside a word at 390 px", async ({ page }) => {
  test.setTimeout(90_000);
  const id = unique();
  const email = `maximiliana.fernandez-rodriguez.${id}@departamento-de-recursos-humanos.example.com`;
  await openSignedIn(page, "/users/new");
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("First and middle names").fill("Maximiliana Guadalupe");
  await page.getByLabel("Last name", { exact: true }).fill(`Fernández-Rodríguez${id}`);
  await page
    .getByRole("group", { name: /Access roles/ })
    .getByLabel("Member")
    .check();
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page).toHaveURL(/\/users\/[0-9a-f]{24}$/);
  const userPath = new URL(page.url()).pathname;

  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    await page.setViewportSize(PHONE);
    await page.goto(userPath);
    const heading = page.getByRole("heading", { level: 1 });
    await expect(heading).toContainText("Maximiliana");
    expect((await lineBreaks(heading)).insideWords, "the heading").toEqual([]);
    const subtitle = page.getByRole("main").getByText(email, { exact: true }).first();
    const shown = await lineBreaks(subtitle);
    expect(shown.lines, "the e-mail wraps on a phone").toBeGreaterThan(1);
    expect(shown.insideWords, "the e-mail under the heading").toEqual([]);
    await axeClean(page, `user 390 ${theme}`);
    await screenshot(page, `48-long-email-user-390-${theme}`);

    await page.goto(`/users?search=${encodeURIComponent(`maximiliana.fernandez-rodriguez.${id}`)}`);
    const card = page.getByTestId("data-card").first();
    await expect(card).toContainText("Maximiliana");
    const inCard = await lineBreaks(card.getByText(email, { exact: true }).first());
    expect(inCard.insideWords, "the e-mail in the list's card").toEqual([]);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      "nothing scrolls sideways",
    ).toBe(true);
    await screenshot(page, `48-long-email-list-390-${theme}`);
    await page.setViewportSize(WIDE);
    await page.goto(userPath);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("Maximiliana");
    await screenshot(page, `48-long-email-user-1440-${theme}`);
  }
});
