/**
 * The users resource (docs/api.md#users): list, read, create, update.
 * Every query is scoped to the caller's company: a user of another company does not exist here.
 */
import { type ListOrder, listScope, pageFields, pageOfWritten, pageRead, withCondition } from "@/lib/kernel/cursor";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { matchesTag } from "@/lib/kernel/entity-tag";
import { notFound, preconditionFailed, ServiceError } from "@/lib/kernel/errors";
import { type ExportSource, keysetBatches } from "@/lib/kernel/export/stream";
import { type ObjectId, oid } from "@/lib/kernel/ids";
import { JsonText } from "@/lib/kernel/json-text";
import type { Notes } from "@/lib/kernel/notes";
import { offThread } from "@/lib/kernel/off-thread";
import type { Principal } from "@/lib/kernel/principal";
import { requestContext } from "@/lib/kernel/request-context";
import { retryWhileRaced } from "@/lib/kernel/retry";
import { holdsScope, requireScope } from "@/lib/kernel/scopes";
import { adminChange } from "@/lib/resources/companies/repository";
import { hashPassword } from "@/lib/resources/credentials/passwords";
import { storePasswordHash } from "@/lib/resources/credentials/repository";
import { forgetPrincipals, revokeSessions } from "@/lib/resources/credentials/sessions";
import { recordChange } from "@/lib/resources/events/service";
import { inviteUser } from "@/lib/resources/mail/invitations";
import { ReferenceNames } from "@/lib/resources/reference/names";
import { adminRoleCompanies, adminRoleIds, companyIds } from "@/lib/resources/reference/repository";
import type { Sort } from "mongodb";
import { USER_COLUMNS, userReferences, userRow } from "./columns";
import {
  type CreateUserBody,
  type ExportUsersQuery,
  type ListUsersQuery,
  type UpdateUserBody,
  type UserList,
  UserName,
  type UserRecord,
} from "./contract";
import { userListFilter, userOfCompany } from "./list-filter";
import {
  activeMemberHolds,
  applyUserPatch,
  countUsers,
  CSV_FIELDS,
  emptyMembership,
  findCompanyUser,
  findUserById,
  type LeanUser,
  newDoc,
  type OwnIds,
  type PatchConditions,
  readUserPage,
  readWrittenUser,
  readWrittenUserPage,
  restoreAdminStanding,
  storedUserTag,
  storeSearchKeywords,
  toUserRecords,
  USER_SORT_FIELDS,
  userCountKey,
  userCountsChanged,
  type UserPatch,
} from "./repository";
import { checkBodyReferences, type References, userEventFields, writeNewUser } from "./writes";

// ---------------------------------------------------------------------------------------------
// Reading

/** A list's answer whose records are written where they were read (lib/kernel/json-text.ts). */
type WrittenUserList = { data: Omit<UserList["data"], "users"> & { users: JsonText<UserRecord>[] } };

export async function listUsers(auth: Principal, query: ListUsersQuery, notes: Notes): Promise<WrittenUserList> {
  const companyId = oid(auth.companyId);
  const filter = await userListFilter(companyId, query, notes);
  const order = userOrder(query);
  // `sort` is a filter of the scope, so a cursor of one order is refused by another (docs/api.md#cursor-paging).
  const scope = listScope(auth.companyId, "/v2/users", query);
  const read = await pageRead(query, order, scope);
  // The stored count is read beside the page, so a current count costs this thread no command
  // (docs/api.md#counters).
  const counted = query.count ? userCountKey(companyId, filter) : undefined;
  const found = await offThread("userPage", readWrittenUserPage, {
    companyId,
    filter: withCondition(filter, read.after),
    sort: read.sort,
    skip: read.skip,
    limit: read.limit,
    key: order.fields[0].name,
    ...(counted ? { counted } : {}),
  });
  const counter = counted ? await countUsers(companyId, filter, { key: counted, stored: found.counts }) : undefined;
  const page = await pageOfWritten(found, query, order, scope, (at) => [at.key, at.id]);
  return {
    data: {
      users: page.items,
      ...pageFields(query, page, counter),
    },
  };
}

