import type { Scope } from "@/lib/base/schemas/scopes";
import type { ObjectId } from "./ids";

/**
 * Who a `/v2` request acts for: a user, in one company, through one session; or an API key of one
 * company (`apiKey` set, `userId` the key's id, no session and no access roles).
 */
export interface Principal {
  userId: string;
  companyId: string;
  sessionId: string;
  accessRoles: ObjectId[];
  apiKey?: { id: string; scopes: readonly Scope[] };
  /** How the audit log names who acted: the user's display name (else e-mail), or the key's name. */
  name?: string;
}
