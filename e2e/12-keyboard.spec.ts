/**
 * The main flows by keyboard alone (Tab, Shift+Tab, Enter, Space, arrows and typing; no click),
 * and at every stop of the Tab key the focused element shows it: an outline or a focus ring.
 */
import type { Locator, Page } from "@playwright/test";
import { E2E_ADMIN_EMAIL, E2E_ADMIN_PASSWORD } from "./env";
import { expect, screenshot, test, unique } from "./fixtures";

/** Where the focus is, and whether it can be seen: an outline, or a ring (a box-shadow with a spread). */
async function focusShown(page: Page): Promise<{ element: string; visible: boolean }> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return { element: "body", visible: true };
    const style = getComputedStyle(element);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    const ring = style.boxShadow
      .split(/,(?![^(]*\))/)
      .map((shadow) => {
        // A colour is `rgb(…)`, `rgba(…)`, `oklab(… / a)` or the like; its alpha is after `/` or the fourth number.
        const color = /[a-z-]+\([^)]*\)|transparent/.exec(shadow)?.[0] ?? "currentcolor";
        const numbers = color
          .replace(/^[a-z-]+\(|\)$/g, "")
          .split(/[\s,/]+/)
          .filter(Boolean);
        const alpha =
          color === "transparent"
            ? 0
            : color.includes("/") || color.startsWith("rgba")
              ? parseFloat(numbers[numbers.length - 1])
              : 1;
        const lengths = shadow.replace(color, "").replace("inset", "").trim().split(/\s+/).map(parseFloat);
        return { alpha, spread: lengths[3] ?? 0 };
      })
      .some((shadow) => shadow.alpha > 0 && shadow.spread > 0);
    return { element: element.outerHTML.slice(0, 160), visible: outline || ring };
  });
}

const isFocused = (target: Locator) => target.evaluate((element) => element === document.activeElement);

/** Presses Tab (or Shift+Tab) until `target` has the focus, checking at each stop that the focus shows. */
async function tabTo(page: Page, target: Locator, { backwards = false, max = 120 } = {}): Promise<void> {
  await target.waitFor();
  for (let presses = 0; presses < max; presses++) {
    await page.keyboard.press(backwards ? "Shift+Tab" : "Tab");
    const focus = await focusShown(page);
    expect.soft(focus.visible, `the focus shows on ${focus.element}`).toBe(true);
    if (await isFocused(target)) return;
  }
  throw new Error(`${target} was not reached in ${max} presses of ${backwards ? "Shift+Tab" : "Tab"}`);
}

async function signInByKeyboard(page: Page): Promise<void> {
  await page.goto("/");
  const email = page.getByLabel("E-mail");
  await expect(email).toBeFocused();
  expect((await focusShown(page)).visible, "the focus shows on the e-mail field").toBe(true);
  await page.keyboard.type(E2E_ADMIN_EMAIL);
  await tabTo(page, page.getByLabel("Password"));
  await page.keyboard.type(E2E_ADMIN_PASSWORD);
  await tabTo(page, email, { backwards: true });
  await expect(email).toHaveValue(E2E_ADMIN_EMAIL);
  const submit = page.getByRole("button", { name: "Sign in" });
  await expect(submit).toBeEnabled();
  await tabTo(page, submit);
  await page.keyboard.press("Enter");
  await page.waitForURL("**/users");
  await expect(page.getByTestId("users-total")).toBeVisible();
}

test("keyboard only: sign in, skip to the content, search users and open one", async ({ page }) => {
  await signInByKeyboard(page);

  await tabTo(page, page.getByRole("link", { name: "Skip to content" }));
  await screenshot(page, "12-skip-link");
  await page.keyboard.press("Enter");
  const search = page.getByRole("searchbox", { name: "Search" });
  await tabTo(page, search, { max: 10 });
  await page.keyboard.type("luc");
  await expect(page).toHaveURL(/[?&]search=luc(&|$)/);
  const first = page.locator("tbody tr").first().getByRole("link").first();
  await expect(first).toHaveText(/^Lucía /);
  const name = await first.innerText();
  await tabTo(page, first);
  await screenshot(page, "12-users-search-focus");
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/users\/[0-9a-f]{24}$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
});

