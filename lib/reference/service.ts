/**
 * The company's reference data (docs/api.md#reference-data): access roles, job titles, properties and bots. Each
 * kind is a list of named records of one company; names are unique within it.
 */
import { listScope, type ListOrder, pageOf, pageRead, withCondition } from "@/lib/server/cursor";
import type { AccessRoleRecord, CreateAccessRoleBody, CreateNamedBody, ListReferenceQuery } from "@/lib/schemas/reference";
import type { Principal } from "@/lib/server/principal";
import { isDuplicateKeyError, notFound, ServiceError } from "@/lib/server/errors";
import { oid } from "@/lib/server/ids";
import { escapeRegExp } from "@/lib/server/text";
import { countReference, findOneReference, findReference, insertReference, newDoc, type ReferenceDoc, type ReferenceKind } from "./repository";

/** The record as the API shows it; `isAdmin` only for access roles. */
type ReferenceRecord<K extends ReferenceKind> = K extends "accessRoles" ? AccessRoleRecord : Omit<AccessRoleRecord, "isAdmin">;

type ReferenceList<K extends ReferenceKind> = {
  data: { [P in K]: ReferenceRecord<K>[] } & { page?: number; limit: number; next: string | null; counter?: number };
};

export async function listReference<K extends ReferenceKind>(auth: Principal, kind: K, query: ListReferenceQuery): Promise<ReferenceList<K>> {
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
      ...(query.cursor === undefined ? { page: query.page ?? 1 } : {}),
      limit: query.limit,
      next: page.next,
      ...(counter === undefined ? {} : { counter }),
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
  const doc = newDoc(kind, { company: oid(auth.companyId), name: body.name, isAdmin, createdAt: new Date() });
  try {
    await insertReference(kind, doc);
  } catch (error) {
    if (isDuplicateKeyError(error)) {
      throw new ServiceError("conflict", "A record with this name already exists in the company.", [{ path: "name", message: "is already in use" }]);
    }
    throw error;
  }
  return toReferenceRecord(kind, doc);
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

export async function getReference<K extends ReferenceKind>(auth: Principal, kind: K, id: string): Promise<ReferenceRecord<K>> {
  const doc = await findOneReference(kind, { _id: oid(id), company: oid(auth.companyId) });
  if (!doc) throw notFound("record");
  return toReferenceRecord(kind, doc);
}
