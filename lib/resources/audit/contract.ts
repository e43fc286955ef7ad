/**
 * The audit log (docs/api.md#audit-log): who changed what, when, from where, with every changed
 * field's value before and after (secrets only as "[redacted]"), plus sign-ins, failed sign-ins
 * and sign-outs; read newest first by admins.
 */
import { isoDateTime, listEnvelope, objectId, pagingQuery, queryDateTime } from "@/lib/base/schemas/common";
import { EVENT_RESOURCES, EVENT_TYPES } from "@/lib/base/schemas/event-types";
import { type ComponentNames, operation, pagingParameters, repeated } from "@/lib/base/schemas/operation";
import { z } from "zod";

/** What replaces a secret's value in an entry. */
export const REDACTED = "[redacted]";

/** The actions of sign-in and sign-out; every change's action is its event's type (`user.updated`). */
export const AUTH_ACTIONS = ["auth.signedIn", "auth.signInFailed", "auth.signedOut"] as const;
export const AUDIT_ACTIONS = [...EVENT_TYPES, ...AUTH_ACTIONS] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The kinds of records entries are about (sign-ins are about a user). */
export const AUDIT_RESOURCES = EVENT_RESOURCES;

/** `user` and `apiKey` act through a token; `anonymous` is a failed sign-in; `system` the service itself (a job, the command line). */
export const ACTOR_TYPES = ["user", "apiKey", "anonymous", "system"] as const;

const AuditAction = z.enum(AUDIT_ACTIONS, { error: "must be an action such as user.updated or auth.signedIn" });

export const AuditChange = z.object({
  /** The dotted path of the field (`name.firstName`, `accessRoles`). */
  path: z.string(),
  /** The value before, as the API showed it; `null` when it had none (or for a create). */
  before: z.unknown(),
  /** The value after; `null` when it has none. */
  after: z.unknown(),
});

export const AuditEntry = z.object({
  _id: objectId,
  action: AuditAction,
  resource: z.object({ type: z.enum(AUDIT_RESOURCES), id: z.string() }),
  actor: z.object({
    type: z.enum(ACTOR_TYPES),
    /** The user's or API key's `_id`; `null` for `anonymous` and `system`. */
    id: z.string().nullable(),
    /** The user's display name or the API key's name when it acted; the e-mail tried, for a failed sign-in. */
    name: z.string(),
  }),
  changes: z.array(AuditChange),
  requestId: z.string().nullable(),
  /** The client's address as the rate limits see it (`TRUST_PROXY`); `null` outside a request. */
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  createdAt: isoDateTime,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const ListAuditQuery = z
  .object({
    resourceType: z.enum(AUDIT_RESOURCES, { error: `must be one of ${AUDIT_RESOURCES.join(", ")}` }).optional(),
    resourceId: objectId.optional(),
    actorId: objectId.optional(),
    action: z
      .array(AuditAction)
      .min(1)
      .max(AUDIT_ACTIONS.length, { error: `at most ${AUDIT_ACTIONS.length} values` })
      .optional(),
    from: queryDateTime.optional(),
    to: queryDateTime.optional(),
    ...pagingQuery(50, 200),
  })
  .superRefine((query, ctx) => {
    if (query.from && query.to && query.from > query.to)
      ctx.addIssue({ code: "custom", path: ["from"], message: "must not be after to" });
  });
export type ListAuditQuery = z.infer<typeof ListAuditQuery>;

export const AuditList = listEnvelope("entries", AuditEntry);
export type AuditList = z.infer<typeof AuditList>;

export const list = operation({
  method: "get",
  path: "/v2/audit-log",
  // Values before and after (e-mails, phones, webhook URLs): a scope of its own, not events:read (docs/security.md#scopes).
  scope: "audit:read",
  admin: true,
  query: ListAuditQuery,
  doc: {
    tag: "Audit log",
    summary: "List audit entries",
    description:
      "Every change of the company's records (one entry per event, `action` being the event's type such as `user.updated`) and every sign-in (`auth.signedIn`), failed sign-in of a known e-mail (`auth.signInFailed`) and sign-out (`auth.signedOut`), newest first. Each entry names who acted (with the name they had then), the request, the client address and user agent, and each changed field with its value before and after; passwords, hashes, keys, tokens and webhook secrets appear only as `\"[redacted]\"`. Entries are kept `AUDIT_RETENTION_DAYS` days (365 by default).",
    status: 200,
    response: AuditList,
    parameters: {
      resourceType: { description: "Only entries about records of this kind (`user`, `survey`, `webhook`...)." },
      resourceId: { description: "Only entries about this record." },
      actorId: { description: "Only entries of what this user or API key did." },
      action: { description: repeated("Only these actions (`user.updated`, `auth.signInFailed`...).") },
      from: { description: "Only entries at or after this ISO 8601 date-time." },
      to: { description: "Only entries at or before this ISO 8601 date-time; not before `from`." },
      ...pagingParameters,
    },
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { records: { AuditEntry }, answers: { AuditList } };