test("keyboard only: create a user, then edit it", async ({ page }) => {
  const id = unique();
  await signInByKeyboard(page);

  await tabTo(page, page.getByRole("link", { name: "New user" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "New user" })).toBeVisible();
  await tabTo(page, page.getByLabel("E-mail", { exact: true }));
  await page.keyboard.type(`keys.${id}@example.com`);
  await tabTo(page, page.getByLabel("First and middle names"));
  await page.keyboard.type("Kim");
  await tabTo(page, page.getByLabel("Last name", { exact: true }));
  await page.keyboard.type(`Keys${id}`);
  const member = page.getByRole("group", { name: /Access roles/ }).getByLabel("Member");
  await tabTo(page, member);
  await page.keyboard.press("Space");
  await expect(member).toBeChecked();
  const job = page.getByLabel("Job title");
  await expect(job.getByRole("option", { name: "Designer" })).toBeAttached();
  await tabTo(page, job);
  await page.keyboard.type("Designer");
  await expect(job.locator("option:checked")).toHaveText("Designer");
  await tabTo(page, page.getByRole("button", { name: "Create user" }));
  await screenshot(page, "12-user-create-focus");
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/users\/[0-9a-f]{24}$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(`Kim Keys${id}`);

  await tabTo(page, page.getByRole("link", { name: "Edit", exact: true }));
  await page.keyboard.press("Enter");
  await expect(page.getByLabel("E-mail (cannot be changed)")).toHaveValue(`keys.${id}@example.com`);
  await tabTo(page, page.getByLabel("Phone"));
  await page.keyboard.type("+34 600 111 222");
  await tabTo(page, page.getByRole("button", { name: "Save changes" }));
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/users\/[0-9a-f]{24}$/);
  await expect(page.getByText("+34 600 111 222")).toBeVisible();
});

test("keyboard only: create a survey, then edit it", async ({ page }) => {
  const code = `keys_${unique()}`;
  await signInByKeyboard(page);

  await tabTo(page, page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Surveys" }));
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "Surveys" })).toBeVisible();
  await tabTo(page, page.getByRole("link", { name: "New survey" }));
  await page.keyboard.press("Enter");
  await tabTo(page, page.getByLabel("Code"));
  await page.keyboard.type(code);
  await expect(page.getByText("✓ available")).toBeVisible();
  await tabTo(page, page.getByLabel("Name"));
  await page.keyboard.type("Keyboard pulse");
  const answer = page.getByLabel("Admin: may answer");
  await tabTo(page, answer);
  await page.keyboard.press("Space");
  await expect(answer).toBeChecked();
  const create = page.getByRole("button", { name: "Create survey" });
  await expect(create).toBeEnabled();
  await tabTo(page, create);
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/surveys\/[0-9a-f]{24}$/);
  await expect(page.getByRole("heading", { level: 1, name: "Keyboard pulse" })).toBeVisible();

  await tabTo(page, page.getByRole("link", { name: "Edit", exact: true }));
  await page.keyboard.press("Enter");
  const name = page.getByLabel("Name");
  await expect(name).toHaveValue("Keyboard pulse");
  await tabTo(page, name);
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type("Keyboard pulse, weekly");
  await tabTo(page, page.getByRole("button", { name: "Save changes" }));
  await screenshot(page, "12-survey-edit-focus");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "Keyboard pulse, weekly" })).toBeVisible();
  await expect(page).toHaveURL(/\/surveys\/[0-9a-f]{24}$/);
  await expect(page.getByRole("heading", { level: 1, name: "Keyboard pulse, weekly" })).toBeFocused();
});
