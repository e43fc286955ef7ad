/**
 * The API fuzzer (./fuzz.ts) with a fixed seed: a few hundred generated requests, valid, invalid
 * and hostile, over every operation of the OpenAPI document, on the embedded database. Any `5xx`,
 * any answer the document does not allow, or any record of one company seen by the other fails
 * the test with its counterexamples. `npm run fuzz -- --runs 100000` runs many more.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/lib/testing/database";
import { formatReport, Fuzzer, type FuzzWorld, operationSpecs, runFuzz, seedWorld } from "./fuzz";

// The fuzzer sends far more than a client may per minute; 429 is tested on its own elsewhere.
process.env.RATE_LIMIT_PER_MINUTE = "1000000000";
process.env.LOG_LEVEL ??= "silent";

const CI_SEED = 20261125;
const CI_RUNS = Number(process.env.FUZZ_RUNS ?? 400);

describe("API fuzz (fixed seed)", () => {
  useTestDatabase();
  const specs = operationSpecs();
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await seedWorld(specs);
  });

  it("answers every generated request as the OpenAPI document says, never 5xx, never across companies", async () => {
    const report = await runFuzz(new Fuzzer(specs, world), { seed: CI_SEED, runs: CI_RUNS });
    const text = formatReport(report);
    expect(report.failures, text).toEqual([]);
    expect(report.runs).toBe(CI_RUNS);
    // Every operation was reached, and answered with success at least once: the generators make
    // requests the service accepts, not only ones it refuses.
    for (const [key, { cases, statuses }] of report.byOperation) {
      expect(cases, `${key}\n${text}`).toBeGreaterThan(0);
      expect([...statuses.keys()].some((status) => status >= 200 && status < 300), `${key} never succeeded\n${text}`).toBe(true);
    }
    console.log(text);
  }, 120_000);
});
