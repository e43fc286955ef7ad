/**
 * Errors of a form, keyed by field: from the zod schema on the client, and from the `details` of
 * a server error, so both show up on the field they concern — always in words written for a
 * person. This is the one place that turns zod's issues (by their code) and the server's detail
 * messages into those words, for every form.
 */
import type { z } from "zod";
import { ApiError } from "./api";

export type FieldErrors = Record<string, string>;

/** How a form speaks of one of its fields. */
export interface FieldText {
  /** What to ask for when the field is empty: "your e-mail" → "Enter your e-mail." */
  noun?: string;
  /** The field's whole rule, said instead of any single format or length complaint. */
  rule?: string;
}
export type FieldTexts = Readonly<Record<string, FieldText>>;

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

/** "must be an e-mail address" → "Must be an e-mail address." (and no code quotes). */
function sentence(message: string): string {
  const bare = message.replaceAll("`", "").trim();
  const text = bare.charAt(0).toUpperCase() + bare.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The issue, as far as the words need it: zod's own, or one read back from a server message. */
interface Problem {
  code: string;
  message: string;
  origin?: string;
  minimum?: number;
  maximum?: number;
  format?: string;
  received?: string;
  values?: string[];
}

/** zod's own wording (its defaults start like this); a schema's own messages are kept as written. */
const ZOD_DEFAULT = /^(Invalid|Too small|Too big|Unrecognized key|Expected)/;

function plain(problem: Problem, text: FieldText = {}): string {
  const { code, origin, minimum, maximum } = problem;
  const empty =
    (code === "too_small" && minimum === 1) || (code === "invalid_type" && problem.received === "undefined");
  if (empty) {
    if (origin === "array") return text.noun ? `Choose ${text.noun}.` : "Choose at least one.";
    return text.noun ? `Enter ${text.noun}.` : "Fill in this field.";
  }
  if (text.rule && (code === "too_small" || code === "too_big" || code === "invalid_format")) return text.rule;
  if (!ZOD_DEFAULT.test(problem.message)) return sentence(problem.message);
  switch (code) {
    case "too_small":
      if (origin === "string") return `At least ${plural(minimum ?? 0, "character", "characters")}.`;
      if (origin === "array" || origin === "set") return `Choose at least ${minimum}.`;
      return `At least ${minimum}.`;
    case "too_big":
      if (origin === "string") return `At most ${plural(maximum ?? 0, "character", "characters")}.`;
      if (origin === "array" || origin === "set") return `At most ${maximum} can be chosen.`;
      return `At most ${maximum}.`;
    case "invalid_format":
      if (problem.format === "email") return "Enter an e-mail address such as name@example.com.";
      if (problem.format === "url") return "Enter a web address such as https://example.com.";
      if (problem.format === "datetime" || problem.format === "date") return "Enter a date.";
      return "This contains characters that are not allowed here.";
    case "invalid_value":
      return problem.values?.length ? `Choose one of: ${problem.values.join(", ")}.` : "Choose one of the options.";
    case "unrecognized_keys":
      return "This field is not accepted here.";
    case "invalid_type":
      return origin === "number" || origin === "int" ? "Enter a number." : "This value is not valid.";
    default:
      return "This value is not valid.";
  }
}

/** A zod issue in plain words. */
export function plainIssue(issue: z.core.$ZodIssue, text?: FieldText): string {
  const raw = issue as unknown as Record<string, unknown>;
  return plain(
    {
      code: issue.code,
      message: issue.message,
      // An invalid_type issue names the type it wanted as `expected`.
      origin: typeof raw.origin === "string" ? raw.origin : typeof raw.expected === "string" ? raw.expected : undefined,
      minimum: raw.minimum === undefined ? undefined : Number(raw.minimum),
      maximum: raw.maximum === undefined ? undefined : Number(raw.maximum),
      format: typeof raw.format === "string" ? raw.format : undefined,
      received:
        issue.code === "invalid_type" && raw.input === undefined && /received undefined/.test(issue.message)
          ? "undefined"
          : undefined,
      values: Array.isArray(raw.values) ? raw.values.map(String) : undefined,
    },
    text,
  );
}

/** A server detail message (zod's default wording, passed on by the API) read back as an issue. */
function problemOfMessage(message: string): Problem {
  let match = /^Too (small|big): expected (string|array|number|set) to (?:have|be) ([<>]=?)(\d+)/.exec(message);
  if (match) {
    const [, size, origin, relation, count] = match;
    // zod writes ">1" for "more than 1": the smallest allowed is one more.
    const bound = Number(count) + (relation === ">" ? 1 : relation === "<" ? -1 : 0);
    return size === "small"
      ? { code: "too_small", message, origin, minimum: bound }
      : { code: "too_big", message, origin, maximum: bound };
  }
  match = /^Invalid input: expected (\w+), received (\w+)/.exec(message);
  if (match) return { code: "invalid_type", message, origin: match[1], received: match[2] };
  if (/^Invalid email/i.test(message)) return { code: "invalid_format", message, format: "email" };
  if (/^Invalid (string|format)/.test(message)) return { code: "invalid_format", message };
  match = /^Invalid option: expected one of (.*)$/.exec(message);
  if (match)
    return {
      code: "invalid_value",
      message,
      values: match[1].split("|").map((value) => value.replaceAll('"', "").trim()),
    };
  if (/^Unrecognized key/.test(message) || message === "is not a known field")
    return { code: "unrecognized_keys", message: "Unrecognized key" };
  return { code: "custom", message };
}

/** A server detail's message in plain words (for a field, or listed under a general error). */
export function plainDetail(message: string, text?: FieldText): string {
  return plain(problemOfMessage(message), text);
}

function collect(
  entries: { path: string; message: string }[],
  fields: readonly string[],
): { fields: FieldErrors; rest: string[] } {
  const errors: FieldErrors = {};
  const rest: string[] = [];
  for (const { path, message } of entries) {
    const field = fieldOf(path, fields);
    if (field) errors[field] ??= message;
    else rest.push(message);
  }
  return { fields: errors, rest };
}

/** The value at a path of what was checked, to tell an empty field from a wrong one. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path)
    value = value !== null && typeof value === "object" ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

const isEmpty = (value: unknown) =>
  value === undefined ||
  (typeof value === "string" && value.trim() === "") ||
  (Array.isArray(value) && value.length === 0);

/** `input` is what was checked: an empty field with a noun is asked for ("Enter …") whatever its rule said. */
export function zodFieldErrors(error: z.ZodError, fields: readonly string[], texts: FieldTexts = {}, input?: unknown) {
  return collect(
    error.issues.map((issue) => {
      const path = issue.path.map(String).join(".");
      const text = texts[fieldOf(path, fields) ?? ""];
      if (input !== undefined && text?.noun && isEmpty(valueAt(input, issue.path))) {
        return {
          path,
          message: Array.isArray(valueAt(input, issue.path)) ? `Choose ${text.noun}.` : `Enter ${text.noun}.`,
        };
      }
      return { path, message: plainIssue(issue, text) };
    }),
    fields,
  );
}

export function serverFieldErrors(error: unknown, fields: readonly string[], texts: FieldTexts = {}) {
  if (!(error instanceof ApiError)) return { fields: {}, rest: [] };
  return collect(
    error.details.map(({ path, message }) => ({
      path,
      message: plainDetail(message, texts[fieldOf(path, fields) ?? ""]),
    })),
    fields,
  );
}

/** Moves the keyboard focus to the first field with an error, in the form's own order. */
export function focusFirstError(errors: FieldErrors, order: readonly string[], idOf: (field: string) => string): void {
  const first = order.find((field) => errors[field]);
  if (first) requestAnimationFrame(() => document.getElementById(idOf(first))?.focus());
}
