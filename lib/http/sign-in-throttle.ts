/**
 * How failed sign-ins are throttled (docs/security.md, "How sign-in is throttled"): each attempt
 * reserves one failure from two budgets before the password is checked — 10 per e-mail and client
 * address, 50 per client address, each per 15 minutes and refilled continuously — and gives it
 * back when the attempt did not fail on its credentials. The reservation comes first so that
 * parallel attempts cannot all pass the check while the slow hashes run; the pair rather than
 * the e-mail alone so that wrong passwords sent from one address never keep the owner, at
 * another, out of their account.
 */
import { ServiceError } from "@/lib/server/errors";
import { RateLimiter, type Verdict } from "./rate-limit";

const WINDOW_MS = 15 * 60_000;
export const FAILURES_PER_EMAIL_AND_ADDRESS = 10;
export const FAILURES_PER_ADDRESS = 50;

const perPair = new RateLimiter(() => FAILURES_PER_EMAIL_AND_ADDRESS, WINDOW_MS);
const perAddress = new RateLimiter(() => FAILURES_PER_ADDRESS, WINDOW_MS);

export interface SignInAttempt {
  /** The credentials were right: the reservation is returned and the pair's failures forgotten. */
  succeeded(): void;
  /** The credentials were wrong: the reservation stays spent. */
  failed(): void;
  /** Something else went wrong (validation, database): the reservation is returned. */
  abandoned(): void;
}

/** Reserves one failure for a sign-in of `email` from `address`, or throws `429 rate_limited`. */
export function reserveSignIn(email: string, address: string): SignInAttempt {
  const pairKey = `${email.toLowerCase()}\u0000${address}`;
  const verdicts = [perAddress.peek(address), perPair.peek(pairKey)];
  const refused = verdicts.filter((verdict): verdict is Extract<Verdict, { allowed: false }> => !verdict.allowed);
  if (refused.length > 0) {
    const wait = Math.max(...refused.map((verdict) => verdict.retryAfterSeconds));
    throw new ServiceError("rate_limited", "Too many failed sign-ins; try again later.", undefined, { "Retry-After": String(wait) });
  }
  // Nothing is awaited between the check and the taking: no other attempt can come in between.
  perAddress.take(address);
  perPair.take(pairKey);
  let settled = false;
  const settle = (giveBack: boolean, forgetPair = false) => {
    if (settled) return;
    settled = true;
    if (!giveBack) return;
    perAddress.give(address);
    if (forgetPair) perPair.forget(pairKey);
    else perPair.give(pairKey);
  };
  return {
    succeeded: () => settle(true, true),
    failed: () => settle(false),
    abandoned: () => settle(true),
  };
}
