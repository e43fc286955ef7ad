/**
 * The request deadline: a handler stuck where no database bound reaches ends as a 503-worthy
 * error after twice DATABASE_TIMEOUT_MS; a handler that finishes is untouched.
 */
import { isDatabaseUnavailable } from "@/lib/kernel/db";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withinDeadline } from "./deadline";

describe("withinDeadline", () => {
  const saved = process.env.DATABASE_TIMEOUT_MS;
  beforeEach(() => {
    process.env.DATABASE_TIMEOUT_MS = "100";
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_TIMEOUT_MS;
    else process.env.DATABASE_TIMEOUT_MS = saved;
  });

  it("gives up on work that never settles, with an error that answers 503", async () => {
    const error = await withinDeadline(new Promise(() => {}), "stuck-request").then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("The request did not finish within 200 ms.");
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it("passes a result or a failure through as it is", async () => {
    await expect(withinDeadline(Promise.resolve({ users: [] }), "fine")).resolves.toEqual({ users: [] });
    await expect(withinDeadline(Promise.reject(new RangeError("bad")), "failing")).rejects.toThrow(RangeError);
  });
});
