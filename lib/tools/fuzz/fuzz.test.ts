/**
 * The API fuzzer (./fuzzer.ts) with a fixed seed: a thousand generated requests, valid, invalid
 * and hostile, over every operation of the OpenAPI document, on the embedded database. Any `5xx`,
 * any answer the document does not allow, or any record of one company seen by the other fails
 * the test with its counterexamples. `npm run fuzz -- --runs 100000` runs many more.
 */
import * as accessRole from "@/app/v2/access-roles/[id]/route";
import { Reply } from "@/lib/platform/http/reply";
import { route } from "@/lib/platform/http/route";
import { OPERATIONS } from "@/lib/resources";
import { ReferenceIdParams } from "@/lib/resources/reference/schemas";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { beforeAll, describe, expect, it } from "vitest";
import {
  formatReport,
  type FuzzCase,
  Fuzzer,
  type FuzzWorld,
  type OperationSpec,
  operationSpecs,
  runFuzz,
  seedWorld,
} from "./fuzzer";
import { keyOf } from "./routes";
import { FUZZ_WEBHOOK_HOST, IdRef } from "./values";

// The fuzzer sends far more than a client may per minute; 429 is tested on its own elsewhere.
process.env.RATE_LIMIT_PER_MINUTE = "1000000000";
process.env.LOG_LEVEL ??= "silent";
// The webhooks it creates point at this host, which would otherwise be refused as loopback.
process.env.WEBHOOK_ALLOWED_HOSTS = FUZZ_WEBHOOK_HOST;

const CI_SEED = 20261125;
// About seventeen cases per operation (some sixty), after one valid case of each (lib/tools/fuzz/fuzzer.ts).
const CI_RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

describe("API fuzz (fixed seed)", () => {
  useTestDatabase();
  let specs: OperationSpec[];
  let world: FuzzWorld;

  beforeAll(async () => {
    specs = await operationSpecs();
    world = await seedWorld(specs);
  });

  it("calls every operation of every contract named in lib/resources/index.ts, through its route file", () => {
    expect(specs.map((spec) => spec.key).sort()).toEqual(OPERATIONS.map(keyOf).sort());
  });

  it("answers every generated request as the OpenAPI document says, never 5xx, never across companies", async () => {
    const report = await runFuzz(new Fuzzer(specs, world), { seed: CI_SEED, runs: CI_RUNS });
    const text = formatReport(report);
    expect(report.failures, text).toEqual([]);
    expect(report.runs).toBe(CI_RUNS);
    // Every operation was reached, and answered with success at least once: the generators make
    // requests the service accepts, not only ones it refuses.
    expect([...report.byOperation.keys()].sort()).toEqual(OPERATIONS.map(keyOf).sort());
    for (const [key, { cases, statuses }] of report.byOperation) {
      expect(cases, `${key}\n${text}`).toBeGreaterThan(0);
      expect(
        [...statuses.keys()].some((status) => status >= 200 && status < 300),
        `${key} never succeeded\n${text}`,
      ).toBe(true);
    }
    // Deep nesting is sent, beyond 1000 levels too once that finding is closed.
    const labels = [...report.labels.keys()];
    expect(labels.filter((label) => label.includes("nested")).length, text).toBeGreaterThan(0);
    expect(labels.filter((label) => label.includes("nested over 1000")).length, text).toBeGreaterThan(0);
    console.log(text);
  }, 120_000);

  it("creates records of a kind the seeded world does not make, for each company, before the run", async () => {
    const create = specs.find((candidate) => candidate.key === "POST /v2/bots")!;
    const seeded = { a: world.a.pools.bots, b: world.b.pools.bots };
    // As for a resource added without a line in the world's seeding: no pool at all.
    for (const company of [world.a, world.b]) delete (company.pools as Partial<typeof company.pools>).bots;
    try {
      await new Fuzzer([create], world).seedOtherKinds(CI_SEED);
      for (const company of [world.a, world.b]) {
        expect(company.pools.bots?.length, company.name).toBeGreaterThanOrEqual(2);
        for (const id of company.pools.bots!) expect([...seeded.a, ...seeded.b]).not.toContain(id);
      }
    } finally {
      world.a.pools.bots = seeded.a;
      world.b.pools.bots = seeded.b;
    }
  });

  // The checks themselves: handlers made on the spot that answer what the real one never should.
  it("reports a 5xx, an answer the document does not allow and another company's record", async () => {
    const spec = specs.find((candidate) => candidate.key === "GET /v2/access-roles/{id}")!;
    expect(spec.handler).toBe(accessRole.GET);
    const read: FuzzCase = {
      op: 0,
      flavour: "valid",
      actor: "a",
      auth: "admin",
      admin: "true",
      pathId: new IdRef("accessRoles", 0, "own"),
      query: [],
      headers: [],
    };
    const send = async (handler: typeof spec.handler, c: FuzzCase = read) =>
      (await new Fuzzer([{ ...spec, handler }], world).send(c)).problems.join("\n");

    expect(await send(accessRole.GET)).toBe("");
    expect(
      await send(
        route({ params: ReferenceIdParams }, () => {
          throw new Error("a bug");
        }),
      ),
    ).toMatch(/a 500 answer/);
    expect(await send(route({ params: ReferenceIdParams }, () => new Reply({ name: "no id" })))).toMatch(
      /body must have required property '_id'/,
    );
    expect(await send(route({ params: ReferenceIdParams }, () => new Reply(null, 204)))).toMatch(
      /status 204 is not documented/,
    );
    const theirs = world.b.pools.accessRoles[0];
    const leak = route({ params: ReferenceIdParams }, () => ({
      _id: theirs,
      name: "Theirs",
      company: world.b.id,
      isAdmin: false,
      createdAt: new Date().toISOString(),
      modifiedAt: new Date().toISOString(),
    }));
    expect(await send(leak)).toMatch(new RegExp(`the answer to company A shows company B's id ${theirs}`));
    // Company A reading company B's record by id: a success is a leak, and only 404 will do.
    const cross = { ...read, flavour: "cross" as const };
    expect(await send(accessRole.GET, cross)).toBe("");
    expect(
      await send(
        route(
          { params: ReferenceIdParams },
          () => new Reply({ error: { status: 403, code: "forbidden", message: "no", requestId: "x" } }, 403),
        ),
        cross,
      ),
    ).toMatch(/answered 403, not 404/);
    expect(await send(leak, cross)).toMatch(/a success for a request naming company B's record/);
  });
});