/**
 * By the field `sort` names (docs/api.md#sorting), `_id` breaking ties, both in the direction
 * `orderBy` asks; each order has its index (./repository.ts).
 */
const userOrder = (query: Pick<ListUsersQuery, "orderBy" | "sort">): ListOrder => ({
  fields: [
    {
      name: USER_SORT_FIELDS[query.sort],
      type: query.sort === "modifiedAt" || query.sort === "createdAt" ? "date" : "string",
    },
    { name: "_id", type: "objectId" },
  ],
  direction: query.orderBy === "asc" ? 1 : -1,
});

/**
 * Every user the list's filters match, in the list's order, for a CSV or NDJSON stream
 * (docs/api.md#export, lib/kernel/export/stream.ts); the count of the matches, taken first, is the answer's `X-Total-Count`.
 */
export async function exportUsers(
  auth: Principal,
  query: ExportUsersQuery,
  notes: Notes,
): Promise<ExportSource<{ record: UserRecord; key: unknown }>> {
  const companyId = oid(auth.companyId);
  const filter = await userListFilter(companyId, query, notes);
  const order = userOrder(query);
  const sort = Object.fromEntries(order.fields.map((field) => [field.name, order.direction])) as Sort;
  const names = new ReferenceNames(companyId);
  return {
    name: "users",
    total: await countUsers(companyId, filter),
    batches: keysetBatches(
      async (after, limit) => {
        const found = await readUserPage({
          companyId,
          filter: withCondition(filter, after),
          sort,
          limit,
          key: order.fields[0].name,
          ...(query.format === "csv" ? { projection: CSV_FIELDS } : {}),
        });
        return found.records.map((record, index) => ({ record, key: found.keys[index] }));
      },
      order,
      (row) => [row.key, oid(row.record._id)],
    ),
    columns: USER_COLUMNS,
    rows: async (batch) => {
      const records = batch.map((row) => row.record);
      await names.load(userReferences(records));
      return records.map((user) => userRow(user, names));
    },
    records: (batch) => batch.map((row) => row.record),
  };
}

/**
 * After a write of users of these companies has committed (never inside its transaction): their
 * counts are no longer current in any process (docs/api.md#counters), and the user's cached
 * principal may be out of date.
 */
export async function usersChanged(companyIds: readonly ObjectId[], userId?: string): Promise<void> {
  if (userId !== undefined) forgetPrincipals(userId);
  await userCountsChanged(companyIds);
}

/** A user as `GET /v2/users/{id}` answers it, written on a read worker, with its tag (docs/api.md#conditional-requests). */
export async function userAnswer(auth: Principal, id: string): Promise<{ body: JsonText<UserRecord>; tag: string }> {
  const companyId = oid(auth.companyId);
  const { text, tag } = await offThread("writtenUser", readWrittenUser, {
    companyId,
    filter: userOfCompany(companyId, oid(id)),
  });
  if (text === null) throw notFound("user");
  return { body: new JsonText<UserRecord>(text), tag };
}

/** The signed-in user, as {@link userAnswer} answers it. */
export async function getMe(auth: Principal): Promise<{ body: JsonText<UserRecord>; tag: string }> {
  if (auth.apiKey)
    throw new ServiceError("not_found", "An API key acts for its company, not for a user: /v2/users/me names no user.");
  return userAnswer(auth, auth.userId);
}

// ---------------------------------------------------------------------------------------------
// Writing

export interface CreateUserOptions {
  notifyEmail: boolean;
  notes: Notes;
}

