/**
 * Errors of a form, keyed by field: from the zod schema on the client, and from the `details` of
 * a server error, so both show up on the field they concern.
 */
import type { z } from "zod";
import { ApiError } from "./api";

export type FieldErrors = Record<string, string>;

/**
 * The field a path belongs to: the longest field name that is the path or a prefix of it by
 * segments (`accessRoles.0` → `accessRoles`). Undefined when no field matches.
 */
export function fieldOf(path: string, fields: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const field of fields) {
    if ((path === field || path.startsWith(`${field}.`)) && (!best || field.length > best.length)) best = field;
  }
  return best;
}

function collect(entries: { path: string; message: string }[], fields: readonly string[]): { fields: FieldErrors; rest: string[] } {
  const errors: FieldErrors = {};
  const rest: string[] = [];
  for (const { path, message } of entries) {
    const field = fieldOf(path, fields);
    if (field) errors[field] ??= sentence(message);
    else rest.push(path ? `${path}: ${message}` : message);
  }
  return { fields: errors, rest };
}

/** "must be an e-mail address" → "Must be an e-mail address." */
function sentence(message: string): string {
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export function zodFieldErrors(error: z.ZodError, fields: readonly string[]) {
  return collect(
    error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })),
    fields,
  );
}

export function serverFieldErrors(error: unknown, fields: readonly string[]) {
  if (!(error instanceof ApiError)) return { fields: {}, rest: [] };
  return collect(error.details, fields);
}

/** Moves the keyboard focus to the first field with an error, in the form's own order. */
export function focusFirstError(errors: FieldErrors, order: readonly string[], idOf: (field: string) => string): void {
  const first = order.find((field) => errors[field]);
  if (first) requestAnimationFrame(() => document.getElementById(idOf(first))?.focus());
}
