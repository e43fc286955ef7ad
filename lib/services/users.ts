/**
 * The users resource (docs/api.md#users): list, read, create, update.
 * Every query is scoped to the caller's company: a user of another company does not exist here.
 */
import type { Document, Filter } from "mongodb";
import type { QueryFilter } from "mongoose";
import { AccessRole, Bot, JobTitle, Property, User } from "@/lib/models";
import { pageWindow } from "@/lib/models/read";
import type { UserDoc } from "@/lib/models/user";
import {
  UserName,
  type CreateUserBody,
  type Hierarchy,
  type ListUsersQuery,
  type UpdateUserBody,
  type UserList,
  type UserRecord,
} from "@/lib/schemas/users";
import { forgetPrincipals, type Principal } from "./auth";
import { TtlCache } from "./cache";
import { isDuplicateKeyError, notFound, ServiceError } from "./errors";
import { newId, oid, type ObjectId } from "./ids";
import { inviteUser } from "./invitations";
import type { Notes } from "./notes";
import { offThread } from "./off-thread";
import { hashPassword, storePasswordHash } from "./passwords";
import { searchFilter, userKeywords } from "./search";
import { toUserRecords, type LeanUser } from "./user-records";

// ---------------------------------------------------------------------------------------------
// Reading

export async function listUsers(auth: Principal, query: ListUsersQuery, notes: Notes): Promise<UserList> {
  const companyId = oid(auth.companyId);
  const filter = await listFilter(companyId, query, notes);
  const direction = query.orderBy === "asc" ? 1 : -1;
  const [users, counter] = await Promise.all([
    offThread("userRecords", {
      companyId,
      filter: filter as Filter<Document>,
      sort: { modifiedAt: direction, _id: direction },
      ...pageWindow(query),
    }),
    query.count ? countUsers(companyId, filter) : undefined,
  ]);
  return {
    data: {
      users,
      page: query.page,
      limit: query.limit,
      ...(counter === undefined ? {} : { counter }),
    },
  };
}

/**
 * Counting reads every match, which for a broad search of a large company costs far more than a
 * page. The counter of one filter is therefore kept for 5 seconds, and for up to a minute an older
 * one is answered while a fresh one is counted in the background. Any write of a user through this
 * process forgets every counter at once; writes of other processes show within that minute.
 */
const counters = new TtlCache<number>({ ttlMs: 5_000, staleMs: 60_000 });

function countUsers(companyId: ObjectId, filter: QueryFilter<UserDoc>): Promise<number> {
  return counters.get(`${companyId.toHexString()}|${JSON.stringify(filter)}`, () => User.countDocuments(filter).exec());
}

/** After a write of users: counters and cached principals may be out of date. */
export function usersChanged(userId?: string): void {
  counters.clear();
  if (userId !== undefined) forgetPrincipals(userId);
}

async function listFilter(companyId: ObjectId, query: ListUsersQuery, notes: Notes): Promise<QueryFilter<UserDoc>> {
  const and: QueryFilter<UserDoc>[] = [];
  const filter: QueryFilter<UserDoc> = { "companies.companyId": companyId };
  if (query.isActive !== "all") filter.isActive = query.isActive === "true";

  if (query.search !== undefined) {
    const search = searchFilter(query.search);
    if (search) and.push(search);
    else notes.warning("empty_search", "The search holds no letters or digits and was ignored.", "search");
  }
  if (query.email) filter.email = { $in: query.email.map((email) => email.toLowerCase()) };
  if (query.bot) filter.bot = { $in: query.bot.map(oid) };
  if (query.id) filter._id = { $in: query.id.map(oid) };
  if (query.property) filter.properties = oid(query.property);
  if (query.accessRole) filter.accessRoles = oid(query.accessRole);
  if (query.job) filter.job = oid(query.job);

  const modified = range(query.modified, query.modified_gt, query.modified_gte, query.modified_lt, query.modified_lte);
  if (modified) filter.modifiedAt = modified;
  const created = range(query.created, query.created_gt, query.created_gte, query.created_lt, query.created_lte);
  if (created) filter.createdAt = created;

  if (query.relatedUser) and.push(await relatedFilter(companyId, oid(query.relatedUser), notes));
  if (and.length > 0) filter.$and = and;
  return filter;
}

function range(eq?: Date, gt?: Date, gte?: Date, lt?: Date, lte?: Date): Record<string, Date> | undefined {
  const condition: Record<string, Date> = {};
  if (eq) condition.$eq = eq;
  if (gt) condition.$gt = gt;
  if (gte) condition.$gte = gte;
  if (lt) condition.$lt = lt;
  if (lte) condition.$lte = lte;
  return Object.keys(condition).length > 0 ? condition : undefined;
}