export async function createUser(
  auth: Principal,
  body: CreateUserBody,
  options: CreateUserOptions,
): Promise<UserRecord> {
  const companyId = oid(auth.companyId);
  // The references are checked first, before the scopes and the password's hash; with the scope
  // `admin` and no password nothing comes between, so the check goes with the write.
  const checkHere = !holdsScope(auth, "admin") || body.password !== undefined;
  if (checkHere) await checkBodyReferences(companyId, body);
  if (!holdsScope(auth, "admin")) {
    if (body.password !== undefined) requireScope(auth, "admin", "setting a password");
    if (await namesAdminRole(companyId, body.accessRoles)) requireScope(auth, "admin", "granting an admin access role");
  }
  const passwordHash = body.password === undefined ? undefined : await hashPassword(body.password);

  const now = new Date();
  const doc = newDoc({
    name: body.name,
    email: body.email,
    accessRoles: body.accessRoles.map(oid),
    properties: body.properties.map(oid),
    job: body.job ? oid(body.job) : null,
    bot: body.bot ? oid(body.bot) : null,
    phone: body.phone,
    isOnline: body.isOnline,
    termsConditions: body.termsConditions,
    companies: [emptyMembership(companyId, body.isActive)],
    createdAt: now,
    extensions: body.extensions,
  });
  // On a read worker when the process has one: this thread then sends none of the write's commands.
  const record = await offThread(
    "newUser",
    writeNewUser,
    {
      companyId,
      doc,
      ...(passwordHash ? { passwordHash } : {}),
      ...(checkHere ? {} : { references: referencesOf(body) }),
      context: requestContext(),
    },
    { once: true },
  );

  if (options.notifyEmail) {
    if (passwordHash) {
      options.notes.warning(
        "notify_email_ignored",
        "notifyEmail only works when no password is set; no e-mail was sent.",
        "notifyEmail",
      );
    } else {
      await inviteUser({ userId: doc._id, email: doc.email, companyId });
      options.notes.info("invitation_sent", `An invitation to set a password was sent to ${doc.email}.`);
    }
  }
  return record;
}

/** The ids a create's body names, for the check that goes with its write. */
const referencesOf = ({ accessRoles, properties, job, bot }: CreateUserBody): References => ({
  accessRoles,
  properties,
  ...(job ? { job } : {}),
  ...(bot ? { bot } : {}),
});

/**
 * Fields of the account itself, shared by every company the user belongs to. Only the person
 * themself, or an admin of every one of those companies, may change them; the rest of a user
 * (access roles, properties, the company's hierarchy entry, `isActive`) is per company and its
 * admins change it alone. See docs/security.md, "Who may change a user of several companies".
 */
const ACCOUNT_FIELDS = [
  "password",
  "name",
  "phone",
  "job",
  "bot",
  "extensions",
  "isOnline",
  "termsConditions",
] as const;

/**
 * Applies a PATCH as one atomic update pipeline, so concurrent PATCHes of one user never conflict:
 * each field is set as its request says (the last writer wins per field, name parts included) and
 * `modifiedAt` advances on each. Account-wide fields are guarded: the update applies only while
 * the user belongs to no company beyond those the caller was found entitled over; when that guard
 * (or "the user has a name" for a partial name) fails, the PATCH reads again and retries.
 */
/** What a change of a user sets off beyond the users (lib/resources/spanning/user-keys.ts: the keys an admin made). */
export interface UpdateHooks {
  /** The user stopped being an active admin of the company; after the commit. */
  adminLost?: (userId: ObjectId, companyId: ObjectId) => Promise<void>;
}

