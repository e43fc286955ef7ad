/**
 * axe-core in the page under test, for every spec that checks accessibility. axe is injected once
 * per document and run there: @axe-core/playwright injects it twice for each check and finishes
 * each one in a new tab, which took twice as long on a two-core machine (docs/testing.md#accessibility-checks).
 */
import type { Page } from "@playwright/test";
import axe, { type Result } from "axe-core";
import { expect } from "./fixtures";

/** The rules of WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

interface Scope {
  /** Only the rules of these tags (every rule axe runs by default when neither this nor `rules`). */
  tags?: string[];
  /** Only these rules. */
  rules?: string[];
  /** A CSS selector: only what it selects (the whole document otherwise). */
  include?: string;
}

/**
 * What axe finds wrong on the page as it is now: its violations alone. Transitions under way (a
 * theme's colours, just switched) end first: axe reads the colours as painted at the moment. So does
 * a wait: a list marked busy keeps its previous rows dimmed until the next answer comes
 * (components/ui/list-view.tsx), and axe checks the page as the user is left with it.
 */
export async function axeViolations(page: Page, scope: Scope = {}): Promise<Result[]> {
  await expect(page.locator("[aria-busy=true]")).toHaveCount(0);
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axe.source);
  return page.evaluate(async ({ tags, rules, include }) => {
    const ending = document
      .getAnimations()
      .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
      .map((animation) => animation.finished.catch(() => undefined));
    await Promise.all(ending);
    const run = (window as unknown as { axe: typeof axe }).axe;
    const runOnly = rules
      ? { type: "rule" as const, values: rules }
      : tags
        ? { type: "tag" as const, values: tags }
        : undefined;
    const results = await run.run(include ?? document, {
      resultTypes: ["violations"],
      ...(runOnly ? { runOnly } : {}),
    });
    return results.violations;
  }, scope);
}

/** Each violation in one line: its rule, its impact and (the first five of) the elements it names. */
export const describeViolations = (violations: Result[]): string[] =>
  violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes
        .map((node) => node.target.join(" "))
        .slice(0, 5)
        .join(" | ")}`,
  );

/** No violation at all, of any impact, of the rules `scope` names, on the page as it is now. */
export async function expectNoViolation(page: Page, scope: Scope = {}, label?: string): Promise<void> {
  expect(describeViolations(await axeViolations(page, scope)), label).toEqual([]);
}

const serious = (violation: Result) => violation.impact === "serious" || violation.impact === "critical";

/** No WCAG 2.1 A or AA violation of serious or critical impact on the page as it is now. */
export async function expectNoSeriousViolation(page: Page, label: string): Promise<void> {
  expect(describeViolations((await axeViolations(page, { tags: WCAG_21_AA })).filter(serious)), label).toEqual([]);
}
