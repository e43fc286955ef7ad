/** The users operations of the HTTP API (docs/api.md#users). */
import { operation, pagingParameters, repeated } from "@/lib/http/contract";
import { CreateUserBody, CreateUserQuery, ListUsersQuery, SERVER_MANAGED_USER_FIELDS, UpdateUserBody, UserIdParams, UserList, UserRecord } from "@/lib/schemas/users";

export const list = operation({
  method: "get",
  path: "/v2/users",
  query: ListUsersQuery,
  doc: {
      tag: "Users",
      summary: "List users",
      description:
        "The users of the caller's company matching every filter given, newest `modifiedAt` first (ties broken by `_id` in the same direction, so paging never repeats or skips a user). Without `isActive`, only active users.",
      status: 200,
      response: UserList,
      parameters: {
        ...pagingParameters,
        search:
          {
            description:
              "Words to find: lowercased, accents removed, split on whitespace and punctuation; a user matches when every word is a prefix of one of its `search` keywords (name parts and e-mail parts).",
          },
        orderBy: { description: "Direction of the sort on `modifiedAt`." },
        sortBy: { description: "The list is sorted only by `modifiedAt`." },
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
  admin: true,
  query: CreateUserQuery,
  body: CreateUserBody,
  // `companies` is always the caller's company (docs/api.md#creating-a-user).
  ignoreBodyFields: [...SERVER_MANAGED_USER_FIELDS, "companies"],
  doc: {
      tag: "Users",
      summary: "Create a user",
      description:
        "E-mail addresses are unique across the service, case-insensitively (`409 conflict`). `name`, when sent, needs all four parts (`secondLastName` may be empty). `companies` is always one entry for the caller's company with an empty hierarchy. Service-managed fields (`_id`, `search`, `createdAt`, `modifiedAt`, `lastRequestDate`, `__v`, `companies`) are ignored, with a debug warning. `password` is stored only as a slow hash and never returned.",
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
  doc: { tag: "Users", summary: "Read the caller", description: "The user the access token belongs to.", status: 200, response: UserRecord },
});

export const read = operation({
  method: "get",
  path: "/v2/users/{id}",
  params: UserIdParams,
  doc: { tag: "Users", summary: "Read a user", status: 200, response: UserRecord },
});

export const update = operation({
  method: "patch",
  path: "/v2/users/{id}",
  admin: true,
  params: UserIdParams,
  body: UpdateUserBody,
  ignoreBodyFields: SERVER_MANAGED_USER_FIELDS,
  doc: {
      tag: "Users",
      summary: "Update a user",
      description:
        "Send only the fields to change. `email` cannot change: the stored value is accepted and ignored, any other is `400 immutable_field`. `name` parts are merged into the stored name; changing them regenerates `search`. In `companies`, only the caller's company entry's `hierarchy` can change. `modifiedAt` always advances. Concurrent PATCHes of one user all apply; for each field the last one wins.\n\n" +
        "**A user of several companies.** `accessRoles`, `properties`, `isActive` and the caller's `companies` entry belong to the caller's company: its admins change them and the other companies see no change (`isActive` is whether the user is active in the caller's company; deactivating them here leaves their other companies alone). The account's own fields, `password`, `name`, `phone`, `job`, `bot`, `extensions`, `isOnline` and `termsConditions`, are shared by every company the user belongs to: only the user themself, or a caller who is an active member holding an admin access role in every one of those companies, may change them. Anyone else gets `403 forbidden` with `details` naming each such field sent, and nothing of the PATCH is applied. For a user of one company, its admins change everything.\n\n" +
        "**A new `password`** ends every sign-in session and access token of the user, API tokens included; when users change their own password, the session they do it from stays.",
      status: 200,
      response: UserRecord,
      errors: ["conflict", "unknown_reference", "immutable_field"],
    },
});
