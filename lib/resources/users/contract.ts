/**
 * Users: the record, the create and update bodies and the list query
 * (docs/api.md#users).
 */
import {
  idList,
  isoDateTime,
  listEnvelope,
  objectId,
  pagingQuery,
  Password,
  queryBoolean,
  queryDateTime,
  queryIdList,
  singleLineText,
} from "@/lib/base/schemas/common";
import { exportFormat, exportParameterDocs, LIST_PAGING, withoutPaging } from "@/lib/base/schemas/export";
import { type ComponentNames, operation, pagingParameters, repeated } from "@/lib/base/schemas/operation";
import { z } from "zod";

const namePart = singleLineText({ min: 1, max: 200 });

export const UserName = z.strictObject({
  displayName: namePart,
  names: namePart,
  lastName: namePart,
  secondLastName: singleLineText({ max: 200 }),
});
export type UserName = z.infer<typeof UserName>;

export const Hierarchy = z.object({
  boss: z.array(objectId),
  peers: z.array(objectId),
  subordinate: z.array(objectId),
});
export type Hierarchy = z.infer<typeof Hierarchy>;

export const UserRecord = z.object({
  _id: objectId,
  name: UserName.nullable(),
  email: z.string(),
  accessRoles: z.array(objectId),
  properties: z.array(objectId),
  job: objectId.nullable(),
  bot: objectId.nullable(),
  phone: z.string().nullable(),
  isActive: z.boolean(),
  isOnline: z.boolean(),
  termsConditions: z.boolean(),
  search: z.array(z.string()),
  companies: z.array(z.object({ _id: objectId, companyId: objectId, hierarchy: Hierarchy })),
  lastRequestDate: isoDateTime.nullable(),
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
  extensions: z.record(z.string(), z.unknown()),
});
export type UserRecord = z.infer<typeof UserRecord>;

export const UserList = listEnvelope("users", UserRecord);
export type UserList = z.infer<typeof UserList>;

export const MAX_EXTENSIONS_BYTES = 16 * 1024;

/**
 * Levels of objects and arrays `extensions` may nest (itself the first): MongoDB refuses documents
 * nested past 100 levels, and the embedded database would store them, so the limit is ours.
 */
export const MAX_EXTENSIONS_DEPTH = 20;

/** Free-form data of a user: a JSON object of at most 16 KiB whose keys MongoDB can store. */
export const Extensions = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    if (nestsDeeperThan(value, MAX_EXTENSIONS_DEPTH)) {
      // The other checks walk the value recursively: a deep one is refused before them.
      ctx.addIssue({
        code: "custom",
        message: `must nest at most ${MAX_EXTENSIONS_DEPTH} levels of objects and arrays`,
      });
      return;
    }
    // TextEncoder, not Buffer: the admin pages check the same schema in the browser.
    const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
    if (bytes > MAX_EXTENSIONS_BYTES) {
      ctx.addIssue({ code: "custom", message: `must be at most ${MAX_EXTENSIONS_BYTES} bytes of JSON (is ${bytes})` });
    }
    for (const path of badKeys(value, [])) {
      ctx.addIssue({ code: "custom", path, message: "keys must not start with $ or contain . or NUL" });
    }
  })
  .meta({
    description: `A free-form JSON object: at most ${MAX_EXTENSIONS_BYTES} bytes of JSON, nested at most ${MAX_EXTENSIONS_DEPTH} levels deep; keys must not start with $ or contain . or NUL.`,
  });

/** Whether objects and arrays nest more than `max` levels, walked without recursion. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth > max) return true;
    for (const item of Object.values(node)) stack.push([item, depth + 1]);
  }
  return false;
}

function* badKeys(value: unknown, path: (string | number)[]): Generator<(string | number)[]> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* badKeys(item, [...path, index]);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (key.startsWith("$") || key.includes(".") || key.includes("\0")) yield [...path, key];
      yield* badKeys(item, [...path, key]);
    }
  }
}

export const Email = singleLineText({ max: 254 })
  // Unicode local parts and domains are allowed: the documented example is Ana.Pérez@Acme.io (docs/api.md#searching-users).
  .pipe(z.email({ pattern: z.regexes.unicodeEmail, error: "must be an e-mail address" }))
  .transform((value) => value.toLowerCase());

const phone = singleLineText({ max: 50 });

/** Fields the service sets; in a body they are ignored with a debug warning (docs/api.md#creating-a-user). */
export const SERVER_MANAGED_USER_FIELDS = ["_id", "search", "createdAt", "modifiedAt", "lastRequestDate", "__v"];

