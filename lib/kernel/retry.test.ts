import { afterEach, describe, expect, it, vi } from "vitest";
import { RACE_ATTEMPTS, retryWhileRaced } from "./retry";

describe("retryWhileRaced", () => {
  afterEach(() => vi.useRealTimers());

  it("answers the first attempt that applied, without trying again", async () => {
    const attempts: number[] = [];
    const result = await retryWhileRaced(async (number) => {
      attempts.push(number);
      return number === 2 ? "applied" : null;
    });
    expect(result).toBe("applied");
    expect(attempts).toEqual([0, 1, 2]);
  });

  it("gives up with null after RACE_ATTEMPTS lost races, waiting before each new attempt only", async () => {
    vi.useFakeTimers();
    let tried = 0;
    const pending: number[] = [];
    const running = retryWhileRaced(async () => {
      tried += 1;
      pending.push(vi.getTimerCount());
      return null;
    });
    await vi.runAllTimersAsync();
    expect(await running).toBeNull();
    expect(tried).toBe(RACE_ATTEMPTS);
    // No timer is left running when an attempt starts: each pause was over before it.
    expect(pending.every((count) => count === 0)).toBe(true);
  });

  it("the pause before attempt n is at most 5 ms × n", async () => {
    vi.useFakeTimers();
    const delays: number[] = [];
    const setTimeout = vi.spyOn(globalThis, "setTimeout");
    const running = retryWhileRaced(async (number) => (number === 4 ? number : null));
    await vi.runAllTimersAsync();
    expect(await running).toBe(4);
    for (const call of setTimeout.mock.calls) delays.push(Number(call[1]));
    expect(delays).toHaveLength(4);
    delays.forEach((delay, index) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(5 * (index + 1));
    });
  });

  it("an error ends the retries at once", async () => {
    let tried = 0;
    await expect(
      retryWhileRaced(async () => {
        tried += 1;
        throw new Error("the database went away");
      }),
    ).rejects.toThrow("the database went away");
    expect(tried).toBe(1);
  });
});
