/**
 * The rate budgets the route wrapper counts against, shared by the server processes over the
 * database (docs/security.md#rate-limits): each caller's, each company's, each client address's
 * for the routes without a token, and each address's refused credentials.
 */
import { loadConfig } from "@/lib/base/config";
import { isDatabaseUnavailable } from "@/lib/kernel/db";
import { ServiceError } from "@/lib/kernel/errors";
import { addressKey, clientAddress } from "./client-address";
import { RateLimitedError, SharedRateLimiter } from "./rate-limit";

const perMinute = () => loadConfig().rateLimitPerMinute;
/** Each caller's (a session or an API key). */
export const callerLimiter = new SharedRateLimiter(perMinute);
/** All callers of one company together: minting more keys does not multiply the rate. */
export const companyLimiter = new SharedRateLimiter(() => loadConfig().companyRateLimitPerMinute);
/** The routes without a token, per client address. */
export const addressLimiter = new SharedRateLimiter(perMinute);
/** Refused tokens and session cookies per client address: 30 a minute, then `429` instead of `401`. */
const REFUSED_CREDENTIALS_PER_MINUTE = 30;
export const refusedCredentials = new SharedRateLimiter(() => REFUSED_CREDENTIALS_PER_MINUTE);

/** The client's address as per-address limits count it (lib/platform/http/client-address.ts, `TRUST_PROXY`). */
export function requestAddress(request: Request): string {
  return addressKey(clientAddress(request, loadConfig().trustProxy));
}

/**
 * A refused token or session cookie counts against the client address; once the address has
 * spent its budget, the answer is `429` instead of `401`, so that guessing or replaying tokens
 * is slowed while valid tokens from the same address keep working.
 */
export async function countRefusedCredentials(request: Request, error: unknown): Promise<unknown> {
  if (!(error instanceof ServiceError) || error.code !== "unauthorized") return error;
  try {
    const state = await refusedCredentials.take(`refused:${requestAddress(request)}`);
    return state.allowed ? error : new RateLimitedError(state);
  } catch (counting) {
    // The database is away: the 401 stands (it cannot be guessed faster while nothing answers).
    return isDatabaseUnavailable(counting) ? error : counting;
  }
}
