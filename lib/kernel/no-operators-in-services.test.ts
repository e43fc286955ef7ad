/**
 * A service says what it wants of its repository and never how MongoDB does it
 * (docs/architecture.md#repositories-speak-in-intentions): no `$`-operator (`$set`, `$in`,
 * `"$mergeObjects"`, a `$$variable`, a `"$field"` path) appears in any `service.ts`, in code,
 * strings or comments. This scan keeps it so, naming each file and line that breaks it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");
const SKIPPED = new Set(["node_modules", ".next", ".git", "coverage", "test-results", "playwright-report"]);

function servicesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return servicesUnder(full);
    return entry.name === "service.ts" ? [full] : [];
  });
}

/** A `$` that starts an operator, a variable or a field path: not a template's `${`, not inside a word. */
const OPERATOR = /(?<![\w$])\$\$?[A-Za-z_]\w*/g;

/** The `$`-operator literals of a file's text, by line. */
function operatorLiterals(text: string): { line: number; found: string }[] {
  return text
    .split("\n")
    .flatMap((line, index) => [...line.matchAll(OPERATOR)].map((match) => ({ line: index + 1, found: match[0] })));
}

describe("no $-operator in any service.ts", () => {
  const services = ["lib", "app"].flatMap((folder) => servicesUnder(path.join(ROOT, folder)));

  it("finds the services (the scan is looking where they are)", () => {
    expect(services.length).toBeGreaterThan(10);
  });

  it("the scan sees an operator in a key, a string, an expression and a variable, and not a template", () => {
    expect(
      operatorLiterals('{ $set: { a: "$b" } }\n`${x}` { $in: ["$$entry", 1] } it$self').map((hit) => hit.found),
    ).toEqual(["$set", "$b", "$in", "$$entry"]);
  });

  it("no service holds one: filters and pipelines live in the repositories", () => {
    const offences = services.flatMap((file) =>
      operatorLiterals(readFileSync(file, "utf8")).map(
        (hit) => `${path.relative(ROOT, file)}:${hit.line}: ${hit.found}`,
      ),
    );
    expect(
      offences,
      `MongoDB operators in services (move them into the resource's repository.ts):\n${offences.join("\n")}`,
    ).toEqual([]);
  });
});
