/**
 * Saved views (docs/api.md#saved-views). A view is a person's: private ones are seen by their
 * owner alone (to anyone else they do not exist: `404`), shared ones by every member of the
 * company. Only the owner changes or deletes a view; an admin may also tidy up a shared one.
 * Views are preferences, not company data: they raise no events.
 */
import { type ListOrder, listScope, pageFields, pageOf, pageRead } from "@/lib/kernel/cursor";
import { isDuplicateKeyError, notFound, ServiceError } from "@/lib/kernel/errors";
import { oid } from "@/lib/kernel/ids";
import { checkListQuery } from "@/lib/kernel/list-query";
import type { Principal } from "@/lib/kernel/principal";
import { holdsScope, requireScope } from "@/lib/kernel/scopes";
import { isAdmin } from "@/lib/resources/auth/service";
import { ListSurveysQuery } from "@/lib/resources/surveys/contract";
import { ListUsersQuery } from "@/lib/resources/users/contract";
import {
  type CreateViewBody,
  type ListViewsQuery,
  MAX_VIEWS_PER_OWNER,
  type UpdateViewBody,
  type ViewList,
  type ViewRecord,
  type ViewResource,
} from "./contract";
import {
  countOwnViews,
  countVisibleViews,
  deleteViewDoc,
  findView,
  findVisibleViews,
  insertView,
  nameKey,
  newViewDoc,
  updateViewDoc,
  type ViewDoc,
} from "./repository";

/** By name ignoring case, `_id` breaking ties. */
const BY_NAME: ListOrder = {
  fields: [
    { name: "nameKey", type: "string" },
    { name: "_id", type: "objectId" },
  ],
  direction: 1,
};

const LIST_SCHEMAS = { users: ListUsersQuery, surveys: ListSurveysQuery } as const;
/** Where a page is, not what it shows: never part of a view. */
const PAGING = ["page", "cursor", "count"];
/** The users page writes its date filters as days (lib/client/user-filters.ts). */
const DAY_PARAMETERS = [
  "created",
  "created_gt",
  "created_gte",
  "created_lt",
  "created_lte",
  "modified",
  "modified_gt",
  "modified_gte",
  "modified_lt",
  "modified_lte",
];

/** The query string as stored: checked with the list's own schema, paging dropped. */
const viewQuery = (resource: ViewResource, query: string): string =>
  checkListQuery(query, LIST_SCHEMAS[resource], {
    path: "query",
    drop: PAGING,
    days: resource === "users" ? DAY_PARAMETERS : [],
  }).query;

export async function listViews(auth: Principal, query: ListViewsQuery, adminHeader: string | null): Promise<ViewList> {
  const company = oid(auth.companyId);
  const owner = oid(auth.userId);
  const filter = { resource: query.resource, mine: query.mine };
  const scope = listScope(auth.companyId, "/v2/views", query);
  const read = await pageRead(query, BY_NAME, scope);
  const [docs, counter] = await Promise.all([
    findVisibleViews(company, owner, filter, {
      sort: read.sort as Record<string, 1 | -1>,
      skip: read.skip,
      limit: read.limit,
      after: read.after,
    }),
    query.count ? countVisibleViews(company, owner, filter) : undefined,
  ]);
  const page = await pageOf(docs, query, BY_NAME, scope, (doc) => [doc.nameKey, doc._id]);
  const moderator = await actsAsAdmin(auth, adminHeader);
  return {
    data: { views: page.items.map((doc) => toViewRecord(doc, auth, moderator)), ...pageFields(query, page, counter) },
  };
}

export async function createView(auth: Principal, body: CreateViewBody, now = new Date()): Promise<ViewRecord> {
  const query = viewQuery(body.resource, body.query);
  const company = oid(auth.companyId);
  const owner = oid(auth.userId);
  if ((await countOwnViews(company, owner, body.resource)) >= MAX_VIEWS_PER_OWNER) {
    throw new ServiceError(
      "conflict",
      `You already have ${MAX_VIEWS_PER_OWNER} saved views of this list; delete one first.`,
    );
  }
  const doc = newViewDoc({
    company,
    owner,
    resource: body.resource,
    name: body.name,
    query,
    shared: body.shared,
    createdAt: now,
  });
  try {
    await insertView(doc);
  } catch (error) {
    if (isDuplicateKeyError(error)) throw duplicateName();
    throw error;
  }
  return toViewRecord(doc, auth, false);
}

