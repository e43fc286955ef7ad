/**
 * Bulk actions on users (docs/api.md#bulk-actions): each user named, or matched by a list query,
 * is changed through `updateUser`, so every rule of a single PATCH holds (the company keeps an
 * active admin) and every change commits with its event. One user's failure never stops the others.
 */
import { ServiceError } from "@/lib/kernel/errors";
import { type ObjectId, oid } from "@/lib/kernel/ids";
import { checkListQuery } from "@/lib/kernel/list-query";
import type { Notes } from "@/lib/kernel/notes";
import type { Principal } from "@/lib/kernel/principal";
import { checkReferences } from "@/lib/kernel/references";
import { holdsScope, requireScope } from "@/lib/kernel/scopes";
import { existingIds } from "@/lib/resources/reference/repository";
import {
  type BulkUsersBody,
  type BulkUsersResult,
  ListUsersQuery,
  MAX_BULK_USERS,
  type UpdateUserBody,
  type UserRecord,
} from "./contract";
import { userListFilter, usersOfCompany } from "./list-filter";
import { matchingUserIds, readUserRecords } from "./repository";
import { namesAdminRole, type UpdateHooks, updateUser } from "./service";

type Result = BulkUsersResult["results"][number];
/** What one user needs: a PATCH body, or an answer without one. */
type Plan = { body: UpdateUserBody } | { status: "unchanged" } | { status: "failed"; error: string };

/** Where a list is and how it is ordered: nothing of what it selects. */
const NOT_SELECTING = ["page", "cursor", "count", "limit", "orderBy", "sort", "sortBy"];

export async function bulkUpdateUsers(
  auth: Principal,
  body: BulkUsersBody,
  notes: Notes,
  hooks: UpdateHooks = {},
): Promise<BulkUsersResult> {
  const companyId = oid(auth.companyId);
  if (body.accessRoleId) {
    await checkReferences([
      { refs: [["accessRoleId", body.accessRoleId]], find: (ids) => existingIds("accessRoles", companyId, ids) },
    ]);
    // Refused whole, before any user changes: each user's PATCH would refuse it anyway (docs/security.md#scopes).
    if (!holdsScope(auth, "admin") && (await namesAdminRole(companyId, [body.accessRoleId])))
      requireScope(auth, "admin", "granting or taking an admin access role");
  }
  const ids = body.ids ? [...new Set(body.ids)] : await selectedIds(companyId, body.query ?? "", notes);
  const records = new Map(
    (await readUserRecords({ companyId, filter: usersOfCompany(companyId, ids.map(oid)) })).map((record) => [
      record._id,
      record,
    ]),
  );

  const results: Result[] = [];
  for (const id of ids) {
    const record = records.get(id);
    const plan: Plan = record ? planFor(body, record, auth) : { status: "failed", error: "not found" };
    if (!("body" in plan)) {
      results.push({ id, ...plan });
      continue;
    }
    try {
      await updateUser(auth, id, plan.body, notes, undefined, hooks);
      results.push({ id, status: "changed" });
    } catch (error) {
      // A refusal of the service is this user's answer; anything else (the database gone) ends the
      // request, and a repeat changes only what is still to change.
      if (!(error instanceof ServiceError)) throw error;
      results.push({ id, status: "failed", error: error.code === "not_found" ? "not found" : error.message });
    }
  }
  const count = (status: Result["status"]) => results.filter((result) => result.status === status).length;
  return { summary: { changed: count("changed"), unchanged: count("unchanged"), failed: count("failed") }, results };
}

/** The users a list query matches, by id; more than the cap is refused before anything changes. */
async function selectedIds(companyId: ObjectId, text: string, notes: Notes): Promise<string[]> {
  const { value } = checkListQuery(text, ListUsersQuery, { path: "query", drop: NOT_SELECTING });
  const found = await matchingUserIds(await userListFilter(companyId, value, notes), MAX_BULK_USERS + 1);
  if (found.length > MAX_BULK_USERS) {
    throw new ServiceError(
      "invalid_request",
      `The query matches more than ${MAX_BULK_USERS} users; narrow the filters, or send the users' ids in pages.`,
      [{ path: "query", message: `matches more than ${MAX_BULK_USERS} users` }],
    );
  }
  return found.map((id) => id.toHexString());
}

/** The PATCH that applies the action to one user, or why none is needed or allowed. */
function planFor(body: BulkUsersBody, user: UserRecord, auth: Principal): Plan {
  const role = body.accessRoleId;
  switch (body.action) {
    case "activate":
      return user.isActive ? { status: "unchanged" } : { body: { isActive: true } };
    case "deactivate":
      if (!user.isActive) return { status: "unchanged" };
      if (user._id === auth.userId) return { status: "failed", error: "You cannot deactivate yourself." };
      return { body: { isActive: false } };
    case "addAccessRole":
      return user.accessRoles.includes(role!)
        ? { status: "unchanged" }
        : { body: { accessRoles: [...user.accessRoles, role!] } };
    case "removeAccessRole":
      if (!user.accessRoles.includes(role!)) return { status: "unchanged" };
      if (user.accessRoles.length === 1)
        return { status: "failed", error: "A user must keep at least one access role; this is their only one." };
      return { body: { accessRoles: user.accessRoles.filter((held) => held !== role) } };
  }
}