export const CreateUserBody = z.strictObject({
  email: Email,
  accessRoles: idList(100).pipe(z.array(z.string()).min(1, { error: "must name at least one access role" })),
  name: UserName.optional(),
  properties: idList().default([]),
  job: objectId.nullable().optional(),
  bot: objectId.nullable().optional(),
  phone: phone.nullable().optional(),
  isActive: z.boolean().default(true),
  isOnline: z.boolean().default(false),
  termsConditions: z.boolean().default(false),
  extensions: Extensions.default({}),
  password: Password.optional(),
});
export type CreateUserBody = z.infer<typeof CreateUserBody>;

export const CreateUserQuery = z.object({
  notifyEmail: queryBoolean.default(false),
});
export type CreateUserQuery = z.infer<typeof CreateUserQuery>;

/** Whether a change that takes admin power from a user revokes the API keys they made (docs/security.md#scopes). */
const revokeKeys = queryBoolean.default(true);
export const UpdateUserQuery = z.object({ revokeKeys });
export type UpdateUserQuery = z.infer<typeof UpdateUserQuery>;

/** The caller's company entry of `companies`: its hierarchy can be changed. */
export const CompanyMembershipPatch = z.strictObject({
  _id: z.unknown().optional(),
  companyId: objectId.optional(),
  hierarchy: z.strictObject({ boss: idList(), peers: idList(), subordinate: idList() }).partial().optional(),
});

export const UpdateUserBody = z.strictObject({
  /** Immutable: accepted only when equal to the stored e-mail. */
  email: z.string().optional(),
  /** Merged into the stored name; the result must have all four parts. */
  name: UserName.partial().optional(),
  accessRoles: idList(100)
    .pipe(z.array(z.string()).min(1, { error: "must name at least one access role" }))
    .optional(),
  properties: idList().optional(),
  job: objectId.nullable().optional(),
  bot: objectId.nullable().optional(),
  phone: phone.nullable().optional(),
  isActive: z.boolean().optional(),
  isOnline: z.boolean().optional(),
  termsConditions: z.boolean().optional(),
  /** Replaces the stored object. */
  extensions: Extensions.optional(),
  password: Password.optional(),
  companies: z.array(CompanyMembershipPatch).max(1, { error: "only the caller's company can be changed" }).optional(),
});
export type UpdateUserBody = z.infer<typeof UpdateUserBody>;

/** The orders of the users list (docs/api.md#sorting); `modifiedAt` is the default. */
export const USER_SORTS = ["modifiedAt", "createdAt", "name", "email"] as const;
export type UserSort = (typeof USER_SORTS)[number];

export const ListUsersQuery = z.object({
  search: singleLineText({ max: 200 }).optional(),
  ...pagingQuery(10, 100),
  orderBy: z.enum(["asc", "desc"], { error: "must be asc or desc" }).default("desc"),
  sort: z.enum(USER_SORTS, { error: `must be one of ${USER_SORTS.join(", ")}` }).default("modifiedAt"),
  /** The specification's parameter: `modifiedAt`, its only accepted value (API-CONTRACT); `sort` chooses another order. */
  sortBy: z
    .enum(["modifiedAt"], { error: "must be modifiedAt, its only accepted value; choose another order with sort" })
    .optional(),
  isActive: z.enum(["all", "true", "false"], { error: "must be all, true or false" }).default("true"),
  email: z
    .array(singleLineText({ min: 1, max: 254 }))
    .min(1)
    .max(100, { error: "at most 100 values" })
    .optional(),
  bot: queryIdList.optional(),
  id: queryIdList.optional(),
  relatedUser: objectId.optional(),
  property: objectId.optional(),
  accessRole: objectId.optional(),
  job: objectId.optional(),
  modified: queryDateTime.optional(),
  modified_gt: queryDateTime.optional(),
  modified_gte: queryDateTime.optional(),
  modified_lt: queryDateTime.optional(),
  modified_lte: queryDateTime.optional(),
  created: queryDateTime.optional(),
  created_gt: queryDateTime.optional(),
  created_gte: queryDateTime.optional(),
  created_lt: queryDateTime.optional(),
  created_lte: queryDateTime.optional(),
});
export type ListUsersQuery = z.infer<typeof ListUsersQuery>;

