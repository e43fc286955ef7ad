/**
 * User records as the API shows them (docs/api.md#the-user-record): the reads and the shaping
 * shared by the users service and the read workers (lib/services/read-tasks.ts). Nothing here
 * knows the caller beyond the company whose view it builds.
 */
import type { Document, Filter } from "mongodb";
import { AccessRole, Bot, JobTitle, Property, User } from "@/lib/models";
import { findDocs, type ReadOptions } from "@/lib/models/read";
import type { UserDoc } from "@/lib/models/user";
import type { UserRecord } from "@/lib/schemas/users";
import type { ObjectId } from "./ids";

export type LeanUser = Pick<UserDoc, keyof UserDoc>;

/** A read of user records for one company: the filter must already be scoped to it. */
export interface UserRecordsQuery extends Omit<ReadOptions, "projection"> {
  companyId: ObjectId;
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
export async function toUserRecords(docs: LeanUser[], companyId: ObjectId): Promise<UserRecord[]> {
  const shared = docs.filter((doc) => doc.companies.length > 1);
  const own = shared.length > 0 ? await ownReferences(shared, companyId) : undefined;
  return docs.map((doc) => toUserRecord(doc, companyId, doc.companies.length > 1 ? own : undefined));
}

async function ownReferences(docs: LeanUser[], companyId: ObjectId): Promise<Set<string>> {
  const ids = (pick: (doc: LeanUser) => (ObjectId | null | undefined)[]) =>
    [...new Set(docs.flatMap((doc) => pick(doc).filter((id): id is ObjectId => Boolean(id))))];
  const select = { _id: 1 } as const;
  const found = await Promise.all([
    AccessRole.find({ _id: { $in: ids((doc) => doc.accessRoles) }, company: companyId }, select).lean(),
    Property.find({ _id: { $in: ids((doc) => doc.properties) }, company: companyId }, select).lean(),
    JobTitle.find({ _id: { $in: ids((doc) => [doc.job]) }, company: companyId }, select).lean(),
    Bot.find({ _id: { $in: ids((doc) => [doc.bot]) }, company: companyId }, select).lean(),
  ]);
  return new Set(found.flat().map((record) => record._id.toHexString()));
}

const hex = (id: ObjectId) => id.toHexString();
const iso = (date: Date) => date.toISOString();

function toUserRecord(doc: LeanUser, companyId: ObjectId, own: Set<string> | undefined): UserRecord {
  const visible = (id: ObjectId | null | undefined) => (id && (!own || own.has(hex(id))) ? hex(id) : null);
  const visibleAll = (ids: ObjectId[]) => ids.map(visible).filter((id): id is string => id !== null);
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
