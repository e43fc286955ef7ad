/**
 * The filters of the users lists and exports, built for the repository's reads
 * (./repository.ts): the service says which users it wants, this says it in MongoDB's terms.
 */
import { oid, type ObjectId } from "@/lib/kernel/ids";
import type { Notes } from "@/lib/kernel/notes";
import { searchFilter } from "@/lib/resources/users/search";
import type { Document, Filter } from "mongodb";
import type { ListUsersQuery } from "./contract";
import { findCompanyUser } from "./repository";

/** The filters of a users list query: everything but its paging and order. */
type UserFilters = Omit<ListUsersQuery, "page" | "cursor" | "limit" | "count" | "orderBy" | "sort" | "sortBy">;

/** The users of the company a list query's filters match (also the index test's filter). */
export async function userListFilter(companyId: ObjectId, query: UserFilters, notes: Notes): Promise<Filter<Document>> {
  const and: Filter<Document>[] = [];
  const filter: Filter<Document> = { "companies.companyId": companyId };
  // The flag is the membership's own; a membership of an earlier version without one is active.
  if (query.isActive === "true") filter.companies = { $elemMatch: { companyId, isActive: { $ne: false } } };
  if (query.isActive === "false") filter.companies = { $elemMatch: { companyId, isActive: false } };

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

/** The one user `userId` if it is a user of the company. */
export const userOfCompany = (companyId: ObjectId, userId: ObjectId): Filter<Document> => ({
  _id: userId,
  "companies.companyId": companyId,
});

/** Those of `ids` that are users of the company. */
export const usersOfCompany = (companyId: ObjectId, ids: ObjectId[]): Filter<Document> => ({
  _id: { $in: ids },
  "companies.companyId": companyId,
});

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
async function relatedFilter(companyId: ObjectId, userId: ObjectId, notes: Notes): Promise<Filter<Document>> {
  const related = await findCompanyUser(companyId, userId, { companies: 1 });
  if (!related) {
    notes.warning(
      "unknown_related_user",
      "relatedUser names no user of the company; no user is related.",
      "relatedUser",
    );
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
