/**
 * The checks of the notices (docs/architecture.md, the admin pages), shared by e2e/51 and e2e/52:
 * a notice covers no interactive control on screen, every such control still takes a click, and
 * the page passes axe with the notice shown.
 */
import type { Locator, Page } from "@playwright/test";
import { expectNoViolation } from "./axe";
import { expect } from "./fixtures";

export const notice = (page: Page, text: string | RegExp) =>
  page.getByRole("status", { name: "Notifications" }).locator("[data-toast]").filter({ hasText: text });

/** Every visible interactive control that the notices overlap or whose click they would take. */
export async function coveredControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const notices = [...document.querySelectorAll("[data-toast]")].map((element) => element.getBoundingClientRect());
    const problems: string[] = [];
    const selector =
      "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [tabindex]:not([tabindex='-1'])";
    for (const control of document.querySelectorAll<HTMLElement>(selector)) {
      if (control.closest("[data-toast]")) continue;
      const box = control.getBoundingClientRect();
      if (box.width < 1 || box.height < 1) continue;
      // Only what is on screen: a control scrolled away is covered by nothing.
      if (box.bottom <= 0 || box.top >= window.innerHeight || box.right <= 0 || box.left >= window.innerWidth) continue;
      const style = getComputedStyle(control);
      if (style.visibility === "hidden") continue;
      const name = `${control.tagName.toLowerCase()} “${(control.getAttribute("aria-label") ?? control.textContent ?? "").trim().slice(0, 40)}”`;
      for (const over of notices) {
        const overlaps =
          box.left < over.right && over.left < box.right && box.top < over.bottom && over.top < box.bottom;
        if (!overlaps) continue;
        // Under the notice, not over it: a notice scrolled beneath the sticking header hides nothing.
        const cx = Math.min(
          Math.max((Math.max(box.left, over.left) + Math.min(box.right, over.right)) / 2, 0),
          window.innerWidth - 1,
        );
        const cy = Math.min(
          Math.max((Math.max(box.top, over.top) + Math.min(box.bottom, over.bottom)) / 2, 0),
          window.innerHeight - 1,
        );
        if (document.elementFromPoint(cx, cy)?.closest("[data-toast]")) problems.push(`${name} lies under a notice`);
      }
      const x = Math.min(Math.max(box.left + box.width / 2, 0), window.innerWidth - 1);
      const y = Math.min(Math.max(box.top + box.height / 2, 0), window.innerHeight - 1);
      const hit = document.elementFromPoint(x, y);
      if (hit?.closest("[data-toast]")) problems.push(`${name}: a click at its centre lands on a notice`);
    }
    return problems;
  });
}

/** The notice is shown, says `text` and covers no control. */
export async function expectNoticeCoversNothing(page: Page, text: string | RegExp): Promise<void> {
  // The newest first: an earlier notice of the same words may still be shown.
  await expect(notice(page, text).first()).toBeVisible();
  expect(await coveredControls(page), `the notice “${text}” covers no control`).toEqual([]);
}

/**
 * Clicks the control a person needs next, at once: a notice lying over it would keep Playwright
 * from clicking (the click must land on the control itself) until the short time runs out.
 */
export async function clickNow(control: Locator): Promise<void> {
  await expect(control).toBeVisible();
  await control.click({ timeout: 2_000 });
}

export const axeClean = (page: Page): Promise<void> => expectNoViolation(page);
