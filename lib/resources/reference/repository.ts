/**
 * The company's reference data (access roles, job titles, properties, bots): the only code that
 * reads or writes their collections. It reaches them through the driver (single-batch reads of
 * lib/kernel/models/read.ts, the model's collection for writes), typed by each model's lean type.
 */
import { newId, type ObjectId } from "@/lib/kernel/ids";
import { defineModel, driverCollection, ObjectId as ObjectIdType, schemaOptions } from "@/lib/kernel/models/define";
import { findDocs, findOneDoc, type ReadOptions } from "@/lib/kernel/models/read";
import type { AnyBulkWriteOperation, Document, Filter } from "mongodb";
import { Schema } from "mongoose";

function namedSchema(collection: string, extra: Record<string, unknown> = {}) {
  const schema = new Schema(
    {
      company: { type: ObjectIdType, required: true },
      name: { type: String, required: true },
      createdAt: { type: Date, required: true },
      modifiedAt: { type: Date, required: true },
      ...extra,
    },
    { ...schemaOptions, collection },
  );
  // Names are unique within a company; the list is sorted by name.
  schema.index({ company: 1, name: 1 }, { unique: true });
  return schema;
}

export const AccessRole = defineModel(
  "AccessRole",
  new Schema(
    {
      company: { type: ObjectIdType, required: true },
      name: { type: String, required: true },
      isAdmin: { type: Boolean, required: true, default: false },
      createdAt: { type: Date, required: true },
      modifiedAt: { type: Date, required: true },
    },
    { ...schemaOptions, collection: "accessroles" },
  ).index({ company: 1, name: 1 }, { unique: true }),
);
export const JobTitle = defineModel("JobTitle", namedSchema("jobtitles"));
export const Property = defineModel("Property", namedSchema("properties"));
export const Bot = defineModel("Bot", namedSchema("bots"));

const MODELS = { accessRoles: AccessRole, jobTitles: JobTitle, properties: Property, bots: Bot } as const;
export type ReferenceKind = keyof typeof MODELS;

const select = { projection: { _id: 1 } } as const;

/** A record of reference data as stored; `isAdmin` only on access roles. */
export interface ReferenceDoc {
  _id: ObjectId;
  company: ObjectId;
  name: string;
  isAdmin?: boolean;
  createdAt: Date;
  modifiedAt: Date;
}

/** A record of `kind` as stored, built in this one place (`isAdmin` only for access roles). */
export function newDoc(
  kind: ReferenceKind,
  record: { company: ObjectId; name: string; isAdmin?: boolean; createdAt: Date },
): ReferenceDoc {
  const doc: ReferenceDoc = {
    _id: newId(),
    company: record.company,
    name: record.name,
    createdAt: record.createdAt,
    modifiedAt: record.createdAt,
  };
  if (kind === "accessRoles") doc.isAdmin = record.isAdmin;
  return doc;
}

/** A page of the records of `kind` that `filter` (already scoped to a company) matches. */
export const findReference = (
  kind: ReferenceKind,
  filter: Filter<Document>,
  options: ReadOptions,
): Promise<ReferenceDoc[]> => findDocs<ReferenceDoc>(MODELS[kind], filter, options);

export const countReference = (kind: ReferenceKind, filter: Filter<Document>): Promise<number> =>
  driverCollection<ReferenceDoc>(MODELS[kind]).countDocuments(filter);

export const findOneReference = (kind: ReferenceKind, filter: Filter<Document>): Promise<ReferenceDoc | null> =>
  findOneDoc<ReferenceDoc>(MODELS[kind], filter);

/** Inserts a record built by {@link newDoc}; a name taken in the company fails with the duplicate-key error. */
export async function insertReference(kind: ReferenceKind, doc: ReferenceDoc): Promise<void> {
  await driverCollection<ReferenceDoc>(MODELS[kind]).insertOne(doc);
}

/** The fields a PATCH may change; `isAdmin` only on access roles. */
export interface ReferenceChanges {
  name?: string;
  isAdmin?: boolean;
}

/**
 * Applies `changes` to the record `filter` matches, `modifiedAt` advancing past its stored value
 * even within one millisecond; the record after it, or `null`. A name taken in the company fails
 * with the duplicate-key error.
 */
export function updateReferenceWith(
  kind: ReferenceKind,
  filter: Filter<Document>,
  changes: ReferenceChanges,
  now: Date,
): Promise<ReferenceDoc | null> {
  // $literal: a name such as "$x" is a value, not a field path, inside an update pipeline.
  const set: Document = { modifiedAt: { $max: [now, { $add: ["$modifiedAt", 1] }] } };
  for (const [field, value] of Object.entries(changes)) if (value !== undefined) set[field] = { $literal: value };
  return driverCollection<ReferenceDoc>(MODELS[kind]).findOneAndUpdate(filter, [{ $set: set }], {
    returnDocument: "after",
  });
}

/** Sets the stored fields of the record `filter` matches back to `fields`; whether one matched. */
export async function restoreReference(
  kind: ReferenceKind,
  filter: Filter<Document>,
  fields: Partial<ReferenceDoc>,
): Promise<boolean> {
  return (await driverCollection<ReferenceDoc>(MODELS[kind]).updateOne(filter, { $set: fields })).matchedCount > 0;
}

/** The ids of the company's access roles with `isAdmin`, but `except`. */
export async function adminRoleIds(companyId: ObjectId, except?: ObjectId): Promise<ObjectId[]> {
  const filter: Filter<Document> = { company: companyId, isAdmin: true };
  if (except) filter._id = { $ne: except };
  return (await findDocs<{ _id: ObjectId }>(AccessRole, filter, select)).map((role) => role._id);
}

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
  const roles = await findDocs<{ company: ObjectId }>(
    AccessRole,
    { _id: { $in: roleIds }, company: { $in: companies }, isAdmin: true },
    { projection: { company: 1 } },
  );
  return roles.map((role) => role.company);
}

/** The ids of the company's records of `kind` with these names, by name (names not found are absent). */
export async function idsByName(
  kind: ReferenceKind,
  companyId: ObjectId,
  names: string[],
): Promise<Map<string, ObjectId>> {
  const found = await findDocs<{ _id: ObjectId; name: string }>(
    MODELS[kind],
    { company: companyId, name: { $in: names } },
    { projection: { _id: 1, name: 1 } },
  );
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

/** The id of the company's access role `name`, inserted with `isAdmin` unless it exists. */
export async function upsertRole(
  companyId: ObjectId,
  name: string,
  isAdmin: boolean,
  now: Date,
): Promise<ObjectId | undefined> {
  const role = await driverCollection<{ _id: ObjectId }>(AccessRole).findOneAndUpdate(
    { company: companyId, name },
    { $setOnInsert: { isAdmin, createdAt: now, modifiedAt: now } },
    { upsert: true, returnDocument: "after", projection: { _id: 1 } },
  );
  return role?._id;
}

/** Whether one of `roleIds` is an access role of the company with `isAdmin`. */
export async function holdsAdminRole(roleIds: ObjectId[], companyId: ObjectId): Promise<boolean> {
  return (await AccessRole.exists({ _id: { $in: roleIds }, company: companyId, isAdmin: true })) !== null;
}
