/**
 * The users collection: the model, and the reads and shaping of user records as the API shows
 * them (docs/api.md#the-user-record), shared by the users service and the read workers
 * (lib/services/read-tasks.ts). Nothing here knows the caller beyond the company whose view it
 * builds.
 */
import mongoose, { Schema } from "mongoose";
import type { Document, Filter } from "mongodb";
import { AccessRole, Bot, JobTitle, Property } from "@/lib/models";
import { defineModel, ObjectId, schemaOptions } from "@/lib/models/define";
import { findDocs, type ReadOptions } from "@/lib/models/read";
import { newId, type ObjectId as Id } from "@/lib/services/ids";
import { userKeywords } from "@/lib/services/search";
import type { UserName, UserRecord } from "./contract";

const ids = { type: [{ type: ObjectId }], default: [] };

const membershipSchema = new Schema(
  {
    companyId: { type: ObjectId, required: true },
    /**
     * Whether the user is active in this company: deactivating a member of one company leaves
     * their other memberships alone. Absent (records of earlier versions) means active.
     */
    isActive: { type: Boolean, default: true },
    hierarchy: {
      boss: ids,
      peers: ids,
      subordinate: ids,
    },
  },
  { strict: "throw" },
);

const userSchema = new Schema(
  {
    name: {
      type: new Schema(
        { displayName: String, names: String, lastName: String, secondLastName: String },
        { _id: false, strict: "throw" },
      ),
      default: null,
    },
    /** Stored lowercased; unique across the service. */
    email: { type: String, required: true },
    accessRoles: ids,
    properties: ids,
    job: { type: ObjectId, default: null },
    bot: { type: ObjectId, default: null },
    phone: { type: String, default: null },
    isOnline: { type: Boolean, required: true, default: false },
    termsConditions: { type: Boolean, required: true, default: false },
    /** Keywords of the name and e-mail (lib/services/search.ts). */
    search: { type: [String], default: [] },
    companies: { type: [membershipSchema], default: [] },
    lastRequestDate: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
    extensions: { type: Schema.Types.Mixed, default: () => ({}) },
  },
  { ...schemaOptions, collection: "users" },
);

userSchema.index({ email: 1 }, { unique: true });
// The default list: one company, newest modifiedAt first, _id breaking ties (and paging stable).
userSchema.index({ "companies.companyId": 1, modifiedAt: 1, _id: 1 });
// `isActive` is each membership's own flag: the lists match it with $elemMatch on the index above.
// (MongoDB could index companies.companyId with companies.isActive; the embedded database refuses
// two paths of one array as "parallel arrays".)
userSchema.index({ "companies.companyId": 1, createdAt: 1, _id: 1 });
// `search` and `companies` are both arrays, so they cannot share a compound index.
userSchema.index({ search: 1 });
userSchema.index({ accessRoles: 1 });
userSchema.index({ properties: 1 });
userSchema.index({ job: 1 });
userSchema.index({ bot: 1 });
userSchema.index({ "companies.hierarchy.boss": 1 });
userSchema.index({ "companies.hierarchy.peers": 1 });
userSchema.index({ "companies.hierarchy.subordinate": 1 });

export const User = defineModel("SvcUser", userSchema);

/** A user as stored (what `.lean()` reads). */
export type UserDoc = mongoose.InferSchemaType<typeof userSchema> & { _id: mongoose.Types.ObjectId };

/** A company membership as stored: its own active flag and hierarchy. */
export interface StoredMembership {
  _id: Id;
  companyId: Id;
  isActive?: boolean;
  hierarchy: { boss: Id[]; peers: Id[]; subordinate: Id[] };
}

/** What a new user is made of; every field left out takes the default of a new account. */
export interface NewUser {
  _id?: Id;
  email: string;
  name?: UserName | null;
  accessRoles?: Id[];
  properties?: Id[];
  job?: Id | null;
  bot?: Id | null;
  phone?: string | null;
  isOnline?: boolean;
  termsConditions?: boolean;
  companies: StoredMembership[];
  createdAt: Date;
  /** `createdAt` when left out. */
  modifiedAt?: Date;
  extensions?: Record<string, unknown>;
}

/**
 * A user document as stored, built in this one place for the service, the first admin of a
 * company, the seed and the benchmark, so a new field is added once. `search` always derives
 * from the name and e-mail.
 */
