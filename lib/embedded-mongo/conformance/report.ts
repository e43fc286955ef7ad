/** Printing results: one line per test, then the summary line `N passed, M failed, K skipped`. */
import type { TestResult } from "./runner";

export class Reporter {
  readonly results: TestResult[] = [];

  constructor(private readonly write: (line: string) => void = (l) => process.stdout.write(l + "\n")) {}

  add(r: TestResult): void {
    this.results.push(r);
    this.write(formatResult(r));
  }

  count(status: TestResult["status"]): number {
    return this.results.filter((r) => r.status === status).length;
  }

  summary(): string {
    return `${this.count("PASS")} passed, ${this.count("FAIL")} failed, ${this.count("SKIP")} skipped`;
  }
}

function oneLine(s: string, max = 400): string {
  const flat = s.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max) + "…" : flat;
}

function formatResult(r: TestResult): string {
  const head = `${r.status} ${r.file} › ${r.description}`;
  return r.reason ? `${head} — ${oneLine(r.reason)}` : head;
}
