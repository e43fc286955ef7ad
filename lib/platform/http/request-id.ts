/** The request id of every answer and log line (docs/api.md#request-ids-and-logs), the same at the server entry and in the route wrapper. */
import { randomUUID } from "node:crypto";

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A sane incoming `X-Request-Id` (docs/api.md#request-ids-and-logs), else a new one. */
export function requestIdOf(incoming: string | string[] | null | undefined): string {
  return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
