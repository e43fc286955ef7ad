/**
 * Checks every page of the walk in e2e/11-accessibility.spec.ts makes besides axe's: its
 * Content-Security-Policy holds (the browser reports no violation) and its form controls carry labels.
 */
import type { Page } from "@playwright/test";

interface Violation {
  page: string;
  directive: string;
  blocked: string;
  source: string;
  sample: string;
}

/** Collects every CSP violation and every "Refused to …" console message of `page`, from its first document on. */
export async function watchPolicy(page: Page): Promise<string[]> {
  const problems: string[] = [];
  await page.exposeFunction("reportCspViolation", (violation: Violation) => {
    problems.push(
      `${violation.page}: ${violation.directive} blocked ${violation.blocked || "(inline)"} ${violation.source} ${violation.sample}`.trim(),
    );
  });
  await page.addInitScript(() => {
    // Capture on the document: the event is fired at the element concerned and bubbles up to it.
    document.addEventListener(
      "securitypolicyviolation",
      (event) => {
        const report = (window as unknown as { reportCspViolation: (violation: Violation) => void }).reportCspViolation;
        void report({
          page: location.pathname,
          directive: event.effectiveDirective,
          blocked: event.blockedURI,
          source: event.sourceFile ? `at ${event.sourceFile}:${event.lineNumber}` : "",
          sample: event.sample,
        });
      },
      true,
    );
  });
  page.on("console", (message) => {
    if (/Refused to|Content Security Policy/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return problems;
}

/** Every visible form control has an accessible name from a label (or aria-label/-labelledby). */
export async function unlabelledControls(page: Page): Promise<string[]> {
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