export async function updateUser(
  auth: Principal,
  id: string,
  body: UpdateUserBody,
  notes: Notes,
  ifMatch?: string,
  hooks: UpdateHooks = {},
): Promise<UserRecord> {
  const companyId = oid(auth.companyId);
  const userId = oid(id);
  await checkBodyReferences(companyId, body);
  const accountFields = ACCOUNT_FIELDS.filter((field) => body[field] !== undefined);
  const self = id === auth.userId;
  if (body.companies?.length) {
    const patch = body.companies[0];
    if (patch.companyId !== undefined && patch.companyId !== auth.companyId) {
      throw new ServiceError("invalid_request", "Only the caller's company entry can be changed.", [
        { path: "companies.0.companyId", message: "must be the caller's company" },
      ]);
    }
    if (patch._id !== undefined)
      notes.warning("ignored_field", "companies[]._id is set by the service and was ignored.", "companies.0._id");
  }

  let entitled: ObjectId[] | undefined;
  let passwordHash: string | undefined;
  let activityChanged = false;
  let adminLost = false;
  let changedCompanies: ObjectId[] = [];
  // The change and its event commit together; the transaction may run this again whole after a
  // write conflict, so it writes only to the database (docs/architecture.md#events).
  const record = await inTransaction(async () => {
    activityChanged = false;
    adminLost = false;
    const changed = await retryWhileRaced(async () => {
      // The whole stored user: the event's changes compare it, as the API shows it, with the result.
      const current = await findCompanyUser(companyId, userId, {});
      if (!current) throw notFound("user");
      const conditions: PatchConditions = {};
      if (ifMatch !== undefined) {
        const tag = storedUserTag(current);
        if (!matchesTag(ifMatch, tag)) throw preconditionFailed("user", tag);
        // The update applies only to the very version the tag names: a write in between makes
        // it match nothing, and the next attempt answers 412.
        conditions.version = current;
      }
      if (body.email !== undefined && body.email.trim().toLowerCase() !== current.email) {
        throw new ServiceError("immutable_field", "The e-mail of a user cannot be changed.", [
          { path: "email", message: "cannot be changed" },
        ]);
      }

      if (!holdsScope(auth, "admin")) await checkAdminPower(auth, companyId, current, body, accountFields);

      if (accountFields.length > 0 && !self) {
        const others = current.companies.filter((entry) => !entry.companyId.equals(companyId));
        if (others.length > 0) entitled ??= await adminCompanies(auth);
        const scope = others.length > 0 ? entitled! : [companyId];
        if (others.some((entry) => !scope.some((company) => company.equals(entry.companyId))))
          throw notEntitled(accountFields);
        // The user must still belong to no other company when the update applies.
        conditions.onlyCompanies = scope;
      }

      const patch: UserPatch = {};
      if (body.name !== undefined) {
        const complete = UserName.safeParse(body.name);
        const merged = complete.success ? complete : UserName.safeParse({ ...(current.name ?? {}), ...body.name });
        if (!merged.success) {
          throw new ServiceError(
            "invalid_request",
            "The name must have all four parts.",
            merged.error.issues.map((issue) => ({ path: ["name", ...issue.path].join("."), message: issue.message })),
          );
        }
        // Merged in the update when only some parts are sent, so concurrent PATCHes of different parts all apply.
        patch.name = complete.success ? { whole: complete.data } : { parts: body.name };
      }
      if (body.accessRoles) patch.accessRoles = await ownIds("accessRoles", body.accessRoles, current, companyId);
      if (body.properties) patch.properties = await ownIds("properties", body.properties, current, companyId);
      if (body.job !== undefined) patch.job = body.job ? oid(body.job) : null;
      if (body.bot !== undefined) patch.bot = body.bot ? oid(body.bot) : null;
      if (body.phone !== undefined) patch.phone = body.phone;
      if (body.isOnline !== undefined) patch.isOnline = body.isOnline;
      if (body.termsConditions !== undefined) patch.termsConditions = body.termsConditions;
      if (body.extensions !== undefined) patch.extensions = body.extensions;
      patch.membership = membershipPatch(body);

      // Hashed once, and only after the checks above: hashing is slow on purpose.
      if (body.password !== undefined) passwordHash ??= await hashPassword(body.password);
      const demotes = body.accessRoles !== undefined || body.isActive === false;
      if (demotes) {
        await adminChange(companyId);
        await refuseLastAdmin(companyId, current, body);
      }
      const updated = await applyUserPatch(userId, companyId, patch, conditions);
      if (!updated) return null;
      if (demotes) {
        await keepAnAdmin(companyId, current, updated);
        const roles = await adminRoleIds(companyId);
        adminLost = activeHolder(current, companyId, roles) && !activeHolder(updated, companyId, roles);
      }
      if (body.name !== undefined) updated.search = await storeSearchKeywords(updated);
      forgetPrincipals(id);
      // An account-wide field (the name, and so the search keywords) changes the user in each of its companies.
      changedCompanies = updated.companies.map((entry) => entry.companyId);
      activityChanged = wasActiveIn(current, companyId) !== wasActiveIn(updated, companyId);
      if (passwordHash) {
        await storePasswordHash(userId, passwordHash);
        // A new password ends every other way into the account; the caller's own session survives
        // a change of their own password (docs/security.md, "Passwords and tokens").
        await revokeSessions(userId, self ? { except: auth.sessionId } : {});
      }
      const [before, after] = await toUserRecords([current, updated], companyId);
      await recordChange({
        company: companyId,
        resource: "user",
        id: userId,
        action: "updated",
        before,
        after,
        ...userEventFields(passwordHash),
      });
      return after;
    });
    if (!changed) throw new ServiceError("conflict", "The user is being changed by other requests; try again.");
    return changed;
  });
  await usersChanged(changedCompanies, id);
  // Deactivation ends the user's sessions in this company, so a reactivation needs a new sign-in
  // (docs/security.md#passwords-and-tokens). After the commit, outside the transaction, so that
  // concurrent changes of one user do not conflict over the sessions; a reactivation ends them
  // again, so sessions a crash left between the two steps never come back either.
  if (activityChanged) await revokeSessions(userId, { companyId });
  if (adminLost && hooks.adminLost) await hooks.adminLost(userId, companyId);
  return record;
}

