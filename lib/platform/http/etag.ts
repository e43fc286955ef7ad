/**
 * Conditional requests on single records (docs/api.md#conditional-requests): the `ETag` of every
 * answer that is one record, `304 Not Modified` for a `GET` whose `If-None-Match` names the
 * current tag, and the `If-Match` a `PATCH` hands to its service, which checks it as part of the
 * write itself (a check here, before the write, would race with other writers).
 */
import { matchesTag } from "@/lib/kernel/entity-tag";
import { Reply } from "./reply";

/** The record with its `ETag`, computed from it; `304` with no body when the request's `If-None-Match` names that tag. */
export function tagged<T>(request: Request, body: T, tagOf: (body: T) => string): Reply {
  return taggedAs(request, { body, tag: tagOf(body) });
}

/** {@link tagged}, the tag computed where the record was read. */
export function taggedAs(request: Request, { body, tag }: { body: unknown; tag: string }): Reply {
  const ifNoneMatch = request.headers.get("if-none-match");
  if (request.method === "GET" && ifNoneMatch !== null && matchesTag(ifNoneMatch, tag))
    return new Reply(null, 304, { ETag: tag });
  return new Reply(body, 200, { ETag: tag });
}

/** The request's `If-Match`, for the service to check within its write; `undefined` when absent. */
export function ifMatch(request: Request): string | undefined {
  return request.headers.get("if-match") ?? undefined;
}
