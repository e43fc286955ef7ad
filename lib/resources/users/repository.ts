/**
 * The users collection: the model, the only code that reads or writes it, and the shaping of
 * user records as the API shows them (docs/api.md#the-user-record), shared by the users service
 * and the read workers (lib/platform/startup/read-tasks.ts). Nothing here knows the caller beyond the
 * company whose view it builds.
 *
 * One way to the database: the driver, typed by the model's lean type (single-batch reads of
 * lib/kernel/models/read.ts, writes on the model's collection); the Mongoose schema declares the fields,
 * defaults and indexes.
 */
import {
  countKey,
  countsChanged,
  sharedCount,
  storedCounts,
  type CountKey,
  type StoredCount,
} from "@/lib/kernel/counts";
import { writtenPage, type WrittenPage } from "@/lib/kernel/cursor";
import { entityTag } from "@/lib/kernel/entity-tag";
import { newId, type ObjectId as Id } from "@/lib/kernel/ids";
import type { WrittenRecord } from "@/lib/kernel/json-text";
import { defineModel, driverCollection, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import { aggregateDocs, findDocs, findOneDoc, type ReadOptions } from "@/lib/kernel/models/read";
import { existingIds, type ReferenceKind } from "@/lib/resources/reference/repository";
import { nameSortKey, userKeywords } from "@/lib/resources/users/search";
import type { AnyBulkWriteOperation, Document, Filter } from "mongodb";
import mongoose, { Schema } from "mongoose";
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
    /** Keywords of the name and e-mail (./search.ts). */
    search: { type: [String], default: [] },
    /** The key of the order by name (./search.ts `nameSortKey`); never shown by the API. */
    nameSort: { type: String },
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
// (Adding companies.isActive to it would not serve the walk: `$ne: false` is two intervals, so the
// page would be sorted in memory.)
userSchema.index({ "companies.companyId": 1, createdAt: 1, _id: 1 });
// The other orders of the list (docs/api.md#sorting), each one company's index walked one way.
userSchema.index({ "companies.companyId": 1, nameSort: 1, _id: 1 });
userSchema.index({ "companies.companyId": 1, email: 1, _id: 1 });
// `search` and `companies` are both arrays, so they cannot share a compound index.
userSchema.index({ search: 1 });
userSchema.index({ accessRoles: 1 });
userSchema.index({ properties: 1 });
userSchema.index({ job: 1 });
userSchema.index({ bot: 1 });
userSchema.index({ "companies.hierarchy.boss": 1 });
userSchema.index({ "companies.hierarchy.peers": 1 });
userSchema.index({ "companies.hierarchy.subordinate": 1 });

export const User = defineModel("User", userSchema);

/** A user as stored (what `.lean()` reads). */
type UserDoc = mongoose.InferSchemaType<typeof userSchema> & { _id: mongoose.Types.ObjectId };

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
export function newDoc(user: NewUser): LeanUser {
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
    nameSort: nameSortKey(user.name, user.email),
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

/** A user as a read without Mongoose documents answers it: memberships are plain objects. */
export type LeanUser = Omit<UserDoc, "companies"> & { companies: StoredMembership[] };

/**
 * A read of user records for one company: the filter must already be scoped to it. With
 * `projection` ({@link CSV_FIELDS}) the records hold only the fields it names; the others are
 * absent or empty.
 */
export interface UserRecordsQuery extends ReadOptions {
  companyId: Id;
  filter: Filter<Document>;
}

/**
 * The stored fields a row of the users CSV reads (./columns.ts): the `search` keywords and the
 * `extensions` (up to 16 KiB a user) stay in the database, so an export allocates less per row.
 */
export const CSV_FIELDS: Readonly<Record<string, 1>> = {
  name: 1,
  email: 1,
  accessRoles: 1,
  properties: 1,
  job: 1,
  phone: 1,
  companies: 1,
  createdAt: 1,
  modifiedAt: 1,
};

export async function readUserRecords({ companyId, filter, ...options }: UserRecordsQuery): Promise<UserRecord[]> {
  return toUserRecords(await findDocs<LeanUser>(User, filter, options), companyId);
}

/**
 * The first record {@link readUserRecords} reads, as `GET /v2/users/{id}` answers it: written as
 * JSON where it was read (lib/kernel/json-text.ts), with its tag; `text` is `null` when there is none.
 */
export async function readWrittenUser(query: UserRecordsQuery): Promise<WrittenRecord> {
  const [record] = await readUserRecords({ ...query, limit: 1 });
  return record ? { text: JSON.stringify(record), tag: userTag(record) } : { text: null, tag: "" };
}

/** The stored field behind each order of the list (docs/api.md#sorting). */
export const USER_SORT_FIELDS = {
  modifiedAt: "modifiedAt",
  createdAt: "createdAt",
  name: "nameSort",
  email: "email",
} as const;

/**
 * A page of user records with each one's stored value of the sort field `key`: a cursor carries
 * the value the database ordered by (`nameSort` is not part of the record).
 */
export async function readUserPage({
  companyId,
  filter,
  key,
  counted,
  ...options
}: UserRecordsQuery & { key: string; counted?: CountKey }): Promise<{
  records: UserRecord[];
  keys: unknown[];
  /** With `counted` (the key of `count=true`'s filter, {@link userCountKey}): its stored count, for {@link countUsers}. */
  counts?: StoredCount[];
}> {
  const projection = options.projection ? { ...options.projection, [key]: 1 } : undefined;
  const [docs, counts] = await Promise.all([
    findDocs<LeanUser>(User, filter, { ...options, ...(projection ? { projection } : {}) }),
    counted ? storedCounts(counted) : undefined,
  ]);
  return {
    records: await toUserRecords(docs, companyId),
    keys: docs.map((doc) => (doc as unknown as Record<string, unknown>)[key]),
    ...(counts ? { counts } : {}),
  };
}

/** What a users list's cursor reads of a record: the stored value of the sort field, and the id. */
export interface UserPosition {
  key: unknown;
  id: string;
}

/**
 * {@link readUserPage} for the list's answer (./service.ts): each record written as JSON where it
 * was read (lib/kernel/json-text.ts), beside its position for the cursor.
 */
export async function readWrittenUserPage(
  query: Parameters<typeof readUserPage>[0],
): Promise<WrittenPage<UserPosition, UserRecord> & { counts?: StoredCount[] }> {
  const { records, keys, counts } = await readUserPage(query);
  return {
    ...writtenPage(records, (record, at) => ({ key: keys[at], id: record._id })),
    ...(counts ? { counts } : {}),
  };
}

const users = () => driverCollection<LeanUser>(User);

/** One user as stored, with only the fields of `projection` (and `_id`); `null` if none matches. */
const findUser = (filter: Filter<Document>, projection: Document): Promise<LeanUser | null> =>
  findOneDoc<LeanUser>(User, filter, projection);

/** The user `userId` with the fields of `projection` (all of them when empty); `null` if there is none. */
export const findUserById = (userId: Id, projection: Document): Promise<LeanUser | null> =>
  findUser({ _id: userId }, projection);

/** The user `userId` if it is a user of the company (all fields when `projection` is empty); else `null`. */
export const findCompanyUser = (companyId: Id, userId: Id, projection: Document): Promise<LeanUser | null> =>
  findUser({ _id: userId, "companies.companyId": companyId }, projection);

/** The user `userId` if it is an active member of the company (a membership without a flag is active); else `null`. */
export const findActiveMember = (companyId: Id, userId: Id, projection: Document): Promise<LeanUser | null> =>
  findUser({ _id: userId, companies: { $elemMatch: { companyId, isActive: { $ne: false } } } }, projection);

/** The user with this e-mail (stored lowercased: it is compared as given), whatever their companies. */
export const findUserByEmail = (email: string, projection: Document): Promise<LeanUser | null> =>
  findUser({ email }, projection);

/** The ids among `ids` that name users of the company, as hex strings. */
export async function existingUserIds(companyId: Id, ids: Id[]): Promise<Set<string>> {
  const found = await findDocs<{ _id: Id }>(
    User,
    { _id: { $in: ids }, "companies.companyId": companyId },
    { projection: { _id: 1 } },
  );
  return new Set(found.map((record) => record._id.toHexString()));
}

/** The display names of those of `ids` that are users of the company (the e-mail when unnamed). */
export async function userDisplayNames(companyId: Id, ids: Id[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const found = await findDocs<Pick<LeanUser, "_id" | "name" | "email">>(
    User,
    { _id: { $in: ids }, "companies.companyId": companyId },
    { projection: { name: 1, email: 1 } },
  );
  return new Map(found.map((user) => [user._id.toHexString(), displayNameOf(user)]));
}

/** The display name and e-mail of each of `ids` that is a user of the company. */
export async function userNamesAndEmails(
  companyId: Id,
  ids: Id[],
): Promise<Map<string, { name: string; email: string }>> {
  if (ids.length === 0) return new Map();
  const found = await findDocs<Pick<LeanUser, "_id" | "name" | "email">>(
    User,
    { _id: { $in: ids }, "companies.companyId": companyId },
    { projection: { name: 1, email: 1 } },
  );
  return new Map(found.map((user) => [user._id.toHexString(), { name: displayNameOf(user), email: user.email }]));
}

/** How a user is named to people: the display name, else first and last names, else the e-mail. */
export const displayNameOf = (user: Pick<LeanUser, "name" | "email">): string =>
  user.name?.displayName || [user.name?.names, user.name?.lastName].filter(Boolean).join(" ") || user.email;

/** Whether an active member of the company (other than `except`) holds one of `roleIds`. */
export async function activeMemberHolds(companyId: Id, roleIds: Id[], except?: Id): Promise<boolean> {
  if (roleIds.length === 0) return false;
  const filter = {
    accessRoles: { $in: roleIds },
    companies: { $elemMatch: { companyId, isActive: { $ne: false } } },
    ...(except ? { _id: { $ne: except } } : {}),
  };
  return (await findDocs(User, filter, { projection: { _id: 1 }, limit: 1 })).length > 0;
}

/** Whether an active member of the company other than those of `except` holds one of `roleIds`. */
export async function activeMemberHoldsExcept(companyId: Id, roleIds: Id[], except: Id[]): Promise<boolean> {
  if (roleIds.length === 0) return false;
  const filter = {
    accessRoles: { $in: roleIds },
    companies: { $elemMatch: { companyId, isActive: { $ne: false } } },
    _id: { $nin: except },
  };
  return (await findDocs(User, filter, { projection: { _id: 1 }, limit: 1 })).length > 0;
}

/** The e-mail addresses of the company's active members holding one of `roleIds` (its admins, given its admin roles). */
export async function activeHolderEmails(companyId: Id, roleIds: Id[]): Promise<string[]> {
  if (roleIds.length === 0) return [];
  const filter = { accessRoles: { $in: roleIds }, companies: { $elemMatch: { companyId, isActive: { $ne: false } } } };
  return (await findDocs<{ email: string }>(User, filter, { projection: { email: 1 }, limit: 100 })).map(
    (user) => user.email,
  );
}

/** The field of a user that holds each kind of reference data, and whether it is a list. */
const HELD_IN = {
  accessRoles: { field: "accessRoles", many: true },
  properties: { field: "properties", many: true },
  jobTitles: { field: "job", many: false },
  bots: { field: "bot", many: false },
} as const satisfies Record<ReferenceKind, { field: string; many: boolean }>;

/**
 * How many users of the company (active or not) hold each of `ids` of `kind`, by id as a hex
 * string; ids nobody holds are absent. Counted at each call through the field's index, never stored.
 */
export async function countHolders(kind: ReferenceKind, companyId: Id, ids: Id[]): Promise<Map<string, number>> {
  const { field, many } = HELD_IN[kind];
  const rows = await aggregateDocs<{ _id: Id; users: number }>(User, [
    { $match: { [field]: { $in: ids }, "companies.companyId": companyId } },
    { $project: { _id: 0, held: `$${field}` } },
    // A list field holds other ids too: only those asked for are counted.
    ...(many ? [{ $unwind: "$held" }, { $match: { held: { $in: ids } } }] : []),
    { $group: { _id: "$held", users: { $sum: 1 } } },
  ]);
  return new Map(rows.map((row) => [row._id.toHexString(), row.users]));
}

/** The first `limit` ids of the company's users, by id. */
export async function companyUserIds(companyId: Id, limit: number): Promise<Id[]> {
  const found = await findDocs<{ _id: Id }>(
    User,
    { "companies.companyId": companyId },
    { projection: { _id: 1 }, sort: { _id: 1 }, limit },
  );
  return found.map((record) => record._id);
}

/** The ids of the first `limit` users `filter` (scoped to a company) matches, by id. */
export async function matchingUserIds(filter: Filter<Document>, limit: number): Promise<Id[]> {
  const found = await findDocs<{ _id: Id }>(User, filter, { projection: { _id: 1 }, sort: { _id: 1 }, limit });
  return found.map((record) => record._id);
}

/** Inserts a document built by {@link newDoc}; a taken e-mail fails with the duplicate-key error. */
export async function insertUser(doc: LeanUser): Promise<void> {
  await users().insertOne(doc);
}

/** Inserts each document unless its `_id` is taken; answers how many were inserted. */
export async function insertUsersOnce(docs: LeanUser[]): Promise<number> {
  const operations: AnyBulkWriteOperation<LeanUser>[] = docs.map(({ _id, ...fields }) => ({
    updateOne: { filter: { _id }, update: { $setOnInsert: fields }, upsert: true },
  }));
  return (await users().bulkWrite(operations, { ordered: false })).upsertedCount;
}

/** A list of ids a PATCH gives (`accessRoles`, `properties`): the caller's company's. */
export interface OwnIds {
  ids: Id[];
  /**
   * For a user of several companies: the ids of this kind the caller's company has. The stored
   * ids outside them (other companies') are kept, as they are when the update applies.
   */
  companyHas?: Id[];
}

/** What a PATCH changes of a user, as the users service decided it (docs/api.md#users). */
export interface UserPatch {
  /** A whole name replaces the stored one; some of its parts are merged into it. */
  name?: { whole: UserName } | { parts: Partial<UserName> };
  accessRoles?: OwnIds;
  properties?: OwnIds;
  job?: Id | null;
  bot?: Id | null;
  phone?: string | null;
  isOnline?: boolean;
  termsConditions?: boolean;
  extensions?: Record<string, unknown>;
  /** The caller's membership: each relation of the hierarchy given replaces its list, and the flag. */
  membership?: { hierarchy?: Partial<Record<Relation, Id[]>>; isActive?: boolean };
}

type Relation = "boss" | "peers" | "subordinate";

/** What must still hold of the stored user for a PATCH to apply. */
export interface PatchConditions {
  /** The version read (a request's `If-Match`): any write since makes the patch match nothing. */
  version?: Pick<LeanUser, "modifiedAt" | "lastRequestDate" | "search">;
  /** The user belongs to no company beyond these (account-wide fields, docs/security.md). */
  onlyCompanies?: Id[];
}

/**
 * Applies a PATCH of a user of the company as one atomic update pipeline, so concurrent PATCHes
 * of one user never conflict: each field is set as its request says (the last writer wins per
 * field, name parts included) and `modifiedAt` moves strictly forward. The user after it, or
 * `null` when a condition failed (or a partial name found no name to merge into): read again and retry.
 */
export async function applyUserPatch(
  userId: Id,
  companyId: Id,
  patch: UserPatch,
  conditions: PatchConditions = {},
): Promise<LeanUser | null> {
  const filter: Document = { _id: userId, "companies.companyId": companyId };
  const { version, onlyCompanies } = conditions;
  if (version)
    Object.assign(filter, {
      modifiedAt: version.modifiedAt,
      lastRequestDate: version.lastRequestDate ?? null,
      search: version.search,
    });
  if (onlyCompanies) filter.companies = { $not: { $elemMatch: { companyId: { $nin: onlyCompanies } } } };

  const set: Document = {};
  if (patch.name) {
    if ("whole" in patch.name) {
      set.name = literal(patch.name.whole);
    } else {
      // Merged in the update, so concurrent PATCHes of different parts all apply. A stored name
      // always has all four parts, so the merge does too.
      filter.name = { $type: "object" };
      set.name = { $mergeObjects: ["$name", literal(patch.name.parts)] };
    }
  }
  if (patch.accessRoles) set.accessRoles = ownIds("accessRoles", patch.accessRoles);
  if (patch.properties) set.properties = ownIds("properties", patch.properties);
  for (const field of ["job", "bot", "phone", "isOnline", "termsConditions", "extensions"] as const) {
    if (patch[field] !== undefined) set[field] = literal(patch[field]);
  }
  if (patch.membership) {
    const { hierarchy, isActive } = patch.membership;
    const changes: Document = {};
    if (hierarchy) {
      changes.hierarchy = Object.fromEntries(
        (["boss", "peers", "subordinate"] as const).map((relation) => [
          relation,
          hierarchy[relation] ? literal(hierarchy[relation]) : { $ifNull: [`$$entry.hierarchy.${relation}`, []] },
        ]),
      );
    }
    if (isActive !== undefined) changes.isActive = literal(isActive);
    if (Object.keys(changes).length > 0) set.companies = changedMembership(companyId, changes);
  }
  set.modifiedAt = LATER_MODIFIED_AT();
  return users().findOneAndUpdate(filter, [{ $set: set }], { returnDocument: "after" });
}

/**
 * Puts back a user's access roles and membership flag in the company (a change that took the
 * company's last active admin, undone: docs/api.md#the-last-admin-role); `modifiedAt` moves on.
 */
export async function restoreAdminStanding(
  userId: Id,
  companyId: Id,
  accessRoles: Id[],
  isActive: boolean,
): Promise<void> {
  await users().findOneAndUpdate({ _id: userId }, [
    {
      $set: {
        accessRoles: literal(accessRoles),
        companies: changedMembership(companyId, { isActive: literal(isActive) }),
        modifiedAt: LATER_MODIFIED_AT(),
      },
    },
  ]);
}

/**
 * Stores the `search` keywords and the `nameSort` key of a name just written, unless the name has
 * changed since: then the PATCH that changed it stores its own. They are the name's either way.
 */
export async function storeSearchKeywords(user: Pick<LeanUser, "_id" | "name" | "email">): Promise<string[]> {
  const search = userKeywords(user.name as UserName | null, user.email);
  await users().updateOne(
    { _id: user._id, ...sameName(user.name) },
    { $set: { search, nameSort: nameSortKey(user.name as UserName | null, user.email) } },
  );
  return search;
}

/** A filter that holds while the stored name is still `name` (part by part, in any field order). */
function sameName(name: LeanUser["name"]): Document {
  if (!name) return { name: null };
  return Object.fromEntries(
    (["displayName", "names", "lastName", "secondLastName"] as const).map((part) => [
      `name.${part}`,
      name[part] ?? null,
    ]),
  );
}

// In a pipeline "$x" names a field: every client value goes in as a literal.
const literal = (value: unknown) => ({ $literal: value });

/** Strictly later than before, also within one millisecond or when clocks disagree. */
const LATER_MODIFIED_AT = () => ({ $max: [literal(new Date()), { $add: ["$modifiedAt", 1] }] });

/** The user's memberships with `changes` (expressions over `$$entry`) merged into the company's. */
const changedMembership = (companyId: Id, changes: Document): Document => ({
  $map: {
    input: "$companies",
    as: "entry",
    in: {
      $cond: [{ $eq: ["$$entry.companyId", literal(companyId)] }, { $mergeObjects: ["$$entry", changes] }, "$$entry"],
    },
  },
});

/**
 * The expression for `accessRoles` or `properties` after a PATCH: the given ids, plus, for a user
 * of several companies, the ids the stored list holds of other companies (another company's roles
 * are not this company's to remove). Evaluated in the update, so a concurrent change of another
 * company's ids is kept too.
 */
function ownIds(field: "accessRoles" | "properties", { ids, companyHas }: OwnIds): Document {
  if (!companyHas) return literal(ids);
  return {
    $concatArrays: [
      literal(ids),
      {
        $filter: {
          input: { $ifNull: [`$${field}`, []] },
          as: "id",
          cond: { $not: [{ $in: ["$$id", literal(companyHas)] }] },
        },
      },
    ],
  };
}

/** Sets `lastRequestDate` to `now` unless it is later than `since` (so it is written once per interval). */
export async function touchLastRequest(userId: Id, now: Date, since: Date): Promise<void> {
  await users().updateOne(
    { _id: userId, $or: [{ lastRequestDate: null }, { lastRequestDate: { $lte: since } }] },
    { $set: { lastRequestDate: now } },
  );
}

/** Adds a company membership (with its access role) to an existing user, `modifiedAt` moving forward. */
export async function addMembership(
  user: Pick<LeanUser, "_id" | "modifiedAt">,
  membership: StoredMembership,
  roleId: Id,
  now: Date,
): Promise<void> {
  await users().updateOne(
    { _id: user._id },
    {
      $push: { companies: membership },
      $addToSet: { accessRoles: roleId },
      $set: { modifiedAt: new Date(Math.max(now.getTime(), user.modifiedAt.getTime() + 1)) },
    },
  );
}

/**
 * How many users of the company `filter` (already scoped to it) matches: the count shared by every
 * server process through the database (lib/kernel/counts.ts, docs/api.md#counters).
 */
export const countUsers = (
  companyId: Id,
  filter: Filter<Document>,
  read: { key: CountKey; stored?: StoredCount[] } = { key: userCountKey(companyId, filter) },
): Promise<number> => sharedCount(read.key, companyId, () => users().countDocuments(filter), read.stored);

/** Which stored count {@link countUsers} reads for `filter`: made once, it crosses to a read worker in place of the filter. */
export const userCountKey = (companyId: Id, filter: Filter<Document>): CountKey => countKey("users", companyId, filter);

/** After a write of users of these companies has committed: their counts are no longer current. */
export const userCountsChanged = (companyIds: readonly Id[]): Promise<void> => countsChanged("users", companyIds);

/**
 * Users stored before the order by name get their `nameSort` key, once, at start (a few thousand
 * a write); the field's index is built by then, so a user without one would sort first.
 */
export async function backfillNameSort(): Promise<void> {
  const missing = users().find({ nameSort: { $exists: false } }, { projection: { name: 1, email: 1 } });
  let batch: AnyBulkWriteOperation<LeanUser>[] = [];
  for await (const user of missing) {
    batch.push({
      updateOne: {
        filter: { _id: user._id, nameSort: { $exists: false } },
        update: { $set: { nameSort: nameSortKey(user.name as UserName | null, user.email) } },
      },
    });
    if (batch.length === 1000) {
      await users().bulkWrite(batch, { ordered: false });
      batch = [];
    }
  }
  if (batch.length > 0) await users().bulkWrite(batch, { ordered: false });
}

/**
 * Records of earlier versions kept one `isActive` for the whole account: it becomes the flag of
 * each of its memberships that has none, once, at start.
 */
export async function backfillMembershipActive(): Promise<void> {
  await users().updateMany(
    { isActive: false },
    { $set: { "companies.$[entry].isActive": false } },
    { arrayFilters: [{ "entry.isActive": { $exists: false } }] },
  );
  await users().updateMany({ isActive: { $exists: true } }, { $unset: { isActive: "" } });
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
  const ids = (pick: (doc: LeanUser) => (Id | null | undefined)[]) => [
    ...new Set(docs.flatMap((doc) => pick(doc).filter((id): id is Id => Boolean(id)))),
  ];
  const references: [ReferenceKind, Id[]][] = [
    ["accessRoles", ids((doc) => doc.accessRoles)],
    ["properties", ids((doc) => doc.properties)],
    ["jobTitles", ids((doc) => [doc.job])],
    ["bots", ids((doc) => [doc.bot])],
  ];
  const found = await Promise.all(references.map(([kind, wanted]) => existingIds(kind, companyId, wanted)));
  return new Set(found.flatMap((set) => [...set]));
}

/**
 * The entity tag of a user: every write of a user moves `modifiedAt` (a PATCH, a membership
 * added), except the sign-in bookkeeping of `lastRequestDate` and the `search` keywords stored
 * after a new name; all three are in the tag, so it changes whenever the stored record does.
 */
export const userTag = (user: Pick<UserRecord, "_id" | "modifiedAt" | "lastRequestDate" | "search">): string =>
  entityTag("user", [user._id, user.modifiedAt, user.lastRequestDate, user.search]);

/** The tag of a user as stored (with at least the fields {@link userTag} reads). */
export const storedUserTag = (doc: Pick<LeanUser, "_id" | "modifiedAt" | "lastRequestDate" | "search">): string =>
  userTag({
    _id: hex(doc._id),
    modifiedAt: iso(doc.modifiedAt),
    lastRequestDate: doc.lastRequestDate ? iso(doc.lastRequestDate) : null,
    search: doc.search,
  });

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

// ---------------------------------------------------------------------------------------------
// Batches of the import (docs/api.md#import)

/** The users with these e-mails, whatever their companies (e-mail is unique across the service). */
export const findUsersByEmail = (emails: string[]): Promise<LeanUser[]> =>
  emails.length === 0
    ? Promise.resolve([])
    : findDocs<LeanUser>(User, { email: { $in: emails } }, { limit: emails.length });

/** Inserts documents built by {@link newDoc}; a taken e-mail fails the whole call with the duplicate-key error. */
export async function insertUsers(docs: LeanUser[]): Promise<void> {
  if (docs.length > 0) await users().insertMany(docs, { ordered: true });
}

/** Sets fields of the user while it is still the version read (`modifiedAt`); whether it was. */
export const setUserFields = async (user: Pick<LeanUser, "_id" | "modifiedAt">, fields: Document): Promise<boolean> =>
  (await users().updateOne({ _id: user._id, modifiedAt: user.modifiedAt }, { $set: fields })).matchedCount > 0;