/** Users who name `userId` in their hierarchy in this company, and those `userId` names there. */
async function relatedFilter(companyId: ObjectId, userId: ObjectId, notes: Notes): Promise<QueryFilter<UserDoc>> {
  const related = await User.findOne({ _id: userId, "companies.companyId": companyId }, { companies: 1 }).lean<LeanUser>();
  if (!related) {
    notes.warning("unknown_related_user", "relatedUser names no user of the company; no user is related.", "relatedUser");
    return { _id: { $in: [] } };
  }
  const membership = related.companies.find((entry) => entry.companyId.equals(companyId));
  const named = [
    ...(membership?.hierarchy?.boss ?? []),
    ...(membership?.hierarchy?.peers ?? []),
    ...(membership?.hierarchy?.subordinate ?? []),
  ];
  return {
    $or: [
      ...(["boss", "peers", "subordinate"] as const).map((relation) => ({
        companies: { $elemMatch: { companyId, [`hierarchy.${relation}`]: userId } },
      })),
      { _id: { $in: named } },
    ],
  };
}

export async function getUser(auth: Principal, id: string): Promise<UserRecord> {
  const companyId = oid(auth.companyId);
  const [user] = await offThread("userRecords", { companyId, filter: { _id: oid(id), "companies.companyId": companyId }, limit: 1 });
  if (!user) throw notFound("user");
  return user;
}

export const getMe = (auth: Principal): Promise<UserRecord> => getUser(auth, auth.userId);

// ---------------------------------------------------------------------------------------------
// Writing

export interface CreateUserOptions {
  notifyEmail: boolean;
  /** Where the invitation link points: `scheme://host` of the service. */
  origin: string;
  notes: Notes;
}

export async function createUser(auth: Principal, body: CreateUserBody, options: CreateUserOptions): Promise<UserRecord> {
  const companyId = oid(auth.companyId);
  await checkReferences(companyId, body);
  const passwordHash = body.password === undefined ? undefined : await hashPassword(body.password);

  const now = new Date();
  const doc = {
    _id: newId(),
    name: body.name ?? null,
    email: body.email,
    accessRoles: body.accessRoles.map(oid),
    properties: body.properties.map(oid),
    job: body.job ? oid(body.job) : null,
    bot: body.bot ? oid(body.bot) : null,
    phone: body.phone ?? null,
    isActive: body.isActive,
    isOnline: body.isOnline,
    termsConditions: body.termsConditions,
    search: userKeywords(body.name, body.email),
    companies: [emptyMembership(companyId)],
    lastRequestDate: null,
    createdAt: now,
    modifiedAt: now,
    extensions: body.extensions,
  };
  try {
    await User.collection.insertOne(doc);
  } catch (error) {
    if (isDuplicateKeyError(error)) throw duplicateEmail();
    throw error;
  }
  usersChanged();
  if (passwordHash) await storePasswordHash(doc._id, passwordHash);

  if (options.notifyEmail) {
    if (passwordHash) {
      options.notes.warning("notify_email_ignored", "notifyEmail only works when no password is set; no e-mail was sent.", "notifyEmail");
    } else {
      await inviteUser({ userId: doc._id, email: doc.email, companyId, origin: options.origin });
      options.notes.info("invitation_sent", `An invitation to set a password was sent to ${doc.email}.`);
    }
  }
  return (await toUserRecords([doc as unknown as LeanUser], companyId))[0];
}

export const emptyMembership = (companyId: ObjectId) => ({
  _id: newId(),
  companyId,
  hierarchy: { boss: [] as ObjectId[], peers: [] as ObjectId[], subordinate: [] as ObjectId[] },
});

const duplicateEmail = () =>
  new ServiceError("conflict", "A user with this e-mail already exists.", [{ path: "email", message: "is already in use" }]);

/** Retries of an update that lost a race with another update of the same user. */
const UPDATE_ATTEMPTS = 5;

