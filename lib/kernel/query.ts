/**
 * Turns a query string into the input of a zod object schema: every parameter the schema names
 * as an array collects repeated values and splits comma-separated ones; every other parameter must
 * appear once. Bracketed keys (`email[$ne]`, `a[b]`) are refused rather than read as objects, so a
 * query can never smuggle an operator into a database filter; `name[]` is read as `name`.
 */
import type { ErrorDetail } from "@/lib/base/schemas/common";
import { z } from "zod";

export interface ParsedQuery {
  input: Record<string, string | string[]>;
  /** Parameters the schema does not name (ignored; a debug warning each). */
  unknown: string[];
  errors: ErrorDetail[];
}

/** Parameters every route understands, handled by the wrapper itself. */
const WRAPPER_PARAMS = new Set(["debug"]);

export function parseQuery(params: URLSearchParams, schema: z.ZodObject | undefined): ParsedQuery {
  const shape = schema?.shape ?? {};
  const input: Record<string, string | string[]> = Object.create(null);
  const unknown: string[] = [];
  const errors: ErrorDetail[] = [];
  const seen = new Set<string>();

  for (const [rawKey, value] of params) {
    let key = rawKey;
    if (key.endsWith("[]")) key = key.slice(0, -2);
    if (/[[\]]/.test(key)) {
      errors.push({
        path: rawKey,
        message: "bracketed parameter names are not supported; repeat the parameter instead",
      });
      continue;
    }
    if (WRAPPER_PARAMS.has(key)) continue;
    if (!Object.hasOwn(shape, key)) {
      if (!unknown.includes(rawKey)) unknown.push(rawKey);
      continue;
    }
    if (isArraySchema(shape[key])) {
      const parts = value
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "");
      const list = (input[key] as string[] | undefined) ?? [];
      list.push(...parts);
      input[key] = list;
    } else if (seen.has(key)) {
      errors.push({ path: key, message: "must be given once" });
    } else {
      input[key] = value;
    }
    seen.add(key);
  }
  // An array parameter given only as empty values (`email=`) is treated as absent.
  for (const [key, value] of Object.entries(input)) {
    if (Array.isArray(value) && value.length === 0) delete input[key];
  }
  return { input, unknown, errors };
}

/** Whether a schema field (through optional/default/pipe wrappers) is an array. */
function isArraySchema(schema: unknown): boolean {
  let current = schema as z.ZodType | undefined;
  for (let depth = 0; current && depth < 10; depth++) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (def.type === "array") return true;
    current = def.innerType ?? def.in;
  }
  return false;
}

/** The value of `debug`: `true` turns notifications on; anything but `true`/`false` is an error. */
export function debugFlag(params: URLSearchParams): { debug: boolean; error?: ErrorDetail } {
  const values = params.getAll("debug");
  if (values.length === 0) return { debug: false };
  const debug = values.includes("true");
  if (values.length > 1) return { debug, error: { path: "debug", message: "must be given once" } };
  if (values[0] !== "true" && values[0] !== "false")
    return { debug, error: { path: "debug", message: "must be true" } };
  return { debug };
}
