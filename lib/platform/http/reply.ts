/**
 * What a route handler answers and how it becomes a `Response`: a plain value is a `200` JSON body,
 * a {@link Reply} sets the status and headers (docs/api.md#errors), and every answer carries
 * `X-Request-Id` and `Cache-Control: no-store`.
 */
import { JsonText, stringify } from "@/lib/kernel/json-text";
import type { Notes } from "@/lib/kernel/notes";

/** A handler's answer other than a plain `200` JSON body. */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** `201 Created` with a `Location` header (docs/api.md#errors). */
export const created = (body: unknown, location: string) => new Reply(body, 201, { Location: location });

/** `204 No Content`: the operation was done and has nothing to show. */
export const noContent = () => new Reply(null, 204);

/**
 * `201 Created` of a new record: its `Location` is the path it was created at followed by its id,
 * and with `tagOf` it carries its `ETag` (docs/api.md#conditional-requests) like every later read.
 */
export function createdRecord<T extends { _id: string }>(
  path: string,
  record: T,
  tagOf?: (record: T) => string,
): Reply {
  return new Reply(record, 201, { Location: `${path}/${record._id}`, ...(tagOf ? { ETag: tagOf(record) } : {}) });
}

/** The `Response` of a handler's result; with `notes` (`?debug=true`), an object body carries them as `debug`. */
export function successResponse(result: unknown, requestId: string, notes: Notes | undefined): Response {
  const reply = result instanceof Reply ? result : new Reply(result);
  if (reply.body instanceof Response) return reply.body;
  if (reply.status === 204 || reply.status === 304) {
    return new Response(null, {
      status: reply.status,
      headers: { "Cache-Control": "no-store", "X-Request-Id": requestId, ...reply.headers },
    });
  }
  let body = reply.body ?? {};
  // A record written where it was read (lib/kernel/json-text.ts) is read back to take its notes.
  if (notes && body instanceof JsonText) body = JSON.parse(body.text) as object;
  if (notes && typeof body === "object" && !Array.isArray(body)) body = { ...body, debug: notes.list };
  return jsonResponse(body, reply.status, requestId, reply.headers);
}

export function jsonResponse(
  body: unknown,
  status: number,
  requestId: string,
  headers: Record<string, string>,
): Response {
  return new Response(stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Request-Id": requestId,
      ...headers,
    },
  });
}