export async function getView(auth: Principal, id: string, adminHeader: string | null): Promise<ViewRecord> {
  return toViewRecord(await visibleView(auth, id), auth, await actsAsAdmin(auth, adminHeader));
}

export async function updateView(
  auth: Principal,
  id: string,
  body: UpdateViewBody,
  adminHeader: string | null,
  now = new Date(),
): Promise<ViewRecord> {
  const current = await editableView(auth, id, adminHeader);
  const fields: Partial<ViewDoc> = {};
  if (body.name !== undefined && body.name !== current.name)
    Object.assign(fields, { name: body.name, nameKey: nameKey(body.name) });
  if (body.query !== undefined) {
    const query = viewQuery(current.resource as ViewResource, body.query);
    if (query !== current.query) fields.query = query;
  }
  if (body.shared !== undefined && body.shared !== current.shared) fields.shared = body.shared;
  const moderator = await actsAsAdmin(auth, adminHeader);
  if (Object.keys(fields).length === 0) return toViewRecord(current, auth, moderator);
  let updated: ViewDoc | null;
  try {
    updated = await updateViewDoc(current.company, current._id, { ...fields, modifiedAt: now });
  } catch (error) {
    if (isDuplicateKeyError(error)) throw duplicateName();
    throw error;
  }
  if (!updated) throw notFound("view");
  return toViewRecord(updated, auth, moderator);
}

export async function deleteView(auth: Principal, id: string, adminHeader: string | null): Promise<void> {
  const current = await editableView(auth, id, adminHeader);
  if (!(await deleteViewDoc(current.company, current._id))) throw notFound("view");
}

/**
 * `Admin: true` from a holder of an admin role (or an API key with `views:write`) moderates shared
 * views. From anyone else it is not honoured rather than refused: the admin pages send it on every
 * request, and a member's own views must keep working.
 */
async function actsAsAdmin(auth: Principal, adminHeader: string | null): Promise<boolean> {
  if (adminHeader !== "true") return false;
  if (auth.apiKey) return holdsScope(auth, "views:write");
  return isAdmin(auth);
}

const owns = (auth: Principal, doc: ViewDoc) => doc.owner.equals(oid(auth.userId));

/** The caller's view or a shared one; anything else does not exist for the caller. */
async function visibleView(auth: Principal, id: string): Promise<ViewDoc> {
  const doc = await findView(oid(auth.companyId), oid(id));
  if (!doc || !(doc.shared || owns(auth, doc))) throw notFound("view");
  return doc;
}

async function editableView(auth: Principal, id: string, adminHeader: string | null): Promise<ViewDoc> {
  const doc = await visibleView(auth, id);
  if (owns(auth, doc) || (await actsAsAdmin(auth, adminHeader))) return doc;
  // Moderating another member's shared view is views:write, not reference:write (docs/security.md#scopes).
  if (auth.apiKey) requireScope(auth, "views:write", "changing or deleting another member's shared view");
  throw new ServiceError(
    "forbidden",
    "Only the owner of a view may change or delete it; an admin may too, with Admin: true.",
  );
}

const duplicateName = () =>
  new ServiceError("conflict", "You already have a view of this list with this name.", [
    { path: "name", message: "is already one of your views of this list" },
  ]);

function toViewRecord(doc: ViewDoc, auth: Principal, moderator: boolean): ViewRecord {
  return {
    _id: doc._id.toHexString(),
    resource: doc.resource as ViewResource,
    name: doc.name,
    query: doc.query ?? "",
    shared: doc.shared,
    ownerId: doc.owner.toHexString(),
    editable: owns(auth, doc) || (moderator && doc.shared),
    createdAt: doc.createdAt.toISOString(),
    modifiedAt: doc.modifiedAt.toISOString(),
  };
}
