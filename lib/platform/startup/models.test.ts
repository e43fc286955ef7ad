/** The list of models is the one a new kind of record's models are added to: this fails when a repository defines one it lacks. */
import mongoose from "mongoose";
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MODELS } from "./models";

const lib = path.resolve(__dirname, "..", "..");
const resources = path.join(lib, "resources");

describe("lib/platform/startup/models.ts", () => {
  it("names every model the repositories define", async () => {
    const modules = readdirSync(resources, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) =>
        readdirSync(path.join(resources, entry.name))
          .filter((file) => file === "repository.ts" || file === "parts.ts")
          .map((file) => path.join(resources, entry.name, file)),
      );
    for (const file of [...modules, path.join(lib, "kernel/models/meta.ts")]) await import(file);
    expect(mongoose.modelNames().length).toBeGreaterThan(10);
    expect(MODELS.map((model) => model.modelName).sort()).toEqual([...mongoose.modelNames()].sort());
  });
});
