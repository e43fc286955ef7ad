/**
 * The scopes of an API key as the services check them (the table in docs/security.md#scopes): the
 * wrapper checks the scope each operation declares, and a service checks again the scope of what
 * it is about to do, so no other caller of the service (a bulk action, an import job) can reach
 * further than the key's scopes. A user's token holds no scopes: these checks pass it, and the
 * Admin rule governs it instead.
 */
import type { Scope } from "@/lib/base/schemas/scopes";
import { ServiceError } from "./errors";
import type { Principal } from "./principal";

/** `403 insufficient_scope` naming the scope needed (docs/api.md#api-keys). */
export function insufficientScope(scope: Scope, message = `This API key lacks the scope ${scope}.`): ServiceError {
  return new ServiceError("insufficient_scope", message, [{ path: "scope", message: `needs ${scope}` }], {
    "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${scope}"`,
  });
}

/** Whether the caller may do what `scope` allows: any user, or an API key holding it. */
export const holdsScope = (auth: Principal, scope: Scope): boolean =>
  !auth.apiKey || auth.apiKey.scopes.includes(scope);

/** Throws `403 insufficient_scope` for an API key without `scope`; `what` says what needed it. */
export function requireScope(auth: Principal, scope: Scope, what?: string): void {
  if (holdsScope(auth, scope)) return;
  throw insufficientScope(
    scope,
    what ? `This API key lacks the scope ${scope}, which ${what} needs. Nothing was changed.` : undefined,
  );
}
