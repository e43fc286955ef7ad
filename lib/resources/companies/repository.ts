/**
 * The companies collection (the tenants) and the bootstrap marker: the only code that reads or
 * writes them. One way to the database: Mongoose models with typed lean results.
 */
import { DEFAULT_TIME_ZONE } from "@/lib/base/shared/days";
import { currentSession } from "@/lib/kernel/db/transaction";
import type { ObjectId } from "@/lib/kernel/ids";
import { Meta } from "@/lib/kernel/models";
import { defineModel, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";

const companySchema = new Schema(
  {
    name: { type: String, required: true },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
    /** The zone of a day in every date filter (docs/api.md#days); absent on companies of earlier versions: UTC. */
    timeZone: { type: String, default: DEFAULT_TIME_ZONE },
    /** Written by every change that may take away the company's last admin role (adminChange()). */
    adminChanges: { type: Number, default: 0 },
  },
  { ...schemaOptions, collection: "companies" },
);

export const Company = defineModel("Company", companySchema);

export type CompanyDoc = mongoose.InferSchemaType<typeof companySchema> & { _id: mongoose.Types.ObjectId };

/** A company document as stored, built in this one place. */
export const newDoc = (company: { _id: ObjectId; name: string; createdAt: Date }): CompanyDoc => ({
  _id: company._id,
  name: company.name,
  createdAt: company.createdAt,
  modifiedAt: company.createdAt,
  timeZone: DEFAULT_TIME_ZONE,
  adminChanges: 0,
});

export async function insertCompany(doc: CompanyDoc): Promise<void> {
  await Company.create(doc);
}

/** Inserts the company unless one with its `_id` exists. */
export async function insertCompanyOnce(doc: CompanyDoc): Promise<void> {
  const { _id, ...fields } = doc;
  await Company.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true });
}

/** Every company, oldest first. */
export const findCompanies = (): Promise<CompanyDoc[]> =>
  Company.find({}).sort({ createdAt: 1, _id: 1 }).lean<CompanyDoc[]>();

/** The company's settings as stored, or `null` if there is no such company. */
export async function findCompanySettings(
  id: ObjectId,
): Promise<Pick<CompanyDoc, "_id" | "name" | "timeZone" | "modifiedAt"> | null> {
  return Company.findById(id, { name: 1, timeZone: 1, modifiedAt: 1 }).lean();
}

/** Sets settings of the company, `modifiedAt` moving to `now`; the company after, or `null`. */
export async function setCompanySettings(
  id: ObjectId,
  fields: { name?: string; timeZone?: string },
  now: Date,
): Promise<Pick<CompanyDoc, "_id" | "name" | "timeZone" | "modifiedAt"> | null> {
  return Company.findOneAndUpdate(
    { _id: id },
    { $set: { ...fields, modifiedAt: now } },
    { returnDocument: "after", projection: { name: 1, timeZone: 1, modifiedAt: 1 } },
  ).lean();
}

/** The company's name, or `undefined` if there is no such company. */
export async function companyName(id: ObjectId): Promise<string | undefined> {
  return (await Company.findById(id, { name: 1 }).lean())?.name;
}

/**
 * Marks the transaction around the caller as one that may take away the company's last admin
 * role, by writing the company's document: two such transactions conflict, so the later runs
 * again and its checks see what the earlier committed, where two snapshots would each see the
 * other's admin still there (docs/architecture.md#events).
 */
export async function adminChange(company: ObjectId): Promise<void> {
  await Company.updateOne({ _id: company }, { $inc: { adminChanges: 1 } }, { session: currentSession() });
}

export async function anyCompany(): Promise<boolean> {
  return (await Company.exists({})) !== null;
}

// ---------------------------------------------------------------------------------------------
// The bootstrap marker: which company the bootstrap made, and whether it finished.

const BOOTSTRAP = "bootstrap";

export interface BootstrapMarker {
  companyId: ObjectId | null;
  done: boolean;
}

export async function readBootstrapMarker(): Promise<BootstrapMarker | null> {
  const marker = await Meta.findById(BOOTSTRAP).lean();
  return marker ? { companyId: marker.companyId ?? null, done: marker.done === true } : null;
}

/** Marks data from before the bootstrap existed as bootstrapped (a no-op once a marker exists). */
export async function markBootstrappedBefore(): Promise<void> {
  await Meta.updateOne(
    { _id: BOOTSTRAP },
    { $setOnInsert: { companyId: null, createdAt: new Date(), done: true } },
    { upsert: true },
  );
}

/** The marker, claimed with a new company id unless another process claimed it first. */
export async function claimBootstrapMarker(companyId: ObjectId, now: Date): Promise<BootstrapMarker | null> {
  const marker = await Meta.findOneAndUpdate(
    { _id: BOOTSTRAP },
    { $setOnInsert: { companyId, createdAt: now } },
    { upsert: true, returnDocument: "after" },
  ).lean();
  return marker ? { companyId: marker.companyId ?? null, done: marker.done === true } : null;
}

export async function finishBootstrapMarker(): Promise<void> {
  await Meta.updateOne({ _id: BOOTSTRAP }, { $set: { done: true } });
}