/** Whether any of `ids` is an access role of the company with `isAdmin: true`. */
export async function namesAdminRole(companyId: ObjectId, ids: readonly string[]): Promise<boolean> {
  if (ids.length === 0) return false;
  const admins = new Set((await adminRoleIds(companyId)).map((role) => role.toHexString()));
  return ids.some((id) => admins.has(id.toLowerCase()));
}

/**
 * Admin power is the scope `admin` (docs/security.md#scopes): a key without it sets no password,
 * grants or takes no admin role, and changes no account-wide field of a user who holds an admin
 * role; `403 insufficient_scope` before anything is written.
 */
async function checkAdminPower(
  auth: Principal,
  companyId: ObjectId,
  current: LeanUser,
  body: UpdateUserBody,
  accountFields: readonly string[],
): Promise<void> {
  if (body.password !== undefined) requireScope(auth, "admin", "setting a password");
  const admins = new Set((await adminRoleIds(companyId)).map((role) => role.toHexString()));
  const heldBefore = (current.accessRoles ?? []).map((role) => role.toHexString()).filter((role) => admins.has(role));
  if (body.accessRoles) {
    const heldAfter = new Set(body.accessRoles.map((role) => role.toLowerCase()).filter((role) => admins.has(role)));
    if (heldAfter.size !== new Set(heldBefore).size || heldBefore.some((role) => !heldAfter.has(role))) {
      requireScope(auth, "admin", "granting or taking an admin access role");
    }
  }
  if (accountFields.length > 0 && heldBefore.length > 0)
    requireScope(auth, "admin", `changing ${accountFields.join(", ")} of a user who holds an admin access role`);
}

/** Whether the user is an active member of the company. */
export const wasActiveIn = (user: Pick<LeanUser, "companies">, companyId: ObjectId) =>
  user.companies.some((entry) => entry.companyId.equals(companyId) && entry.isActive !== false);

/** Whether the user is an active member of the company holding one of `roles`. */
const activeHolder = (user: Pick<LeanUser, "accessRoles" | "companies">, companyId: ObjectId, roles: ObjectId[]) =>
  user.companies.some((entry) => entry.companyId.equals(companyId) && entry.isActive !== false) &&
  (user.accessRoles ?? []).some((role) => roles.some((admin) => admin.equals(role)));

const lastAdmin = (path: string) =>
  new ServiceError(
    "conflict",
    "The company must keep at least one admin access role held by an active user, and this change would leave none.",
    [{ path, message: "would leave the company without an active admin" }],
  );

