/**
 * Changes of users that reach the API keys (docs/security.md#scopes): a user who stops being an
 * active admin of a company (deactivated, or their last admin role taken, by a PATCH or a bulk
 * action) loses the keys they created there, unless the request says `revokeKeys: false`. Here
 * and not in lib/resources/users, since the keys name their creators through the users (lib/resources/api-keys reads
 * lib/resources/users).
 */
import type { Notes } from "@/lib/kernel/notes";
import type { Principal } from "@/lib/kernel/principal";
import { revokeKeysMadeBy } from "@/lib/resources/api-keys/service";
import { bulkUpdateUsers } from "@/lib/resources/users/bulk";
import type {
  BulkUsersBody,
  BulkUsersResult,
  UpdateUserBody,
  UpdateUserQuery,
  UserRecord,
} from "@/lib/resources/users/contract";
import { type UpdateHooks, updateUser } from "@/lib/resources/users/service";

function keyHooks(revoke: boolean, notes: Notes): UpdateHooks {
  if (!revoke) return {};
  return {
    adminLost: async (userId, companyId) => {
      const count = await revokeKeysMadeBy(companyId, userId);
      if (count > 0)
        notes.info(
          "api_keys_revoked",
          `${count} API key${count === 1 ? "" : "s"} created by ${userId.toHexString()} (or by their keys) ${count === 1 ? "was" : "were"} revoked: the user is no longer an active admin.`,
        );
    },
  };
}

export function updateUserWithKeys(
  auth: Principal,
  id: string,
  body: UpdateUserBody,
  query: UpdateUserQuery,
  notes: Notes,
  ifMatch?: string,
): Promise<UserRecord> {
  return updateUser(auth, id, body, notes, ifMatch, keyHooks(query.revokeKeys, notes));
}

export function bulkUpdateUsersWithKeys(auth: Principal, body: BulkUsersBody, notes: Notes): Promise<BulkUsersResult> {
  return bulkUpdateUsers(auth, body, notes, keyHooks(body.revokeKeys, notes));
}