/** The filters of the list without its paging, and the format (docs/api.md#export). */
export const ExportUsersQuery = ListUsersQuery.omit(LIST_PAGING).extend({ format: exportFormat });
export type ExportUsersQuery = z.infer<typeof ExportUsersQuery>;

export const UserIdParams = z.object({ id: objectId });

// ---------------------------------------------------------------------------------------------
// The operations

export const list = operation({
  method: "get",
  path: "/v2/users",
  scope: "users:read",
  query: ListUsersQuery,
  doc: {
    tag: "Users",
    summary: "List users",
    description:
      "The users of the caller's company matching every filter given, newest `modifiedAt` first unless `sort` and `orderBy` say otherwise (ties broken by `_id` in the same direction, so paging never repeats or skips a user). Without `isActive`, only active users.",
    status: 200,
    response: UserList,
    parameters: {
      ...pagingParameters,
      search: {
        description:
          "Words to find: lowercased, accents removed, split on whitespace and punctuation; a user matches when every word is a prefix of one of its `search` keywords (name parts and e-mail parts).",
      },
      orderBy: { description: "Direction of the sort on the `sort` field (and on `_id`, which breaks ties)." },
      sortBy: {
        description:
          "`modifiedAt`, the only accepted value (the specification's parameter); `sort` chooses another order.",
      },
      sort: {
        description:
          "The field the list is sorted by: `modifiedAt` (the default), `createdAt`, `email` or `name`. `name` is the name the admin pages show (the display name, else first and last names, else the e-mail), compared lowercase with accents removed; e-mails are stored lowercase. Every order is served by an index, and a cursor belongs to its order.",
      },
      isActive: { description: "`all` lists active and inactive users." },
      email: { description: repeated("Users whose e-mail is one of these (case-insensitive).") },
      bot: { description: repeated("Users whose `bot` is one of these ids.") },
      id: { description: repeated("Users with these ids.") },
      relatedUser: {
        description:
          "Users related to this user through `companies.hierarchy` in the caller's company: those listing it as boss, peer or subordinate, and those it lists.",
      },
      property: { description: "Users holding this property in `properties`." },
      accessRole: { description: "Users holding this access role in `accessRoles`." },
      job: { description: "Users with this job title." },
      modified: { description: "`modifiedAt` equal to it (millisecond precision)." },
      modified_gt: { description: "`modifiedAt` after it." },
      modified_gte: { description: "`modifiedAt` at or after it." },
      modified_lt: { description: "`modifiedAt` before it." },
      modified_lte: { description: "`modifiedAt` at or before it." },
      created: { description: "`createdAt` equal to it (millisecond precision)." },
      created_gt: { description: "`createdAt` after it." },
      created_gte: { description: "`createdAt` at or after it." },
      created_lt: { description: "`createdAt` before it." },
      created_lte: { description: "`createdAt` at or before it." },
    },
  },
});

export const create = operation({
  method: "post",
  path: "/v2/users",
  scope: "users:write",
  admin: true,
  query: CreateUserQuery,
  body: CreateUserBody,
  // `companies` is always the caller's company (docs/api.md#creating-a-user).
  ignoreBodyFields: [...SERVER_MANAGED_USER_FIELDS, "companies"],
  doc: {
    etag: true,
    tag: "Users",
    summary: "Create a user",
    description:
      "E-mail addresses are unique across the service, case-insensitively (`409 conflict`). `name`, when sent, needs all four parts (`secondLastName` may be empty). `companies` is always one entry for the caller's company with an empty hierarchy. Service-managed fields (`_id`, `search`, `createdAt`, `modifiedAt`, `lastRequestDate`, `__v`, `companies`) are ignored, with a debug warning. `password` is stored only as a slow hash and never returned. An API key needs the scope `admin` as well to send `password` or an access role with `isAdmin: true` (`403 insufficient_scope` naming `admin`; nothing is created).",
    status: 201,
    response: UserRecord,
    errors: ["conflict", "unknown_reference"],
    parameters: {
      notifyEmail: {
        description:
          "`true` sends the new user an invitation e-mail with a one-time link to set a password; only when no `password` is sent.",
      },
    },
  },
});