/**
 * Refuses, before anything is written, a change that would take the company's last admin role
 * held by an active user from `before` (docs/api.md#the-last-admin-role).
 */
async function refuseLastAdmin(companyId: ObjectId, before: LeanUser, body: UpdateUserBody): Promise<void> {
  const roles = await adminRoleIds(companyId);
  if (!activeHolder(before, companyId, roles)) return;
  const own = new Set(roles.map((role) => role.toHexString()));
  const keepsRole = body.accessRoles === undefined || body.accessRoles.some((role) => own.has(role.toLowerCase()));
  if (keepsRole && body.isActive !== false) return;
  if (await activeMemberHolds(companyId, roles, before._id)) return;
  throw lastAdmin(keepsRole ? "isActive" : "accessRoles");
}

/**
 * The company keeps an admin role held by an active user (docs/api.md#the-last-admin-role): a
 * change that took the last one from `before` anyway, racing another (each checked before the
 * other wrote), is undone (its roles and membership flag put back) and answered `409`: of two
 * concurrent demotions of the last two admins, the later check sees both.
 */
async function keepAnAdmin(companyId: ObjectId, before: LeanUser, after: LeanUser): Promise<void> {
  const roles = await adminRoleIds(companyId);
  if (!activeHolder(before, companyId, roles) || activeHolder(after, companyId, roles)) return;
  if (await activeMemberHolds(companyId, roles)) return;
  const wasActive = before.companies.find((entry) => entry.companyId.equals(companyId))?.isActive !== false;
  await restoreAdminStanding(before._id, companyId, before.accessRoles ?? [], wasActive);
  forgetPrincipals(before._id.toHexString());
  throw lastAdmin(
    activeHolder({ ...after, accessRoles: before.accessRoles }, companyId, roles) ? "accessRoles" : "isActive",
  );
}

/** The caller's membership fields a PATCH changes: its hierarchy (per relation) and `isActive`. */
function membershipPatch(body: UpdateUserBody): UserPatch["membership"] {
  const hierarchy = body.companies?.[0]?.hierarchy;
  if (!hierarchy && body.isActive === undefined) return undefined;
  return {
    ...(hierarchy
      ? {
          hierarchy: Object.fromEntries(
            (["boss", "peers", "subordinate"] as const).flatMap((relation) =>
              hierarchy[relation] ? [[relation, hierarchy[relation].map(oid)]] : [],
            ),
          ),
        }
      : {}),
    ...(body.isActive !== undefined ? { isActive: body.isActive } : {}),
  };
}

/**
 * The ids a PATCH gives for `accessRoles` or `properties`; for a user of several companies, with
 * the ids of this kind the company has, so that the update keeps the other companies' ids
 * (another company's roles are not this company's to remove).
 */
async function ownIds(
  field: "accessRoles" | "properties",
  ids: string[],
  current: LeanUser,
  companyId: ObjectId,
): Promise<OwnIds> {
  const given = ids.map(oid);
  if (current.companies.length <= 1) return { ids: given };
  return { ids: given, companyHas: await companyIds(field, companyId) };
}

/**
 * The companies the caller is entitled over: those where they are an active member holding an
 * access role with `isAdmin: true`.
 */
export async function adminCompanies(auth: Principal): Promise<ObjectId[]> {
  // An API key is entitled over its own company only.
  if (auth.apiKey) return [oid(auth.companyId)];
  const caller = await findUserById(oid(auth.userId), { accessRoles: 1, companies: 1 });
  if (!caller) return [];
  const active = caller.companies.filter((entry) => entry.isActive !== false).map((entry) => entry.companyId);
  return adminRoleCompanies(caller.accessRoles, active);
}

const notEntitled = (fields: readonly string[]) =>
  new ServiceError(
    "forbidden",
    `The user also belongs to companies you are not an admin of: only the user themself, or an admin of every company they belong to, can change ${fields.join(", ")}. Nothing was changed.`,
    fields.map((field) => ({
      path: field,
      message: "is shared by every company of the user; you are not an admin of all of them",
    })),
  );
