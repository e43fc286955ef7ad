/**
 * One-time fills at start run once per database (docs/architecture.md#the-flow-of-a-request): the
 * `meta` marker makes every later start of every process one read.
 */
import { useTestDatabase } from "@/lib/tools/testing/database";
import { describe, expect, it } from "vitest";
import { Meta, oncePerDatabase } from "./meta";

describe("oncePerDatabase", () => {
  useTestDatabase();

  it("runs a fill once, records it, and skips it at every later start", async () => {
    let runs = 0;
    const fill = async () => {
      runs++;
    };
    await oncePerDatabase("testFill", fill);
    expect(runs).toBe(1);
    expect((await Meta.findById("testFill").lean())?.done).toBe(true);
    await oncePerDatabase("testFill", fill);
    await Promise.all([oncePerDatabase("testFill", fill), oncePerDatabase("testFill", fill)]);
    expect(runs).toBe(1);
    // Another fill has a marker of its own.
    await oncePerDatabase("otherFill", fill);
    expect(runs).toBe(2);
  });

  it("records nothing when the fill fails, so the next start tries again", async () => {
    await expect(
      oncePerDatabase("failingFill", async () => {
        throw new Error("the database went away");
      }),
    ).rejects.toThrow("the database went away");
    expect(await Meta.findById("failingFill").lean()).toBeNull();
    let runs = 0;
    await oncePerDatabase("failingFill", async () => {
      runs++;
    });
    expect(runs).toBe(1);
  });
});
