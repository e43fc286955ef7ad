import type { ErrorCode, ErrorDetail } from "@/lib/base/schemas/common";

/** The HTTP status of each error code (docs/api.md#errors). */
export const STATUS_OF_CODE: Record<ErrorCode, number> = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_id: 400,
  immutable_field: 400,
  unknown_reference: 400,
  unauthorized: 401,
  admin_required: 403,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  request_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
};

/**
 * A failure the caller can act on, named by its error code (docs/api.md#errors). Services throw it; the
 * `/v2` wrapper turns it into the error body. Anything else thrown is a `500 internal`.
 */
export class ServiceError extends Error {
  override name = "ServiceError";
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, such as `Retry-After`. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = STATUS_OF_CODE[code];
  }
}

/** `412 precondition_failed` with the record's current tag in `ETag` (docs/api.md#conditional-requests). */
export const preconditionFailed = (what: string, currentTag: string) =>
  new ServiceError(
    "precondition_failed",
    `The ${what} has changed since the tag sent in If-Match; nothing was changed. Read it again, or send its current ETag.`,
    undefined,
    {
      ETag: currentTag,
    },
  );

export const notFound = (what = "record") => new ServiceError("not_found", `No such ${what}.`);

/** MongoDB's duplicate-key error, from the driver or through Mongoose. */
export function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === 11000;
}

/**
 * Whether a bulk write failed only on duplicate keys (each of its write errors is one): the
 * documents it could write are written, and the others already exist.
 */
export function isBulkOfDuplicates(error: unknown): boolean {
  if ((error as { code?: number }).code === 11000) return true;
  const writeErrors = (error as { writeErrors?: { code?: number }[] | { code?: number } }).writeErrors;
  const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
  return list.length > 0 && list.every((entry) => entry.code === 11000);
}
