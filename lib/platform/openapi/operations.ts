/**
 * Every operation the OpenAPI document describes: those of the resources' contracts named in
 * lib/resources/index.ts, in the order of the document. The document test checks that every route file
 * under `app/v2` serves one of these paths, that every listed path has its route file, and that
 * every operation is bound by the export of its route file named by its method.
 */
import type { Method, Operation } from "@/lib/base/schemas/operation";
import { OPERATIONS } from "@/lib/resources";

/** The operations grouped by path, in the order of {@link OPERATIONS}. */
export const PATHS: Map<string, Partial<Record<Method, Operation>>> = new Map();
for (const operation of OPERATIONS) {
  const item = PATHS.get(operation.path) ?? {};
  if (item[operation.method]) throw new Error(`${operation.method.toUpperCase()} ${operation.path} is declared twice`);
  item[operation.method] = operation;
  PATHS.set(operation.path, item);
}