export const me = operation({
  method: "get",
  path: "/v2/users/me",
  scope: "users:read",
  doc: {
    etag: true,
    tag: "Users",
    summary: "Read the caller",
    description: "The user the access token belongs to. An API key belongs to no user: `404`.",
    status: 200,
    response: UserRecord,
    errors: ["not_found"],
  },
});

export const read = operation({
  method: "get",
  path: "/v2/users/{id}",
  scope: "users:read",
  params: UserIdParams,
  doc: { etag: true, tag: "Users", summary: "Read a user", status: 200, response: UserRecord },
});

export const update = operation({
  method: "patch",
  path: "/v2/users/{id}",
  scope: "users:write",
  admin: true,
  params: UserIdParams,
  query: UpdateUserQuery,
  body: UpdateUserBody,
  ignoreBodyFields: SERVER_MANAGED_USER_FIELDS,
  doc: {
    etag: true,
    tag: "Users",
    summary: "Update a user",
    description:
      "Send only the fields to change. `email` cannot change: the stored value is accepted and ignored, any other is `400 immutable_field`. `name` parts are merged into the stored name; changing them regenerates `search`. In `companies`, only the caller's company entry's `hierarchy` can change. `modifiedAt` always advances. Concurrent PATCHes of one user all apply; for each field the last one wins.\n\n" +
      "**A user of several companies.** `accessRoles`, `properties`, `isActive` and the caller's `companies` entry belong to the caller's company: its admins change them and the other companies see no change (`isActive` is whether the user is active in the caller's company; deactivating them here ends their sessions and tokens in this company, and leaves their other companies alone; a reactivation needs a new sign-in). The account's own fields, `password`, `name`, `phone`, `job`, `bot`, `extensions`, `isOnline` and `termsConditions`, are shared by every company the user belongs to: only the user themself, or a caller who is an active member holding an admin access role in every one of those companies, may change them. Anyone else gets `403 forbidden` with `details` naming each such field sent, and nothing of the PATCH is applied. For a user of one company, its admins change everything.\n\n" +
      "**A new `password`** ends every sign-in session and access token of the user, API tokens included; when users change their own password, the session they do it from stays.\n\n" +
      "**API keys:** admin power is the scope `admin`: without it a key that sets `password`, grants or takes an access role with `isAdmin: true`, or changes an account-wide field of a user holding an admin role gets `403 insufficient_scope` naming `admin`, and nothing of the PATCH is applied.",
    status: 200,
    response: UserRecord,
    errors: ["conflict", "unknown_reference", "immutable_field"],
    parameters: {
      revokeKeys: {
        description:
          "When the PATCH takes admin power from the user in this company (deactivates an admin, or removes their last admin access role), the API keys of the company they created, and the keys those keys created, are revoked too, with an `api_keys_revoked` debug note saying how many. `true` by default; `false` keeps them.",
      },
    },
  },
});

export const exportUsers = operation({
  method: "get",
  path: "/v2/users/export",
  scope: "users:read",
  admin: true,
  query: ExportUsersQuery,
  doc: {
    tag: "Users",
    summary: "Export users as CSV or NDJSON",
    description:
      'Every user the filters of `GET /v2/users` match, in its order, with no cap, streamed as the client reads it (`Content-Disposition: attachment; filename="users-YYYY-MM-DD.csv"`). CSV columns: `_id`, `email`, `firstName`, `lastName`, `secondLastName`, `displayName`, `phone`, `isActive`, `accessRoles` (names joined by `;`), `jobTitle` (name), `properties` (names joined by `;`), `createdAt`, `modifiedAt`; a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `\'`. NDJSON: each user as `GET /v2/users/{id}` answers it. Paging parameters are ignored.',
    status: 200,
    csv: true,
    ndjson: true,
    headers: {
      "X-Total-Count": {
        description: "How many users matched when the export began: the rows to expect, for a progress bar.",
        schema: { type: "integer" },
      },
      "Content-Disposition": { description: "`attachment` with the file's name.", schema: { type: "string" } },
    },
    parameters: { ...withoutPaging(list.doc.parameters!), ...exportParameterDocs },
  },
});

