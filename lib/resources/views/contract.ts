/**
 * Saved views (docs/api.md#saved-views): a named query string of the users or surveys list,
 * private to its owner or shared with the whole company, that the list pages save and reopen.
 */
import {
  isoDateTime,
  listEnvelope,
  objectId,
  pagingQuery,
  queryBoolean,
  singleLineText,
} from "@/lib/base/schemas/common";
import { type ComponentNames, operation, pagingParameters } from "@/lib/base/schemas/operation";
import { z } from "zod";

export const VIEW_RESOURCES = ["users", "surveys"] as const;
export const ViewResource = z.enum(VIEW_RESOURCES, { error: "must be users or surveys" });
export type ViewResource = z.infer<typeof ViewResource>;

/** Views one owner may keep per list: a bound on what one person stores, far above real use. */
export const MAX_VIEWS_PER_OWNER = 100;
/** Characters of a stored query string: every filter of the users list fits many times over. */
export const MAX_VIEW_QUERY = 4000;

const ViewName = singleLineText({ min: 1, max: 100 });
/** Checked against the list's own query schema by the service; a leading `?` is dropped. */
const ViewQuery = z
  .string({ error: "must be a string" })
  .max(MAX_VIEW_QUERY, { error: `must be at most ${MAX_VIEW_QUERY} characters` });

export const ViewRecord = z.object({
  _id: objectId,
  resource: ViewResource,
  name: z.string(),
  /** The list's query string without paging (`page`, `cursor`, `count`) and without a leading `?`. */
  query: z.string(),
  shared: z.boolean(),
  ownerId: objectId,
  /** Whether the caller may rename, change or delete it: its owner, or an admin (with `Admin: true`) for a shared one. */
  editable: z.boolean(),
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
});
export type ViewRecord = z.infer<typeof ViewRecord>;

export const CreateViewBody = z.strictObject({
  resource: ViewResource,
  name: ViewName,
  query: ViewQuery.default(""),
  shared: z.boolean({ error: "must be true or false" }).default(false),
});
export type CreateViewBody = z.infer<typeof CreateViewBody>;

export const UpdateViewBody = z.strictObject({
  name: ViewName.optional(),
  query: ViewQuery.optional(),
  shared: z.boolean({ error: "must be true or false" }).optional(),
});
export type UpdateViewBody = z.infer<typeof UpdateViewBody>;

export const ListViewsQuery = z.object({
  ...pagingQuery(100, 100),
  resource: ViewResource.optional(),
  /** `true`: only the caller's own views (private and shared). */
  mine: queryBoolean.default(false),
});
export type ListViewsQuery = z.infer<typeof ListViewsQuery>;

export const ViewList = listEnvelope("views", ViewRecord);
export type ViewList = z.infer<typeof ViewList>;

export const ViewIdParams = z.object({ id: objectId });

const TAG = "Saved views";
// Views are the admin pages' filters: an API key needs the scopes that read and change reference data.
const read = { scope: "reference:read" } as const;
const write = { scope: "reference:write" } as const;
const editRule =
  "Only its owner may change or delete a view; an admin sending `Admin: true` (an API key: with the scope `views:write` too, else `403 insufficient_scope`) may also change or delete a shared view of someone else. A private view of another user is `404`, as if it did not exist.";

export const list = operation({
  ...read,
  method: "get",
  path: "/v2/views",
  query: ListViewsQuery,
  doc: {
    tag: TAG,
    summary: "List saved views",
    description:
      "The caller's own views and the views shared with the company, by name (then `_id`). Every signed-in member of the company may list them.",
    status: 200,
    response: ViewList,
    adminOptional: true,
    parameters: {
      ...pagingParameters,
      resource: { description: "Only the views of this list: `users` or `surveys`." },
      mine: { description: "`true` lists only the caller's own views." },
    },
  },
});

export const create = operation({
  ...write,
  method: "post",
  path: "/v2/views",
  body: CreateViewBody,
  doc: {
    tag: TAG,
    summary: "Save a view",
    description: `Any member may save views, private (\`shared: false\`, the default) or shared with the whole company. \`query\` is checked as the list of \`resource\` would check it (\`400 invalid_request\` for a value the list refuses, and for a parameter the list does not know); paging parameters (\`page\`, \`cursor\`, \`count\`) are dropped. A day (\`2026-01-31\`) is accepted where the list takes a date-time, as the list pages write it. Names are unique per owner and list, ignoring case (\`409 conflict\`); an owner keeps at most ${MAX_VIEWS_PER_OWNER} views per list (\`409 conflict\`).`,
    status: 201,
    response: ViewRecord,
    errors: ["conflict"],
  },
});

export const readOne = operation({
  ...read,
  method: "get",
  path: "/v2/views/{id}",
  params: ViewIdParams,
  doc: {
    tag: TAG,
    summary: "Read a saved view",
    description: "A view of the caller's, or one shared with the company; a private view of another user is `404`.",
    status: 200,
    response: ViewRecord,
    adminOptional: true,
  },
});

export const update = operation({
  ...write,
  method: "patch",
  path: "/v2/views/{id}",
  params: ViewIdParams,
  body: UpdateViewBody,
  doc: {
    tag: TAG,
    summary: "Change a saved view",
    description: `\`name\`, \`query\` (checked as on create) and \`shared\`. ${editRule} Anyone else gets \`403 forbidden\` for a shared view.`,
    status: 200,
    response: ViewRecord,
    errors: ["conflict", "forbidden"],
    adminOptional: true,
  },
});

export const remove = operation({
  ...write,
  method: "delete",
  path: "/v2/views/{id}",
  params: ViewIdParams,
  doc: {
    tag: TAG,
    summary: "Delete a saved view",
    description: `${editRule} Anyone else gets \`403 forbidden\` for a shared view.`,
    status: 204,
    errors: ["forbidden"],
    adminOptional: true,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = {
  records: { SavedView: ViewRecord },
  answers: { SavedViewAnswer: ViewRecord, SavedViewList: ViewList },
};
