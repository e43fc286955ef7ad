/**
 * API keys (docs/api.md#api-keys): long-lived credentials of a company for external systems, each
 * limited to the scopes it was created with. The key itself appears only in the answer that
 * created it; the service keeps its SHA-256 hash.
 */
import { isoDateTime, listEnvelope, objectId, pagingQuery, singleLineText } from "@/lib/base/schemas/common";
import { type ComponentNames, operation, pagingParameters } from "@/lib/base/schemas/operation";
import { Scope, SCOPES } from "@/lib/base/schemas/scopes";
import { z } from "zod";

/** Every key starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const KEY_PREFIX = "usk_";

export const ApiKeyRecord = z.object({
  _id: objectId,
  name: z.string(),
  scopes: z.array(Scope),
  /** The first characters of the key, to tell keys apart. */
  prefix: z.string(),
  createdAt: isoDateTime,
  expiresAt: isoDateTime.nullable(),
  lastUsedAt: isoDateTime.nullable(),
  /**
   * Who created it: a user (their display name and e-mail, `null` once they left the company) or
   * another key (its name); `null` for a key of an earlier version that did not record it.
   */
  createdBy: z
    .object({
      _id: objectId,
      type: z.enum(["user", "apiKey"]),
      name: z.string().nullable(),
      email: z.string().nullable(),
    })
    .nullable(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

export const CreatedApiKey = ApiKeyRecord.extend({
  /** The key: shown in this answer only (and left out of its replay for a repeated `Idempotency-Key`). */
  key: z
    .string()
    .regex(new RegExp(`^${KEY_PREFIX}`))
    .optional(),
});
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const CreateApiKeyBody = z.strictObject({
  name: singleLineText({ min: 1, max: 100 }),
  scopes: z
    .array(Scope)
    .min(1, { error: "must name at least one scope" })
    .max(SCOPES.length)
    // Scopes are a set: a repeated one is refused, not folded, so a key is exactly what was asked for (docs/api.md#api-keys).
    .superRefine((scopes, ctx) => {
      scopes.forEach((scope, index) => {
        if (scopes.indexOf(scope) !== index)
          ctx.addIssue({ code: "custom", path: [index], message: `repeats the scope ${scope}` });
      });
    })
    .transform((scopes) => SCOPES.filter((scope) => scopes.includes(scope))),
  expiresAt: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time such as 2026-01-31T08:15:00.000Z" })
    .transform((value) => new Date(value))
    .nullable()
    .optional(),
});
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;
export type CreateApiKeyInput = z.input<typeof CreateApiKeyBody>;

export const ListApiKeysQuery = z.object({ ...pagingQuery(20, 100) });
export type ListApiKeysQuery = z.infer<typeof ListApiKeysQuery>;

export const ApiKeyList = listEnvelope("apiKeys", ApiKeyRecord);
export type ApiKeyList = z.infer<typeof ApiKeyList>;

export const ApiKeyIdParams = z.object({ id: objectId });

const TAG = "API keys";

export const list = operation({
  method: "get",
  path: "/v2/api-keys",
  scope: "api-keys:write",
  admin: true,
  query: ListApiKeysQuery,
  doc: {
    tag: TAG,
    summary: "List API keys",
    description:
      "The company's keys that are not revoked, newest first: `prefix` and `lastUsedAt` (updated at most once a minute), never the key.",
    status: 200,
    response: ApiKeyList,
    parameters: pagingParameters,
  },
});

export const create = operation({
  method: "post",
  path: "/v2/api-keys",
  scope: "api-keys:write",
  admin: true,
  body: CreateApiKeyBody,
  secretFields: ["key"],
  doc: {
    tag: TAG,
    summary: "Create an API key",
    description:
      "A key of the caller's company with the scopes given, valid until `expiresAt` (never, without one). `key` is in this answer only: the service keeps its hash. `scopes` is a set: a scope named twice is `400 invalid_request` naming the repeat. The scope `admin` (admin power: see docs/security.md#scopes) is never implied by another. A key creating a key may give it only scopes it holds itself (`403 insufficient_scope`). The replay of a repeated `Idempotency-Key` leaves `key` out: it is never kept.",
    status: 201,
    response: CreatedApiKey,
  },
});

export const revoke = operation({
  method: "delete",
  path: "/v2/api-keys/{id}",
  scope: "api-keys:write",
  admin: true,
  params: ApiKeyIdParams,
  doc: {
    tag: TAG,
    summary: "Revoke an API key",
    description: "The key stops working at once on this server process and within 5 seconds on every other one.",
    status: 204,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = { records: { ApiKey: ApiKeyRecord }, answers: { ApiKeyList, CreatedApiKey } };
