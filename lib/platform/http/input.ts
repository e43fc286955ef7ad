/**
 * A request's path parameters and JSON body as the route wrapper reads them, and zod's issues as
 * the error envelope's `details` (docs/api.md#errors): one detail per bad field.
 */
import type { ErrorDetail } from "@/lib/base/schemas/common";
import { ServiceError } from "@/lib/kernel/errors";
import type { Notes } from "@/lib/kernel/notes";
import type { z } from "zod";
import type { RouteParams } from "./binding";
import { readJsonBody } from "./body";

export async function parseParams(
  schema: z.ZodObject | undefined,
  context: { params: RouteParams } | undefined,
): Promise<unknown> {
  if (!schema) return undefined;
  const raw = (await context?.params) ?? {};
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new ServiceError(
    "invalid_id",
    "The id in the path is not a 24-hex ObjectId.",
    issueDetails(result.error.issues),
  );
}

/** The JSON body, without the fields the service sets (each dropped with a warning note). */
export async function readBody(request: Request, ignored: readonly string[], notes: Notes): Promise<unknown> {
  const body = await readJsonBody(request);
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    for (const field of ignored) {
      if (Object.hasOwn(body, field)) {
        delete (body as Record<string, unknown>)[field];
        notes.warning(
          "ignored_field",
          `The field "${field}" is set by the service; the value sent was ignored.`,
          field,
        );
      }
    }
  }
  return body;
}

/** One detail per bad field; an unknown key is named by its own path. */
export function issueDetails(issues: z.core.$ZodIssue[], root = ""): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) details.push({ path: [...base, key].join("."), message: "is not a known field" });
    } else {
      details.push({ path: base.length > 0 ? base.join(".") : root || "(value)", message: issue.message });
    }
  }
  return details;
}
