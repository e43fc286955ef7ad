/**
 * How failed sign-ins are throttled (docs/security.md, "How sign-in is throttled"): each attempt
 * reserves one failure from two budgets before the password is checked — 10 per e-mail and client
 * address, 50 per client address, each per 15 minutes — and gives it back when the attempt did not
 * fail on its credentials. The reservation comes first so that parallel attempts cannot all pass
 * the check while the slow hashes run; the pair rather than the e-mail alone so that wrong
 * passwords sent from one address never keep the owner, at another, out of their account.
 *
 * The counts live in the database (one counter per budget and 15-minute window), so every server
 * process sees every failure: N servers allow the rate once. A budget slides: the previous
 * window's failures still count, in the share of that window still inside the last 15 minutes, so
 * a failure is forgotten gradually, about 15 minutes after it happened, and no window boundary
 * lets a second burst through. Each attempt is counted with one conditional update, so no
 * attempt is ever counted past a budget, however many servers ask at once.
 */
import { log } from "@/lib/kernel/log";
import { attemptCounts, countAttemptBelow, forgetAttempts, uncountAttempt } from "@/lib/resources/requests/repository";
import { createHash } from "node:crypto";
import { RateLimitedError, type RateState } from "./rate-limit";

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL_AND_ADDRESS = 10;
const FAILURES_PER_ADDRESS = 50;

export interface SignInAttempt {
  /** The credentials were right: the reservation is returned and the pair's failures forgotten. */
  succeeded(): Promise<void>;
  /** The credentials were wrong: the reservation stays spent. */
  failed(): Promise<void>;
  /** Something else went wrong (validation, database): the reservation is returned. */
  abandoned(): Promise<void>;
}

/** Reserves one failure for a sign-in of `email` from `address`, or throws `429 rate_limited`. */
export async function reserveSignIn(email: string, address: string, now = Date.now()): Promise<SignInAttempt> {
  const addressKey = `signin:${address}`;
  // The e-mail is hashed: the counters name no account.
  const pairKey = `signin:${createHash("sha256").update(`${email.toLowerCase()}\u0000${address}`).digest("base64url")}`;
  const byAddress = await reserveOne(addressKey, FAILURES_PER_ADDRESS, now);
  if (typeof byAddress !== "number") throw refused(byAddress);
  const byPair = await reserveOne(pairKey, FAILURES_PER_EMAIL_AND_ADDRESS, now);
  if (typeof byPair !== "number") {
    await uncountAttempt(addressKey, byAddress);
    throw refused(byPair);
  }
  let settled = false;
  const settle = async (giveBack: boolean, forgetPair = false) => {
    if (settled || !giveBack) return;
    settled = true;
    try {
      await uncountAttempt(addressKey, byAddress);
      if (forgetPair) await forgetAttempts(pairKey, [byPair - SIGN_IN_WINDOW_MS, byPair]);
      else await uncountAttempt(pairKey, byPair);
    } catch (error) {
      // The answer stands; at worst one attempt stays counted until its window slides away.
      log().warn({ err: error }, "could not give back a sign-in reservation");
    }
  };
  return {
    succeeded: () => settle(true, true),
    failed: () => ((settled = true), Promise.resolve()),
    abandoned: () => settle(true),
  };
}

/** Counts one attempt in the budget's current window: that window's start, or the refusing budget's state. */
async function reserveOne(key: string, limit: number, now: number): Promise<number | RateState> {
  const window = now - (now % SIGN_IN_WINDOW_MS);
  const [previous] = await attemptCounts(key, [window - SIGN_IN_WINDOW_MS]);
  const carried = carriedOver(previous, now - window);
  if (await countAttemptBelow(key, window, limit - carried, new Date(window + 2 * SIGN_IN_WINDOW_MS))) return window;
  const [current] = await attemptCounts(key, [window]);
  return refusedState(limit, previous, current, now - window);
}

/** The previous window's failures that still count, `elapsed` ms into the current one (rounded up). */
const carriedOver = (previous: number, elapsed: number) =>
  Math.ceil(previous * (1 - elapsed / SIGN_IN_WINDOW_MS) - 1e-9);

/**
 * A refusing budget's state: `resetSeconds` is when one more attempt will be allowed if none comes
 * meanwhile — the moment the previous window's share has slid low enough, or else a point in the
 * next window — which the answer gives as both `Retry-After` and `RateLimit-Reset`.
 */
export function refusedState(limit: number, previous: number, current: number, elapsed: number): RateState {
  const W = SIGN_IN_WINDOW_MS;
  const at =
    current <= limit - 1 && previous > 0
      ? W * (1 - (limit - current - 1) / previous)
      : W + W * Math.max(0, 1 - (limit - 1) / Math.max(current, 1));
  return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil((at - elapsed) / 1000)) };
}

const refused = (state: RateState) =>
  new RateLimitedError(state, SIGN_IN_WINDOW_MS / 1000, "Too many failed sign-ins; try again later.");
