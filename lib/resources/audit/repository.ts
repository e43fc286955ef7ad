/**
 * Audit entries: the only code that reads or writes their collection. An entry of a change is
 * inserted inside the transaction of that change (one insert, beside its event); sign-in entries
 * on their own. The database removes entries `AUDIT_RETENTION_DAYS` after `createdAt` through a
 * TTL index whose `expireAfterSeconds` follows the variable at every start (docs/architecture.md#audit-log).
 */
import { loadConfig } from "@/lib/base/config";
import { withCondition } from "@/lib/kernel/cursor";
import { currentSession, deferInsert } from "@/lib/kernel/db/transaction";
import { defineModel, driverCollection, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import { findDocs } from "@/lib/kernel/models/read";
import type { Document, Filter } from "mongodb";
import mongoose, { Schema } from "mongoose";

const auditSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    action: { type: String, required: true },
    resource: {
      type: new Schema(
        { type: { type: String, required: true }, id: { type: String, required: true } },
        { _id: false },
      ),
      required: true,
    },
    actor: {
      type: new Schema(
        {
          type: { type: String, required: true },
          id: { type: String, default: null },
          name: { type: String, required: true },
        },
        { _id: false },
      ),
      required: true,
    },
    changes: {
      type: [new Schema({ path: String, before: Schema.Types.Mixed, after: Schema.Types.Mixed }, { _id: false })],
      required: true,
    },
    requestId: { type: String, default: null },
    ip: { type: String, default: null },
    userAgent: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "auditLog" },
);
// Newest first within a company, by each filter the list offers; the TTL index is kept apart (below).
auditSchema.index({ company: 1, createdAt: -1, _id: -1 });
auditSchema.index({ company: 1, "resource.id": 1, createdAt: -1, _id: -1 });
auditSchema.index({ company: 1, "resource.type": 1, createdAt: -1, _id: -1 });
auditSchema.index({ company: 1, "actor.id": 1, createdAt: -1, _id: -1 });
auditSchema.index({ company: 1, action: 1, createdAt: -1, _id: -1 });
const AuditModel = defineModel("AuditEntry", auditSchema);

/** An entry as stored: the API's shape plus its company (values of `changes` are JSON as the API showed them). */
export interface AuditDoc {
  _id: mongoose.Types.ObjectId;
  company: mongoose.Types.ObjectId;
  action: string;
  resource: { type: string; id: string };
  actor: { type: string; id: string | null; name: string };
  changes: { path: string; before: unknown; after: unknown }[];
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
}
export type NewAuditDoc = Omit<AuditDoc, "_id">;

/** The name of the TTL index, so that a start finds it to change its expiry. */
const RETENTION_INDEX = "createdAt_ttl";

/**
 * Makes the TTL index expire entries after `days`: created when missing, changed in place with
 * `collMod` when the variable changed since the last start. Answers the seconds it now holds.
 */
export async function syncRetention(days = loadConfig().auditRetentionDays): Promise<number> {
  const seconds = days * 24 * 3600;
  const collection = AuditModel.collection;
  const indexes = await collection
    .listIndexes()
    .toArray()
    .catch((error: { codeName?: string }) => {
      if (error.codeName === "NamespaceNotFound") return [] as Document[];
      throw error;
    });
  const current = indexes.find((index) => index.name === RETENTION_INDEX);
  if (!current) {
    await collection.createIndex({ createdAt: 1 }, { name: RETENTION_INDEX, expireAfterSeconds: seconds });
  } else if (current.expireAfterSeconds !== seconds) {
    await AuditModel.db.db!.command({
      collMod: collection.collectionName,
      index: { name: RETENTION_INDEX, expireAfterSeconds: seconds },
    });
  }
  return seconds;
}

/** The model as `lib/resources/index.ts` lists it: building its indexes also sets the retention. */
export const AuditEntryModel = {
  modelName: AuditModel.modelName,
  async createIndexes(): Promise<void> {
    await AuditModel.createIndexes();
    await syncRetention();
  },
};

export const newAuditDoc = (doc: NewAuditDoc): AuditDoc => ({ _id: new mongoose.Types.ObjectId(), ...doc });

/**
 * Inserts entries in one write. Inside a transaction they are put off to its end with its events
 * (lib/kernel/db/transaction.ts), so a batch of thousands of changes writes its entries in one command.
 */
export async function insertAuditEntries(docs: AuditDoc[]): Promise<void> {
  if (currentSession()) for (const doc of docs) deferInsert(AuditModel.collection, doc);
  else if (docs.length === 1) await driverCollection<AuditDoc>(AuditModel).insertOne(docs[0]);
  else if (docs.length > 1) await driverCollection<AuditDoc>(AuditModel).insertMany(docs);
}

export interface AuditWindow {
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
  after?: Document;
}

/** The company's entries matching `filter` (already scoped to the company), in the window. */
/** What the audit log's list selects of a company's entries (docs/api.md#audit-log). */
interface AuditFilters {
  resourceType?: string;
  resourceId?: string;
  actorId?: string;
  /** Any of these actions. */
  action?: string[];
  from?: Date;
  to?: Date;
}

/** The company's entries that `filters` select. */
export function auditEntriesMatching(company: mongoose.Types.ObjectId, filters: AuditFilters): Filter<Document> {
  const filter: Filter<Document> = { company };
  if (filters.resourceType) filter["resource.type"] = filters.resourceType;
  if (filters.resourceId) filter["resource.id"] = filters.resourceId;
  if (filters.actorId) filter["actor.id"] = filters.actorId;
  if (filters.action) filter.action = filters.action.length === 1 ? filters.action[0] : { $in: filters.action };
  if (filters.from || filters.to)
    filter.createdAt = { ...(filters.from ? { $gte: filters.from } : {}), ...(filters.to ? { $lte: filters.to } : {}) };
  return filter;
}

export const findAuditEntries = (filter: Filter<Document>, window: AuditWindow): Promise<AuditDoc[]> =>
  findDocs<AuditDoc>(AuditModel, withCondition(filter, window.after), {
    sort: window.sort,
    skip: window.skip,
    limit: window.limit,
  });

export const countAuditEntries = (filter: Filter<Document>): Promise<number> =>
  driverCollection<AuditDoc>(AuditModel).countDocuments(filter);

/** The TTL index as the database holds it (for tests and the health of retention). */
export async function retentionIndex(): Promise<Document | undefined> {
  const indexes = await AuditModel.collection.listIndexes().toArray();
  return indexes.find((index) => index.name === RETENTION_INDEX);
}

/** The collection's model, for tests that read entries directly. */
export const AuditLog = AuditModel;
