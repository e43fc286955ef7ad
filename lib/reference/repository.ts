/**
 * The company's reference data (access roles, job titles, properties, bots): the only code that
 * reads or writes their collections. It reaches them through the driver (single-batch reads of
 * lib/models/read.ts, the model's collection for writes), typed by each model's lean type.
 */
import type { AnyBulkWriteOperation } from "mongodb";
import { AccessRole, Bot, JobTitle, Property } from "@/lib/models";
import { driverCollection } from "@/lib/models/define";
import { findDocs } from "@/lib/models/read";
import type { ObjectId } from "@/lib/services/ids";

const MODELS = { accessRoles: AccessRole, jobTitles: JobTitle, properties: Property, bots: Bot } as const;
export type ReferenceKind = keyof typeof MODELS;

const select = { projection: { _id: 1 } } as const;

/** The ids among `ids` that name records of `kind` of the company, as hex strings. */
export async function existingIds(kind: ReferenceKind, companyId: ObjectId, ids: ObjectId[]): Promise<Set<string>> {
  const found = await findDocs<{ _id: ObjectId }>(MODELS[kind], { _id: { $in: ids }, company: companyId }, select);
  return new Set(found.map((record) => record._id.toHexString()));
}

/** Every id of `kind` the company holds. */
export async function companyIds(kind: ReferenceKind, companyId: ObjectId): Promise<ObjectId[]> {
  return (await findDocs<{ _id: ObjectId }>(MODELS[kind], { company: companyId }, select)).map((record) => record._id);
}

/** The companies among `companies` in which one of `roleIds` is an access role with `isAdmin`. */
export async function adminRoleCompanies(roleIds: ObjectId[], companies: ObjectId[]): Promise<ObjectId[]> {
  const roles = await findDocs<{ company: ObjectId }>(AccessRole, { _id: { $in: roleIds }, company: { $in: companies }, isAdmin: true }, { projection: { company: 1 } });
  return roles.map((role) => role.company);
}

/** The ids of the company's records of `kind` with these names, by name (names not found are absent). */
export async function idsByName(kind: ReferenceKind, companyId: ObjectId, names: string[]): Promise<Map<string, ObjectId>> {
  const found = await findDocs<{ _id: ObjectId; name: string }>(MODELS[kind], { company: companyId, name: { $in: names } }, { projection: { _id: 1, name: 1 } });
  return new Map(found.map((record) => [record.name, record._id]));
}

/** A named record (not an access role) as stored. */
export interface NamedDoc {
  _id: ObjectId;
  company: ObjectId;
  name: string;
  createdAt: Date;
  modifiedAt: Date;
}

/**
 * Inserts each record unless its `_id` is taken (an upsert that only inserts); answers how many
 * were inserted. A name already taken in the company fails the write with the duplicate-key
 * error, after the other records are written.
 */
export async function insertNamedOnce(kind: Exclude<ReferenceKind, "accessRoles">, docs: NamedDoc[]): Promise<number> {
  const operations: AnyBulkWriteOperation<NamedDoc>[] = docs.map(({ _id, ...doc }) => ({
    updateOne: { filter: { _id }, update: { $setOnInsert: doc }, upsert: true },
  }));
  return (await driverCollection<NamedDoc>(MODELS[kind]).bulkWrite(operations, { ordered: false })).upsertedCount;
}
