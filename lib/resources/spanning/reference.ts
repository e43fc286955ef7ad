/**
 * The company's reference data (docs/api.md#reference-data): access roles, job titles, properties and bots. Each
 * kind is a list of named records of one company; names are unique within it. It lives here, above
 * both lib/resources/reference and lib/resources/users, because it reads who holds each record and keeps the company's
 * last admin role held by an active user (docs/api.md#the-last-admin-role), while users only read
 * reference records.
 */
import type { EventResource } from "@/lib/base/schemas/event-types";
import { listScope, pageFields, pageOf, pageRead, withCondition, type ListOrder } from "@/lib/kernel/cursor";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { isDuplicateKeyError, notFound, ServiceError } from "@/lib/kernel/errors";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { requireScope } from "@/lib/kernel/scopes";
import { escapeRegExp } from "@/lib/kernel/text";
import { adminChange } from "@/lib/resources/companies/repository";
import { forgetPrincipals } from "@/lib/resources/credentials/sessions";
import { recordChange } from "@/lib/resources/events/service";
import {
  adminRoleIds,
  countReference,
  existingIds,
  findOneReference,
  findReference,
  insertReference,
  newDoc,
  restoreReference,
  updateReferenceWith,
  type ReferenceDoc,
  type ReferenceKind,
} from "@/lib/resources/reference/repository";
import type {
  AccessRoleRecord,
  CreateAccessRoleBody,
  CreateNamedBody,
  HoldersList,
  HoldersQuery,
  ListReferenceQuery,
  UpdateAccessRoleBody,
  UpdateNamedBody,
} from "@/lib/resources/reference/schemas";
import { activeMemberHolds, countHolders } from "@/lib/resources/users/repository";

/** The record as the API shows it; `isAdmin` only for access roles. */
type ReferenceRecord<K extends ReferenceKind> = K extends "accessRoles"
  ? AccessRoleRecord
  : Omit<AccessRoleRecord, "isAdmin">;

type ReferenceList<K extends ReferenceKind> = {
  data: { [P in K]: ReferenceRecord<K>[] } & { page?: number; limit: number; next: string | null; counter?: number };
};

export async function listReference<K extends ReferenceKind>(
  auth: Principal,
  kind: K,
  query: ListReferenceQuery,
): Promise<ReferenceList<K>> {
  const filter: Record<string, unknown> = { company: oid(auth.companyId) };
  const search = query.search?.trim();
  // Case-insensitive prefix of the name, matched literally.
  if (search) filter.name = { $regex: `^${escapeRegExp(search)}`, $options: "i" };
  const scope = listScope(auth.companyId, REFERENCE_PATHS[kind], query);
  const read = await pageRead(query, REFERENCE_ORDER, scope);
  const [docs, counter] = await Promise.all([
    findReference(kind, withCondition(filter, read.after), { sort: read.sort, skip: read.skip, limit: read.limit }),
    query.count ? countReference(kind, filter) : undefined,
  ]);
  const page = await pageOf(docs, query, REFERENCE_ORDER, scope, (doc) => [doc.name, doc._id]);
  const records = page.items.map((doc) => toReferenceRecord(kind, doc));
  return {
    data: {
      [kind]: records,
      ...pageFields(query, page, counter),
    },
  } as ReferenceList<K>;
}

/** By name, `_id` breaking ties (names are unique within a company, ids make it plain). */
const REFERENCE_ORDER: ListOrder = {
  fields: [
    { name: "name", type: "string" },
    { name: "_id", type: "objectId" },
  ],
  direction: 1,
};

/** The path of each kind's list: a cursor of one kind is no cursor of another. */
const REFERENCE_PATHS: Record<ReferenceKind, string> = {
  accessRoles: "/v2/access-roles",
  jobTitles: "/v2/job-titles",
  properties: "/v2/properties",
  bots: "/v2/bots",
};

export async function createReference<K extends ReferenceKind>(
  auth: Principal,
  kind: K,
  body: K extends "accessRoles" ? CreateAccessRoleBody : CreateNamedBody,
): Promise<ReferenceRecord<K>> {
  const isAdmin = kind === "accessRoles" ? (body as CreateAccessRoleBody).isAdmin : undefined;
  if (isAdmin === true) requireScope(auth, "admin", "an access role with isAdmin: true");
  const doc = newDoc(kind, { company: oid(auth.companyId), name: body.name, isAdmin, createdAt: new Date() });
  const record = toReferenceRecord(kind, doc);
  // The record and its event commit together (docs/architecture.md#events).
  await inTransaction(async () => {
    await uniqueName(insertReference(kind, doc));
    await recordChange({
      company: doc.company,
      resource: EVENT_RESOURCE[kind],
      id: doc._id,
      action: "created",
      after: record,
    });
  });
  return record;
}

/** The event resource of each kind (`accessRole.created`...). */
const EVENT_RESOURCE: Record<ReferenceKind, EventResource> = {
  accessRoles: "accessRole",
  jobTitles: "jobTitle",
  properties: "property",
  bots: "bot",
};

/** A write that may take a name the company already uses: that is `409 conflict` on `name`. */
async function uniqueName<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (isDuplicateKeyError(error)) {
      throw new ServiceError("conflict", "A record with this name already exists in the company.", [
        { path: "name", message: "is already in use" },
      ]);
    }
    throw error;
  }
}

