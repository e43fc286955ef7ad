/**
 * Building blocks shared by every `/v2` schema: ids, dates, query-string values, the debug
 * notification and the error body (docs/api.md#debug, docs/api.md#errors).
 */
import { z } from "zod";

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;

/** A 24-hex ObjectId string, normalised to lowercase. */
export const objectId = z
  .string({ error: "must be a 24-hex ObjectId" })
  .regex(OBJECT_ID, { error: "must be a 24-hex ObjectId" })
  .transform((value) => value.toLowerCase());

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

/**
 * Characters no single-line text may hold: C0 controls (NUL, tab, line feed...), DEL, C1 controls
 * and the Unicode line and paragraph separators. A name with a NUL or a line break breaks the
 * places that show it (the admin pages, CSV exports, logs) and is never what a person typed.
 */
const SINGLE_LINE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/u;
/** Multi-line text keeps tab, line feed and carriage return; every other control is refused. */
const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/u;

interface TextLimits {
  /** At least this many characters after trimming; 1 refuses empty text (default 0). */
  min?: number;
  max: number;
}

function text(allowed: RegExp, what: string, { min = 0, max }: TextLimits) {
  let schema = z.string({ error: "must be a string" }).trim();
  if (min > 0)
    schema = schema.min(min, { error: min === 1 ? "must not be empty" : `must be at least ${min} characters` });
  return schema
    .max(max, { error: `must be at most ${max} characters` })
    .regex(allowed, { error: `must not contain ${what}` });
}

/** Every single-line text field of a record (names, titles, phone...): trimmed, no control characters. */
export const singleLineText = (limits: TextLimits) => text(SINGLE_LINE, "control characters or line breaks", limits);

/** Text that may span lines (descriptions): tab and line breaks allowed, other controls refused. */
export const multiLineText = (limits: TextLimits) => text(MULTI_LINE, "control characters", limits);

/** How every date leaves the service: ISO 8601 with milliseconds and `Z`. */
export const isoDateTime = z.iso.datetime({ precision: 3 });

/** A list of ids in a record (`accessRoles`, `properties`, hierarchy...): no duplicates kept. */
export const idList = (max = 1000) =>
  z
    .array(objectId)
    .max(max)
    .transform((ids) => [...new Set(ids)]);

// ---------------------------------------------------------------------------------------------
// Query-string values. Every value arrives as a string; array parameters arrive as string[]
// (repeated parameters, comma-separated values split) — see lib/platform/http/query.ts.

/** An integer parameter in [min, max]. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, { error: "must be a whole number" })
    .transform(Number)
    .pipe(
      z
        .number()
        // The pattern already admits only whole numbers; `.int()` says so to the OpenAPI document.
        .int()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    );

/** `true` or `false`. */
export const queryBoolean = z
  .enum(["true", "false"], { error: "must be true or false" })
  .transform((value) => value === "true");

/** An ISO 8601 date-time (`2026-01-31T08:15:00.000Z`; an offset is accepted too). */
export const queryDateTime = z.iso
  .datetime({ offset: true, error: "must be an ISO 8601 date-time such as 2026-01-31T08:15:00.000Z" })
  .transform((value) => new Date(value));

/** Several ObjectIds in one query parameter. */
export const queryIdList = z.array(objectId).min(1).max(100, { error: "at most 100 values" });

/**
 * How deep a page by number may reach (docs/api.md#paging): `page × limit` at most this many
 * records. A page by number skips every record before it, so its cost grows with its depth;
 * past this depth the cursor (`data.next`), whose cost does not grow, is the way on. Peers cap
 * alike (Auth0 at 1,000 results, Elasticsearch's `max_result_window` at 10,000).
 */
export const MAX_PAGE_DEPTH = 10_000;

/**
 * The paging parameters of every list (docs/api.md#paging): a page by number (`page`, from 1 when
 * absent) or by `cursor`, the opaque `next` of the page before; both together are refused.
 */
export const pagingQuery = (defaultLimit: number, maxLimit: number) => ({
  page: queryInt(1, 100_000).optional(),
  cursor: z
    .string()
    .min(1, { error: "must not be empty" })
    .max(2048, { error: "is not a cursor of this list" })
    .optional(),
  limit: queryInt(1, maxLimit).default(defaultLimit),
  count: queryBoolean.default(false),
});

/**
 * `{ data: { <key>: [...], page?, limit, next, counter? } }`, the envelope of every list: `page`
 * when paged by number, `next` the cursor of the following page (`null` after the last).
 */
export function listEnvelope<K extends string, T extends z.ZodType>(key: K, item: T) {
  const items = { [key]: z.array(item) } as Record<K, z.ZodArray<T>>;
  return z.object({
    data: z.object({
      ...items,
      page: z.number().int().optional(),
      limit: z.number().int(),
      next: z.string().nullable(),
      counter: z.number().int().optional(),
    }),
  });
}

// ---------------------------------------------------------------------------------------------
// Responses shared by every route.

export const Notification = z.object({
  level: z.enum(["info", "warning", "error"]),
  code: z.string(),
  message: z.string(),
  path: z.string().optional(),
});
export type Notification = z.infer<typeof Notification>;

export const ErrorCode = z.enum([
  "invalid_json",
  "invalid_request",
  "invalid_id",
  "immutable_field",
  "unknown_reference",
  "unauthorized",
  "admin_required",
  "forbidden",
  "insufficient_scope",
  "not_found",
  "method_not_allowed",
  "conflict",
  "precondition_failed",
  "request_in_progress",
  "payload_too_large",
  "unsupported_media_type",
  "idempotency_key_reused",
  "rate_limited",
  "internal",
  "service_unavailable",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorDetail = z.object({ path: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

export const ErrorBody = z.object({
  error: z.object({
    status: z.number().int(),
    code: ErrorCode,
    message: z.string(),
    details: z.array(ErrorDetail).optional(),
    requestId: z.string(),
  }),
  debug: z.array(Notification).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** A password as a client sets it (of a new user, a PATCH, or an invitation). */
export const Password = z
  .string()
  .min(8, { error: "must be at least 8 characters" })
  .max(256, { error: "must be at most 256 characters" });
