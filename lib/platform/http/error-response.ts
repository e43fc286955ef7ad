/**
 * The error table (docs/api.md#errors), applied once: a `ServiceError` answers its own status and
 * code, a duplicate key is `409 conflict`, a database out of reach is `503` with `Retry-After`,
 * and anything else is `500 internal` without its details. Every error answer has the one
 * envelope `{ "error": { status, code, message, details?, requestId } }`.
 */
import type { ErrorBody } from "@/lib/base/schemas/common";
import { isDatabaseUnavailable } from "@/lib/kernel/db";
import { isDuplicateKeyError, ServiceError } from "@/lib/kernel/errors";
import type { Notes } from "@/lib/kernel/notes";
import { jsonResponse } from "./reply";

/** Seconds a client should wait before retrying while the database is away (it restarts within seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** `503 service_unavailable` with `Retry-After`: the database does not answer now. */
function databaseUnavailable(): ServiceError {
  return new ServiceError(
    "service_unavailable",
    "The database is not available at the moment; try again shortly.",
    undefined,
    {
      "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS),
    },
  );
}

/** The error answer of whatever a request failed with; with `notes` (`?debug=true`), they name the failure too. */
export function errorResponse(error: unknown, requestId: string, notes: Notes | undefined): Response {
  let failure: ServiceError;
  if (error instanceof ServiceError) failure = error;
  else if (isDuplicateKeyError(error))
    failure = new ServiceError("conflict", "A record with these values already exists.");
  else if (isDatabaseUnavailable(error)) failure = databaseUnavailable();
  else
    failure = new ServiceError("internal", "Something went wrong on our side. Quote the request id when reporting it.");

  const body: ErrorBody = {
    error: {
      status: failure.status,
      code: failure.code,
      message: failure.message,
      ...(failure.details ? { details: failure.details } : {}),
      requestId,
    },
  };
  if (notes) {
    if (failure.details?.length) {
      for (const detail of failure.details) notes.error(failure.code, detail.message, detail.path);
    } else {
      notes.error(failure.code, failure.message);
    }
    body.debug = notes.list;
  }
  return jsonResponse(body, failure.status, requestId, failure.headers ?? {});
}
