/** The route entry and method of an exported handler, if it is one of the listed routes'. */
export function operationOf(handler: unknown): { path: string; method: Method } | undefined {
  for (const entry of ROUTES) {
    for (const method of METHODS) {
      if (entry.module[method.toUpperCase()] === handler && !isOtherMethod(handler)) return { path: entry.path, method };
    }
  }
  return undefined;
}

/**
 * Every route the OpenAPI document describes: its module (whose handlers carry their own
 * path, query and body schemas and Admin rule, see `declarationOf`) and, per method, what the
 * handler answers on success. The document test checks that every route file under `app/v2`
 * is listed here and that every listed path has its route file.
 */
import type { z } from "zod";
import * as login from "@/app/api/auth/login/route";
import * as accessRole from "@/app/v2/access-roles/[id]/route";
import * as accessRoles from "@/app/v2/access-roles/route";
import * as bot from "@/app/v2/bots/[id]/route";
import * as bots from "@/app/v2/bots/route";
import * as jobTitle from "@/app/v2/job-titles/[id]/route";
import * as jobTitles from "@/app/v2/job-titles/route";
import * as openapi from "@/app/v2/openapi.json/route";
import * as outbox from "@/app/v2/outbox/route";
import * as property from "@/app/v2/properties/[id]/route";
import * as properties from "@/app/v2/properties/route";
import * as surveyRevisions from "@/app/v2/surveys/[id]/revisions/route";
import * as survey from "@/app/v2/surveys/[id]/route";
import * as surveys from "@/app/v2/surveys/route";
import * as user from "@/app/v2/users/[id]/route";
import * as me from "@/app/v2/users/me/route";
import * as users from "@/app/v2/users/route";
import { isOtherMethod } from "@/lib/http/route";
import { AccessTokenResponse } from "@/lib/schemas/auth";
import { OpenApiDocumentSchema } from "./document-schema";
import type { ErrorCode } from "@/lib/schemas/common";
import {
  AccessRoleList,
  AccessRoleRecord,
  BotList,
  BotRecord,
  JobTitleList,
  JobTitleRecord,
  PropertyList,
  PropertyRecord,
} from "@/lib/schemas/reference";
import { OutboxList } from "@/lib/schemas/outbox";
import { SURVEY_FIELDS, SurveyList, SurveyRecord, SurveyRevisionList } from "@/lib/schemas/surveys";
import { UserList, UserRecord } from "@/lib/schemas/users";

export const METHODS = ["get", "post", "patch", "put", "delete"] as const;
export type Method = (typeof METHODS)[number];

export interface Operation {
  summary: string;
  description?: string;
  tag: string;
  /** The success answer: `200`, or `201` with `Location` for a create, or `204` with no body. */
  status: 200 | 201 | 204;
  response?: z.ZodObject;
  /** Errors beyond those its declaration implies (auth, Admin, path id, body, query). */
  errors?: ErrorCode[];
  /** More about some query parameters than their schema says. */
  parameters?: Record<string, { description?: string; items?: Record<string, unknown> }>;
  /** Sent in `Set-Cookie` on success. */
  setsCookie?: boolean;
}

export interface RouteEntry {
  /** The OpenAPI path, `{id}` for a `[id]` segment. */
  path: string;
  module: Record<string, unknown>;
  operations: Partial<Record<Method, Operation>>;
}

const paging = {
  page: { description: "Page number, from 1. A page past the end is an empty list." },
  limit: { description: "Records per page." },
  count: { description: "Adds `counter`: how many records match the filters, ignoring paging." },
};

const repeated = (what: string) => `${what} Repeat the parameter once per value; a comma-separated value is split too.`;

/** The reference data of the admin pages (docs/api.md#reference-data), four kinds alike. */
function referenceRoutes(
  base: string,
  list: z.ZodObject,
  record: z.ZodObject,
  what: { one: string; many: string },
  collection: Record<string, unknown>,
  single: Record<string, unknown>,
): RouteEntry[] {
  return [
    {
      path: base,
      module: collection,
      operations: {
        get: {
          tag: "Reference data",
          summary: `List ${what.many}`,
          description: `The company's ${what.many}, sorted by name. \`search\` matches a case-insensitive prefix of the name.`,
          status: 200,
          response: list,
          parameters: paging,
        },
        post: {
          tag: "Reference data",
          summary: `Create a ${what.one}`,
          description: `Names are unique within the company (\`409 conflict\`).`,
          status: 201,
          response: record,
          errors: ["conflict"],
        },
      },
    },
    {
      path: `${base}/{id}`,
      module: single,
      operations: {
        get: { tag: "Reference data", summary: `Read a ${what.one}`, status: 200, response: record },
      },
    },
  ];
}