export async function updateUser(auth: Principal, id: string, body: UpdateUserBody, notes: Notes): Promise<UserRecord> {
  const companyId = oid(auth.companyId);
  const userId = oid(id);
  await checkReferences(companyId, body);
  const passwordHash = body.password === undefined ? undefined : await hashPassword(body.password);

  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const current = await User.findOne({ _id: userId, "companies.companyId": companyId }).lean<LeanUser>();
    if (!current) throw notFound("user");
    if (body.email !== undefined && body.email.trim().toLowerCase() !== current.email) {
      throw new ServiceError("immutable_field", "The e-mail of a user cannot be changed.", [
        { path: "email", message: "cannot be changed" },
      ]);
    }

    const set: Record<string, unknown> = {};
    if (body.name !== undefined) {
      const merged = UserName.safeParse({ ...(current.name ?? {}), ...body.name });
      if (!merged.success) {
        throw new ServiceError(
          "invalid_request",
          "The name must have all four parts.",
          merged.error.issues.map((issue) => ({ path: ["name", ...issue.path].join("."), message: issue.message })),
        );
      }
      set.name = merged.data;
      set.search = userKeywords(merged.data, current.email);
    }
    const multiCompany = current.companies.length > 1;
    if (body.accessRoles) {
      set.accessRoles = [...body.accessRoles.map(oid), ...(multiCompany ? await foreign(AccessRole, current.accessRoles, companyId) : [])];
    }
    if (body.properties) {
      set.properties = [...body.properties.map(oid), ...(multiCompany ? await foreign(Property, current.properties, companyId) : [])];
    }
    if (body.job !== undefined) set.job = body.job ? oid(body.job) : null;
    if (body.bot !== undefined) set.bot = body.bot ? oid(body.bot) : null;
    if (body.phone !== undefined) set.phone = body.phone;
    if (body.isActive !== undefined) set.isActive = body.isActive;
    if (body.isOnline !== undefined) set.isOnline = body.isOnline;
    if (body.termsConditions !== undefined) set.termsConditions = body.termsConditions;
    if (body.extensions !== undefined) set.extensions = body.extensions;
    if (body.companies?.length) {
      const patch = body.companies[0];
      if (patch.companyId !== undefined && patch.companyId !== auth.companyId) {
        throw new ServiceError("invalid_request", "Only the caller's company entry can be changed.", [
          { path: "companies.0.companyId", message: "must be the caller's company" },
        ]);
      }
      if (patch._id !== undefined) notes.warning("ignored_field", "companies[]._id is set by the service and was ignored.", "companies.0._id");
      if (patch.hierarchy) {
        set.companies = current.companies.map((entry) =>
          entry.companyId.equals(companyId)
            ? {
                ...entry,
                hierarchy: {
                  boss: (patch.hierarchy?.boss ?? entry.hierarchy?.boss ?? []).map(oid),
                  peers: (patch.hierarchy?.peers ?? entry.hierarchy?.peers ?? []).map(oid),
                  subordinate: (patch.hierarchy?.subordinate ?? entry.hierarchy?.subordinate ?? []).map(oid),
                },
              }
            : entry,
        );
      }
    }
    // modifiedAt always advances, also within one millisecond; it doubles as the version that
    // makes this read-modify-write safe against a concurrent update.
    set.modifiedAt = new Date(Math.max(Date.now(), current.modifiedAt.getTime() + 1));

    const updated = await User.collection.findOneAndUpdate(
      { _id: userId, "companies.companyId": companyId, modifiedAt: current.modifiedAt },
      { $set: set },
      { returnDocument: "after" },
    );
    if (!updated) continue;
    usersChanged(id);
    if (passwordHash) await storePasswordHash(userId, passwordHash);
    return (await toUserRecords([updated as unknown as LeanUser], companyId))[0];
  }
  throw new ServiceError("conflict", "The user is being changed by other requests; try again.");
}

/** The ids of `ids` that are not records of the company (another company's roles...). */
async function foreign(model: typeof AccessRole | typeof Property, ids: ObjectId[], companyId: ObjectId): Promise<ObjectId[]> {
  if (ids.length === 0) return [];
  const own = await (model as typeof AccessRole).find({ _id: { $in: ids }, company: companyId }, { _id: 1 }).lean();
  return ids.filter((id) => !own.some((record) => record._id.equals(id)));
}

interface References {
  accessRoles?: string[];
  properties?: string[];
  job?: string | null;
  bot?: string | null;
  companies?: { hierarchy?: Partial<Hierarchy> }[];
}

/** Every id a body names must be a record of the caller's company (`400 unknown_reference`). */
async function checkReferences(companyId: ObjectId, body: References): Promise<void> {
  const hierarchy = body.companies?.[0]?.hierarchy;
  const checks: [string, string[], (ids: ObjectId[]) => Promise<{ _id: ObjectId }[]>][] = [
    ["accessRoles", body.accessRoles ?? [], (ids) => AccessRole.find({ _id: { $in: ids }, company: companyId }, { _id: 1 }).lean()],
    ["properties", body.properties ?? [], (ids) => Property.find({ _id: { $in: ids }, company: companyId }, { _id: 1 }).lean()],
    ["job", body.job ? [body.job] : [], (ids) => JobTitle.find({ _id: { $in: ids }, company: companyId }, { _id: 1 }).lean()],
    ["bot", body.bot ? [body.bot] : [], (ids) => Bot.find({ _id: { $in: ids }, company: companyId }, { _id: 1 }).lean()],
    ...(["boss", "peers", "subordinate"] as const).map(
      (relation) =>
        [
          `companies.0.hierarchy.${relation}`,
          hierarchy?.[relation] ?? [],
          (ids: ObjectId[]) => User.find({ _id: { $in: ids }, "companies.companyId": companyId }, { _id: 1 }).lean<{ _id: ObjectId }[]>(),
        ] as [string, string[], (ids: ObjectId[]) => Promise<{ _id: ObjectId }[]>],
    ),
  ];
  const details = (
    await Promise.all(
      checks.map(async ([path, ids, find]) => {
        if (ids.length === 0) return [];
        const found = new Set((await find(ids.map(oid))).map((record) => record._id.toHexString()));
        const single = path === "job" || path === "bot";
        return ids.flatMap((id, index) =>
          found.has(id) ? [] : [{ path: single ? path : `${path}.${index}`, message: `${id} names no such record of the company` }],
        );
      }),
    )
  ).flat();
  if (details.length > 0) {
    throw new ServiceError("unknown_reference", "The body names records that do not exist in the company.", details);
  }
}
