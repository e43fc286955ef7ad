/**
 * A list's query string carried inside a body (a saved view's `query`, a bulk action's `query`):
 * read as the list itself reads its URL (lib/platform/http/query.ts) and checked with the list's own zod
 * schema, so a value the list would refuse is refused here too (docs/api.md#saved-views).
 */
import type { ErrorDetail } from "@/lib/base/schemas/common";
import { parseQuery } from "@/lib/kernel/query";
import type { z } from "zod";
import { ServiceError } from "./errors";

export interface ListQueryOptions {
  /** Where the query is in the body, for error details (`query` → `query.isActive`). */
  path: string;
  /** Parameters dropped before the check (paging: they are not part of what is selected). */
  drop: readonly string[];
  /** Parameters that take a date-time and may also be given as a day (`2026-01-31`, read as its start in UTC). */
  days?: readonly string[];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The query string without a leading `?` and without the dropped parameters, and its parsed value;
 * `400 invalid_request` naming each bad parameter, and each parameter the list does not know (an
 * unnoticed typo would silently select more than meant).
 */
export function checkListQuery<S extends z.ZodObject>(
  text: string,
  schema: S,
  options: ListQueryOptions,
): { query: string; value: z.output<S> } {
  const params = new URLSearchParams(text.trim().replace(/^\?/, ""));
  for (const name of [...options.drop, "debug"]) params.delete(name);
  const parsed = parseQuery(params, schema);
  const details: ErrorDetail[] = parsed.errors.map((error) => ({
    path: `${options.path}.${error.path}`,
    message: error.message,
  }));
  for (const name of parsed.unknown)
    details.push({ path: `${options.path}.${name}`, message: "is not a parameter of the list" });
  const input: Record<string, unknown> = { ...parsed.input };
  for (const name of options.days ?? []) {
    const value = input[name];
    if (typeof value === "string" && DAY.test(value)) input[name] = `${value}T00:00:00.000Z`;
  }
  const result = schema.safeParse(input);
  if (!result.success) {
    for (const issue of result.error.issues)
      details.push({ path: [options.path, ...issue.path.map(String)].join("."), message: issue.message });
  }
  if (details.length > 0 || !result.success)
    throw new ServiceError("invalid_request", "The request is not valid.", details);
  return { query: params.toString(), value: result.data };
}