export const ROUTES: RouteEntry[] = [
  {
    path: "/v2/users",
    module: users,
    operations: {
      get: {
        tag: "Users",
        summary: "List users",
        description:
          "The users of the caller's company matching every filter given, newest `modifiedAt` first (ties broken by `_id` in the same direction, so paging never repeats or skips a user). Without `isActive`, only active users.",
        status: 200,
        response: UserList,
        parameters: {
          ...paging,
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
      post: {
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
    },
  },
  {
    path: "/v2/users/me",
    module: me,
    operations: {
      get: { tag: "Users", summary: "Read the caller", description: "The user the access token belongs to.", status: 200, response: UserRecord },
    },
  },
  {
    path: "/v2/users/{id}",
    module: user,
    operations: {
      get: { tag: "Users", summary: "Read a user", status: 200, response: UserRecord },
      patch: {
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
    },
  },
  {
    path: "/v2/surveys",
    module: surveys,
    operations: {
      get: {
        tag: "Surveys",
        summary: "List surveys",
        description:
          "The surveys of the caller's company, newest `modifiedAt` first. Without `isActive`, only active surveys.",
        status: 200,
        response: SurveyList,
        parameters: {
          ...paging,
          count: { description: "Adds `counter`: how many surveys match the filters, ignoring paging." },
          answer: { description: repeated("The surveys these answers (by their `uuid`) belong to.") },
          select: {
            description: repeated("Survey fields to return; `_id` is always returned."),
            items: { enum: SURVEY_FIELDS },
          },
          isActive: { description: "`all` lists active and inactive surveys." },
          search: { description: "Case-insensitive prefix of `code` or `name`, matched literally." },
        },
      },
      post: {
        tag: "Surveys",
        summary: "Create a survey",
        description:
          "`code` is unique within the company (`409 conflict`). Fields not sent get the defaults shown. Service-managed fields (`_id`, `company`, `createdAt`, `modifiedAt`, `__v`, `chat`) are ignored, with a debug warning. Stores the first revision.",
        status: 201,
        response: SurveyRecord,
        errors: ["conflict", "unknown_reference"],
      },
    },
  },
  {
    path: "/v2/surveys/{id}",
    module: survey,
    operations: {
      get: {
        tag: "Surveys",
        summary: "Read a survey",
        status: 200,
        response: SurveyRecord,
        parameters: { populate: { description: "Adds `chat`: the survey's chats ordered by `order`, each with its questions." } },
      },
      patch: {
        tag: "Surveys",
        summary: "Update a survey",
        description:
          "Send only the fields to change. `permissions` as one access role id adds it (no duplicates); as an array it replaces the list. Changing `version` migrates the survey between the version 1 and version 2 permission models. `__v` increases by exactly one on every successful update, also under concurrent updates, and a revision is stored.",
        status: 200,
        response: SurveyRecord,
        errors: ["conflict", "unknown_reference"],
      },
    },
  },
  {
    path: "/v2/surveys/{id}/revisions",
    module: surveyRevisions,
    operations: {
      get: {
        tag: "Surveys",
        summary: "List a survey's revisions",
        description: "The survey as it was after each successful create and update, with who and when; newest first.",
        status: 200,
        response: SurveyRevisionList,
        parameters: paging,
      },
    },
  },
  ...referenceRoutes("/v2/access-roles", AccessRoleList, AccessRoleRecord, { one: "access role", many: "access roles" }, accessRoles, accessRole),
  ...referenceRoutes("/v2/job-titles", JobTitleList, JobTitleRecord, { one: "job title", many: "job titles" }, jobTitles, jobTitle),
  ...referenceRoutes("/v2/properties", PropertyList, PropertyRecord, { one: "property", many: "properties" }, properties, property),
  ...referenceRoutes("/v2/bots", BotList, BotRecord, { one: "bot", many: "bots" }, bots, bot),
  {
    path: "/v2/outbox",
    module: outbox,
    operations: {
      get: {
        tag: "Outbox",
        summary: "List the outbox",
        description:
          "The e-mails the service kept instead of sending while `SMTP_URL` is unset (invitations), newest first, for the caller's company.",
        status: 200,
        response: OutboxList,
        parameters: { ...paging, to: { description: "Only the e-mails to this address (case-insensitive, exact)." } },
      },
    },
  },
  {
    path: "/v2/openapi.json",
    module: openapi,
    operations: {
      get: {
        tag: "Documentation",
        summary: "This OpenAPI document",
        description: "The OpenAPI 3.1 document of this API, built from the schemas the routes validate with. No token needed; the reference page is at `/docs`.",
        status: 200,
        response: OpenApiDocumentSchema,
      },
    },
  },
  {
    path: "/api/auth/login",
    module: login,
    operations: {
      post: {
        tag: "Authentication",
        summary: "Sign in",
        description:
          "E-mail and password → an access token for `Authorization: Bearer`, and a session cookie for the admin pages. Wrong credentials are `401` whether the e-mail is unknown or the password wrong; repeated failures are throttled (`429`). A browser request from another site's page is refused (`403 forbidden`). For an external system, `npm run --silent token -- --email <email> [--ttl 30d]` prints a longer-lived token.",
        status: 200,
        response: AccessTokenResponse,
        errors: ["unauthorized", "forbidden"],
        setsCookie: true,
      },
    },
  },
];