type UpdateBody<K extends ReferenceKind> = K extends "accessRoles" ? UpdateAccessRoleBody : UpdateNamedBody;

/**
 * A PATCH of one record of the company. Taking `isAdmin` away from an access role must leave the
 * company an admin role held by an active member: the rule is checked before the write and again
 * after it, and a write that broke it is undone. Two racing demotions cannot both pass: each
 * writes the company's document in its transaction (adminChange()), so the later one conflicts,
 * runs again and sees the other (docs/architecture.md#events).
 */
export async function updateReference<K extends ReferenceKind>(
  auth: Principal,
  kind: K,
  id: string,
  body: UpdateBody<K>,
): Promise<ReferenceRecord<K>> {
  const companyId = oid(auth.companyId);
  const filter = { _id: oid(id), company: companyId };
  const changes = body as UpdateAccessRoleBody;
  // The change and its event commit together; the transaction may run this again whole after a
  // write conflict, so it writes only to the database (docs/architecture.md#events).
  const record = await inTransaction(async () => {
    const before = await findOneReference(kind, filter);
    if (!before) throw notFound("record");
    if (kind === "accessRoles" && changes.isAdmin !== undefined && changes.isAdmin !== (before.isAdmin === true)) {
      requireScope(auth, "admin", "changing isAdmin on an access role");
    }
    const demotes = kind === "accessRoles" && changes.isAdmin === false && before.isAdmin === true;
    if (demotes) await adminChange(companyId);
    if (demotes && !(await keepsAdmin(companyId, before._id))) throw lastAdminRole();

    const after = await uniqueName(updateReferenceWith(kind, filter, changes, new Date()));
    if (!after) throw notFound("record");
    if (demotes && !(await keepsAdmin(companyId))) {
      await undoDemotion(before, after);
      throw lastAdminRole();
    }
    const updated = toReferenceRecord(kind, after);
    await recordChange({
      company: companyId,
      resource: EVENT_RESOURCE[kind],
      id: after._id,
      action: "updated",
      before: toReferenceRecord(kind, before),
      after: updated,
    });
    return updated;
  });
  // Cached admin checks of this process rest on the roles' isAdmin: they are asked again.
  if (changes.isAdmin !== undefined) forgetPrincipals();
  return record;
}

/** Whether an active member of the company holds one of its admin roles (`except` left out). */
async function keepsAdmin(companyId: ObjectId, except?: ObjectId): Promise<boolean> {
  return activeMemberHolds(companyId, await adminRoleIds(companyId, except));
}

const lastAdminRole = () =>
  new ServiceError(
    "conflict",
    "The company must keep at least one admin access role held by an active user, and this change would leave none.",
    [{ path: "isAdmin", message: "is the last admin role held by an active user" }],
  );

/**
 * Puts back the role a PATCH demoted: as it was, when nothing has written it since; else only its
 * `isAdmin` (also when its old name has been taken meanwhile).
 */
async function undoDemotion(before: ReferenceDoc, after: ReferenceDoc): Promise<void> {
  const restored = await restoreReference(
    "accessRoles",
    { _id: after._id, modifiedAt: after.modifiedAt },
    {
      name: before.name,
      isAdmin: true,
      modifiedAt: before.modifiedAt,
    },
  ).catch((error: unknown) => {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  });
  if (!restored) await updateReferenceWith("accessRoles", { _id: after._id }, { isAdmin: true }, new Date());
}

/** How many users of the company hold each record asked for; ids of no record of the company count 0. */
export async function countReferenceHolders(
  auth: Principal,
  kind: ReferenceKind,
  query: HoldersQuery,
): Promise<HoldersList> {
  const companyId = oid(auth.companyId);
  const asked = query.id.map((id) => oid(id));
  // Only the company's own records are answered: another company's id is left out like an unknown
  // one, so the answer never names a record the caller cannot read.
  const known = await existingIds(kind, companyId, asked);
  const counts =
    known.size > 0
      ? await countHolders(
          kind,
          companyId,
          [...known].map((id) => oid(id)),
        )
      : new Map<string, number>();
  const holders = [...new Set(asked.map((id) => id.toHexString()))].filter((id) => known.has(id));
  return { data: { holders: holders.map((id) => ({ _id: id, users: counts.get(id) ?? 0 })) } };
}

function toReferenceRecord<K extends ReferenceKind>(kind: K, doc: ReferenceDoc): ReferenceRecord<K> {
  const record = {
    _id: doc._id.toHexString(),
    name: doc.name,
    company: doc.company.toHexString(),
    createdAt: doc.createdAt.toISOString(),
    modifiedAt: doc.modifiedAt.toISOString(),
  };
  return (kind === "accessRoles" ? { ...record, isAdmin: doc.isAdmin === true } : record) as ReferenceRecord<K>;
}

export async function getReference<K extends ReferenceKind>(
  auth: Principal,
  kind: K,
  id: string,
): Promise<ReferenceRecord<K>> {
  const doc = await findOneReference(kind, { _id: oid(id), company: oid(auth.companyId) });
  if (!doc) throw notFound("record");
  return toReferenceRecord(kind, doc);
}