// ---------------------------------------------------------------------------------------------
// Bulk actions (docs/api.md#bulk-actions)

export const BULK_ACTIONS = ["activate", "deactivate", "addAccessRole", "removeAccessRole"] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
/** Users one bulk request changes at most, named by `ids` or matched by `query`. */
export const MAX_BULK_USERS = 1000;

export const BulkUsersBody = z
  .strictObject({
    ids: z
      .array(objectId)
      .min(1, { error: "must name at least one user" })
      .max(MAX_BULK_USERS, { error: `at most ${MAX_BULK_USERS} ids` })
      .optional(),
    query: z
      .string({ error: "must be a query string" })
      .max(8000, { error: "must be at most 8000 characters" })
      .optional(),
    action: z.enum(BULK_ACTIONS, { error: "must be activate, deactivate, addAccessRole or removeAccessRole" }),
    accessRoleId: objectId.optional(),
    /** A user who stops being an active admin (deactivated, or the admin role removed) loses the API keys they made too. */
    revokeKeys: z.boolean({ error: "must be true or false" }).default(true),
  })
  .superRefine((body, ctx) => {
    if ((body.ids === undefined) === (body.query === undefined))
      ctx.addIssue({ code: "custom", path: ["ids"], message: "send exactly one of ids and query" });
    const roleAction = body.action === "addAccessRole" || body.action === "removeAccessRole";
    if (roleAction && body.accessRoleId === undefined)
      ctx.addIssue({ code: "custom", path: ["accessRoleId"], message: `is required for ${body.action}` });
    if (!roleAction && body.accessRoleId !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["accessRoleId"],
        message: `is only for addAccessRole and removeAccessRole`,
      });
  });
export type BulkUsersBody = z.infer<typeof BulkUsersBody>;
export type BulkUsersInput = z.input<typeof BulkUsersBody>;

export const BULK_STATUSES = ["changed", "unchanged", "failed"] as const;

export const BulkUsersResult = z.object({
  summary: z.object({ changed: z.number().int(), unchanged: z.number().int(), failed: z.number().int() }),
  /** One per user asked for, in the order of `ids` (by `_id` for a `query`); an id sent twice is one. */
  results: z.array(z.object({ id: objectId, status: z.enum(BULK_STATUSES), error: z.string().optional() })),
});
export type BulkUsersResult = z.infer<typeof BulkUsersResult>;

export const bulk = operation({
  method: "post",
  path: "/v2/users/bulk",
  scope: "users:write",
  admin: true,
  body: BulkUsersBody,
  doc: {
    tag: "Users",
    summary: "Change many users at once",
    description:
      `Activates, deactivates, adds an access role to or removes one from the users named by \`ids\` (at most ${MAX_BULK_USERS}) or matched by \`query\`, a query string of \`GET /v2/users\` (its filters; paging and order are ignored; a parameter the list does not know is \`400\`, so a typo never widens the selection). A query matching more than ${MAX_BULK_USERS} users is refused with \`400 invalid_request\`: narrow it, or send pages of ids. \`accessRoleId\` is required for the role actions and must name an access role of the company (\`400 unknown_reference\`). \`revokeKeys\` (default \`true\`): a user the action takes admin power from (deactivated, or their last admin role removed) loses the API keys they created, as \`PATCH\` with \`revokeKeys\` does.\n\n` +
      "Each user is changed as a `PATCH /v2/users/{id}` would change them, with its rules (the company keeps an active admin) and its event; each answers `changed`, `unchanged` (nothing to do) or `failed` with a plain `error`: an id that names no user of the company is `not found`, your own deactivation is refused, and so is removing a user's only access role. One failure never stops the others; a repeat of the request changes only what is still to change. An API key adding or removing an access role with `isAdmin: true` needs the scope `admin` as well: without it the whole request is `403 insufficient_scope` and nobody is changed.",
    status: 200,
    response: BulkUsersResult,
    errors: ["unknown_reference"],
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = {
  records: { User: UserRecord },
  answers: { UserAnswer: UserRecord, UserList, BulkUsersResult },
};
