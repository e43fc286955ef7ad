/**
 * The sessions of an account as the rest of the service sees them: the cache of the principals
 * their tokens stand for, and their revocation. Users, invitations and sign-in all end sessions;
 * only sign-in (lib/resources/auth) creates them.
 */
import { newCache } from "@/lib/kernel/cache";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { deleteSessions } from "./repository";

export interface CachedPrincipal {
  principal: Principal;
  sessionExpiresAt: Date;
  lastRequestDate: Date | null;
}

/**
 * Principals of recent tokens, so that a burst of requests does not look up the same session and
 * user each time. Writes in this process that could change a principal (an update of the user,
 * a logout, a revocation) drop them at once; another process's writes (a revocation by the CLI,
 * or by another server process) are seen within the TTL: a revoked token stops working
 * everywhere within `PRINCIPAL_TTL_MS`.
 */
export const PRINCIPAL_TTL_MS = 5_000;
export const principals = newCache<CachedPrincipal, () => Promise<CachedPrincipal>>({
  ttlMs: PRINCIPAL_TTL_MS,
  load: (_key, load) => load(),
});

/** Forgets cached principals: all of them, or those of one user. */
export function forgetPrincipals(userId?: string): void {
  principals.clear(userId === undefined ? undefined : `${userId}|`);
}

/**
 * Ends sessions of an account, and with them every access token they issued (API tokens too):
 * all of them, all but `except` (the session a person changed their own password through), or
 * those of one company (the user was deactivated there: docs/security.md#passwords-and-tokens).
 * This process forgets them at once; other processes within `PRINCIPAL_TTL_MS`.
 */
export async function revokeSessions(
  userId: ObjectId,
  { except, kind, companyId }: { except?: string; kind?: "browser" | "api"; companyId?: ObjectId } = {},
): Promise<number> {
  const deletedCount = await deleteSessions(userId, {
    except: except && /^[0-9a-f]{24}$/.test(except) ? oid(except) : undefined,
    kind,
    companyId,
  });
  forgetPrincipals(userId.toHexString());
  return deletedCount;
}