export function newDoc(user: NewUser) {
  return {
    _id: user._id ?? newId(),
    name: user.name ?? null,
    email: user.email,
    accessRoles: user.accessRoles ?? [],
    properties: user.properties ?? [],
    job: user.job ?? null,
    bot: user.bot ?? null,
    phone: user.phone ?? null,
    isOnline: user.isOnline ?? false,
    termsConditions: user.termsConditions ?? false,
    search: userKeywords(user.name, user.email),
    companies: user.companies,
    lastRequestDate: null,
    createdAt: user.createdAt,
    modifiedAt: user.modifiedAt ?? user.createdAt,
    extensions: user.extensions ?? {},
  };
}

/** A membership of a company with no hierarchy yet. */
export const emptyMembership = (companyId: Id, isActive = true): StoredMembership => ({
  _id: newId(),
  companyId,
  isActive,
  hierarchy: { boss: [], peers: [], subordinate: [] },
});

export type LeanUser = Pick<UserDoc, keyof UserDoc>;

/** A read of user records for one company: the filter must already be scoped to it. */
export interface UserRecordsQuery extends Omit<ReadOptions, "projection"> {
  companyId: Id;
  filter: Filter<Document>;
}

export async function readUserRecords({ companyId, filter, ...options }: UserRecordsQuery): Promise<UserRecord[]> {
  return toUserRecords(await findDocs<LeanUser>(User, filter, options), companyId);
}


/**
 * The records as the API shows them to one company: only that company's `companies` entry, and,
 * for a user who also belongs to other companies, only this company's roles, properties, job and
 * bot — nothing of another company leaks through a shared user.
 */
export async function toUserRecords(docs: LeanUser[], companyId: Id): Promise<UserRecord[]> {
  const shared = docs.filter((doc) => doc.companies.length > 1);
  const own = shared.length > 0 ? await ownReferences(shared, companyId) : undefined;
  return docs.map((doc) => toUserRecord(doc, companyId, doc.companies.length > 1 ? own : undefined));
}

async function ownReferences(docs: LeanUser[], companyId: Id): Promise<Set<string>> {
  const ids = (pick: (doc: LeanUser) => (Id | null | undefined)[]) =>
    [...new Set(docs.flatMap((doc) => pick(doc).filter((id): id is Id => Boolean(id))))];
  const select = { _id: 1 } as const;
  const found = await Promise.all([
    AccessRole.find({ _id: { $in: ids((doc) => doc.accessRoles) }, company: companyId }, select).lean(),
    Property.find({ _id: { $in: ids((doc) => doc.properties) }, company: companyId }, select).lean(),
    JobTitle.find({ _id: { $in: ids((doc) => [doc.job]) }, company: companyId }, select).lean(),
    Bot.find({ _id: { $in: ids((doc) => [doc.bot]) }, company: companyId }, select).lean(),
  ]);
  return new Set(found.flat().map((record) => record._id.toHexString()));
}

const hex = (id: Id) => id.toHexString();
const iso = (date: Date) => date.toISOString();

function toUserRecord(doc: LeanUser, companyId: Id, own: Set<string> | undefined): UserRecord {
  const visible = (id: Id | null | undefined) => (id && (!own || own.has(hex(id))) ? hex(id) : null);
  const visibleAll = (ids: Id[]) => ids.map(visible).filter((id): id is string => id !== null);
  const name = doc.name;
  return {
    _id: hex(doc._id),
    name: name
      ? {
          displayName: name.displayName ?? "",
          names: name.names ?? "",
          lastName: name.lastName ?? "",
          secondLastName: name.secondLastName ?? "",
        }
      : null,
    email: doc.email,
    accessRoles: visibleAll(doc.accessRoles),
    properties: visibleAll(doc.properties),
    job: visible(doc.job),
    bot: visible(doc.bot),
    phone: doc.phone ?? null,
    // Whether the user is active in this company: each membership has its own flag.
    isActive: doc.companies.find((entry) => entry.companyId.equals(companyId))?.isActive !== false,
    isOnline: doc.isOnline,
    termsConditions: doc.termsConditions,
    search: doc.search,
    companies: doc.companies
      .filter((entry) => entry.companyId.equals(companyId))
      .map((entry) => ({
        _id: hex(entry._id),
        companyId: hex(entry.companyId),
        hierarchy: {
          boss: (entry.hierarchy?.boss ?? []).map(hex),
          peers: (entry.hierarchy?.peers ?? []).map(hex),
          subordinate: (entry.hierarchy?.subordinate ?? []).map(hex),
        },
      })),
    lastRequestDate: doc.lastRequestDate ? iso(doc.lastRequestDate) : null,
    createdAt: iso(doc.createdAt),
    modifiedAt: iso(doc.modifiedAt),
    extensions: (doc.extensions ?? {}) as Record<string, unknown>,
  };
}
