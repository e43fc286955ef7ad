/**
 * The registry of contracts is the one list a new kind of record's operations are added to: these
 * tests fail when a contract exists without its line there, or an operation without the route
 * file that binds it.
 */
import { operation, operationsOf } from "@/lib/base/schemas/operation";
import { boundHandlers, keyOf } from "@/lib/tools/fuzz/routes";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CONTRACTS, OPERATIONS } from ".";

const lib = path.resolve(__dirname);

/** The modules `lib/resources/<folder>/<name>` that exist, as import paths. */
const modulesNamed = (...names: string[]) =>
  readdirSync(lib, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      readdirSync(path.join(lib, entry.name))
        .filter((file) => names.includes(file))
        .map((file) => path.join(lib, entry.name, file)),
    );

describe("lib/resources/index.ts", () => {
  it("names every contract that declares operations", async () => {
    const contracts = modulesNamed("contract.ts");
    expect(contracts.length).toBeGreaterThan(5);
    for (const file of contracts) {
      const contract = (await import(file)) as Record<string, unknown>;
      for (const declared of operationsOf(contract))
        expect(OPERATIONS, `${keyOf(declared)} of ${path.relative(lib, file)}`).toContain(declared);
    }
  });

  it("lists each operation once, each contract's in the order it declares them", () => {
    expect(new Set(OPERATIONS).size).toBe(OPERATIONS.length);
    expect(new Set(OPERATIONS.map(keyOf)).size).toBe(OPERATIONS.length);
    const users = CONTRACTS[0];
    expect(operationsOf(users).map(keyOf)).toEqual([
      "GET /v2/users",
      "POST /v2/users",
      "GET /v2/users/me",
      "GET /v2/users/{id}",
      "PATCH /v2/users/{id}",
      "GET /v2/users/export",
      "POST /v2/users/bulk",
    ]);
  });

  it("has every operation bound by the export of its method in the route file of its path", async () => {
    const handlers = await boundHandlers();
    expect([...handlers.keys()].sort()).toEqual(OPERATIONS.map(keyOf).sort());
  });

  it("refuses an operation without its route file, or one its route file does not bind", async () => {
    const declare = (method: "get" | "post", path: string) =>
      operation({
        method,
        path,
        scope: "users:read",
        doc: { tag: "Users", summary: "A test", status: 200, response: z.object({}) },
      });
    await expect(boundHandlers([declare("get", "/v2/nothing-here")])).rejects.toThrow(
      "GET /v2/nothing-here has no route file (app/v2/nothing-here/route.ts)",
    );
    await expect(boundHandlers([declare("get", "/v2/users")])).rejects.toThrow(
      "GET /v2/users is not bound by the GET export of app/v2/users/route.ts",
    );
  });
});
