/**
 * Who a `/v2` request acts for and whether it may do what it asks (docs/api.md#tokens,
 * docs/api.md#api-keys, docs/api.md#admin-rule): an access token acts for its user in its company,
 * an API key (`usk_…`) for its company within its scopes.
 */
import type { Scope } from "@/lib/base/schemas/scopes";
import { ServiceError } from "@/lib/kernel/errors";
import type { Principal } from "@/lib/kernel/principal";
import { insufficientScope } from "@/lib/kernel/scopes";
import { isApiKey, principalOfKey } from "@/lib/resources/api-keys/service";
import { isAdmin, principalOf, verifyAccessToken } from "@/lib/resources/auth/service";

export interface Caller {
  principal: Principal;
  /** Names the caller in its rate-limit budget and its idempotency keys: a user in a company, or a key. */
  id: string;
}

/** The caller of a request's bearer credential; `401` for none, a malformed, forged, expired or revoked one. */
export async function authenticate(request: Request): Promise<Caller> {
  const credential = bearerToken(request);
  if (isApiKey(credential)) {
    const principal = await principalOfKey(credential);
    return { principal, id: `key:${principal.apiKey!.id}` };
  }
  const claims = await verifyAccessToken(credential);
  const principal = await principalOf(claims);
  return { principal, id: `user:${claims.sub}:${claims.cid}` };
}

export function bearerToken(request: Request): string {
  const header = request.headers.get("authorization");
  if (!header) throw new ServiceError("unauthorized", "Send an access token: Authorization: Bearer <token>.");
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header);
  if (!match) throw new ServiceError("unauthorized", "The Authorization header must be: Bearer <token>.");
  return match[1];
}

/**
 * The Admin rule and the scopes: `Admin: true` where the operation requires it, honoured for a user
 * holding an admin access role, and for an API key whose scopes include the operation's.
 */
export async function authorize(
  request: Request,
  principal: Principal,
  rule: { admin?: boolean; scope?: Scope },
): Promise<void> {
  if (rule.admin && request.headers.get("admin") !== "true") {
    throw new ServiceError("admin_required", "This operation requires the header Admin: true.");
  }
  if (principal.apiKey) {
    if (!rule.scope) throw new ServiceError("insufficient_scope", "This operation is not open to API keys.");
    if (!principal.apiKey.scopes.includes(rule.scope)) throw insufficientScope(rule.scope);
    return;
  }
  if (rule.admin && !(await isAdmin(principal))) {
    throw new ServiceError("forbidden", "Admin: true is honoured only for users holding an admin access role.");
  }
}
