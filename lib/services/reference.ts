/**
 * The company's reference data (docs/api.md#reference-data): access roles, job titles, properties and bots. Each
 * kind is a list of named records of one company; names are unique within it.
 */
import { AccessRole, Bot, JobTitle, Property } from "@/lib/models";
import { findDocs, pageWindow } from "@/lib/models/read";
import type { AccessRoleRecord, CreateAccessRoleBody, CreateNamedBody, ListReferenceQuery } from "@/lib/schemas/reference";
import type { Principal } from "./auth";
import { isDuplicateKeyError, notFound, ServiceError } from "./errors";
import { newId, oid, type ObjectId } from "./ids";
import { escapeRegExp } from "./search";

const MODELS = { accessRoles: AccessRole, jobTitles: JobTitle, properties: Property, bots: Bot } as const;
export type ReferenceKind = keyof typeof MODELS;

interface ReferenceDoc {
  _id: ObjectId;
  company: ObjectId;
  name: string;
  isAdmin?: boolean;
  createdAt: Date;
  modifiedAt: Date;
}

/** The record as the API shows it; `isAdmin` only for access roles. */
type ReferenceRecord<K extends ReferenceKind> = K extends "accessRoles" ? AccessRoleRecord : Omit<AccessRoleRecord, "isAdmin">;

type ReferenceList<K extends ReferenceKind> = {
  data: { [P in K]: ReferenceRecord<K>[] } & { page: number; limit: number; counter?: number };
};

// One implementation for four models whose documents share the shape above.
const model = (kind: ReferenceKind) => MODELS[kind] as unknown as typeof JobTitle;

export async function listReference<K extends ReferenceKind>(auth: Principal, kind: K, query: ListReferenceQuery): Promise<ReferenceList<K>> {
  const filter: Record<string, unknown> = { company: oid(auth.companyId) };
  const search = query.search?.trim();
  // Case-insensitive prefix of the name, matched literally.
  if (search) filter.name = { $regex: `^${escapeRegExp(search)}`, $options: "i" };
  const [docs, counter] = await Promise.all([
    findDocs<ReferenceDoc>(model(kind), filter, { sort: { name: 1, _id: 1 }, ...pageWindow(query) }),
    query.count ? model(kind).countDocuments(filter) : undefined,
  ]);
  const records = docs.map((doc) => toReferenceRecord(kind, doc));
  return {
    data: { [kind]: records, page: query.page, limit: query.limit, ...(counter === undefined ? {} : { counter }) },
  } as ReferenceList<K>;
}

export async function createReference<K extends ReferenceKind>(
  auth: Principal,
  kind: K,
  body: K extends "accessRoles" ? CreateAccessRoleBody : CreateNamedBody,
): Promise<ReferenceRecord<K>> {
  const now = new Date();
  const doc: ReferenceDoc = { _id: newId(), company: oid(auth.companyId), name: body.name, createdAt: now, modifiedAt: now };
  if (kind === "accessRoles") doc.isAdmin = (body as CreateAccessRoleBody).isAdmin;
  try {
    await model(kind).collection.insertOne(doc);
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
  const doc = await model(kind).findOne({ _id: oid(id), company: oid(auth.companyId) }).lean<ReferenceDoc>();
  if (!doc) throw notFound("record");
  return toReferenceRecord(kind, doc);
}
