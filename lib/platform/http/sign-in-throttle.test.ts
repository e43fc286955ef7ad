import { RateCounter } from "@/lib/resources/requests/repository";
import { useTestDatabase } from "@/lib/tools/testing/database";
import { describe, expect, it } from "vitest";
import { FAILURES_PER_EMAIL_AND_ADDRESS, refusedState, reserveSignIn, SIGN_IN_WINDOW_MS } from "./sign-in-throttle";

const W = SIGN_IN_WINDOW_MS;

describe("the sign-in throttle's sliding budget", () => {
  it("says when one more attempt will be allowed: when the previous window's share has slid low enough, or in the next window", () => {
    // 10 failures now, none before: a tenth of them must slide out, 90 s into the next window.
    expect(refusedState(10, 0, 10, 0).resetSeconds).toBe(990);
    expect(refusedState(10, 0, 10, W - 1000).resetSeconds).toBe(91);
    // 10 before, 5 now, 6 minutes in: 10 × (1 − f) ≤ 4 from f = 0.6, at 9 minutes, 3 minutes from now.
    expect(refusedState(10, 10, 5, 6 * 60_000).resetSeconds).toBe(180);
    // 50 before, 50 now: every one of the current window's must count for less than 49 of 50.
    expect(refusedState(50, 50, 50, 0).resetSeconds).toBe(900 + 18);
    expect(refusedState(10, 4, 10, 0)).toEqual({ allowed: false, limit: 10, remaining: 0, resetSeconds: 990 });
  });

  describe("in the database", () => {
    useTestDatabase();
    const start = Date.UTC(2026, 10, 29, 12, 0, 0);

    it("carries the previous window's failures over, sliding, so a window boundary lets no second burst through", async () => {
      const email = "slide@limits.io";
      for (let i = 0; i < FAILURES_PER_EMAIL_AND_ADDRESS; i++)
        await (await reserveSignIn(email, "192.0.2.1", start + 1000 * i)).failed();
      await expect(reserveSignIn(email, "192.0.2.1", start + 60_000)).rejects.toMatchObject({ code: "rate_limited" });
      // A second into the next window, all ten still count.
      await expect(reserveSignIn(email, "192.0.2.1", start + W + 1000)).rejects.toMatchObject({ code: "rate_limited" });
      // 90 s in, a tenth has slid out: one attempt, no more.
      await (await reserveSignIn(email, "192.0.2.1", start + W + 90_000)).failed();
      await expect(reserveSignIn(email, "192.0.2.1", start + W + 91_000)).rejects.toMatchObject({
        code: "rate_limited",
      });
      // The counters are documents with an expiry, and name no e-mail.
      const counters = await RateCounter.find({ _id: /^signin:/ }).lean();
      expect(counters.length).toBeGreaterThan(0);
      expect(JSON.stringify(counters)).not.toContain("slide@");
      for (const counter of counters) expect(counter.expiresAt.getTime()).toBeGreaterThan(start);
    });

    it("gives back an attempt that did not fail on its credentials, and forgets the pair's failures on success", async () => {
      const email = "giveback@limits.io";
      for (let i = 0; i < 9; i++) await (await reserveSignIn(email, "192.0.2.2", start)).failed();
      await (await reserveSignIn(email, "192.0.2.2", start)).abandoned();
      await (await reserveSignIn(email, "192.0.2.2", start)).succeeded();
      for (let i = 0; i < 10; i++) await (await reserveSignIn(email, "192.0.2.2", start)).failed();
      await expect(reserveSignIn(email, "192.0.2.2", start)).rejects.toMatchObject({ code: "rate_limited" });
    });
  });
});
