/**
 * The route handler of each operation, found where Next.js finds it: the export named by the
 * operation's method in the route file of its path (`GET /v2/users/{id}` is the `GET` of
 * `app/v2/users/[id]/route.ts`). Route files are loaded at run time by that convention, so no
 * list of them is kept by hand and no module under lib/ imports app/: the fuzzer (and the
 * document's test) reach the handlers as the server does, from the file system.
 */
import type { Operation } from "@/lib/base/schemas/operation";
import { operationOf, type RouteHandler } from "@/lib/platform/http/binding";
import { OPERATIONS } from "@/lib/resources";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** `GET /v2/users/{id}`: how the fuzzer and the document's test name an operation. */
export const keyOf = (operation: Pick<Operation, "method" | "path">) =>
  `${operation.method.toUpperCase()} ${operation.path}`;

/** `/v2/users/{id}` → `<root>/app/v2/users/[id]/route.ts`. */
function routeFileOf(operationPath: string): string {
  const segments = operationPath
    .split("/")
    .filter(Boolean)
    .map((segment) => segment.replace(/^\{(.+)\}$/, "[$1]"));
  return path.join(ROOT, "app", ...segments, "route.ts");
}

/**
 * The handler bound to each operation by its route file, by {@link keyOf}. Throws, naming the
 * operation and the file, when the route file is missing or its export of the method does not
 * bind that very operation.
 */
export async function boundHandlers(operations: readonly Operation[] = OPERATIONS): Promise<Map<string, RouteHandler>> {
  const handlers = new Map<string, RouteHandler>();
  for (const operation of operations) {
    const file = routeFileOf(operation.path);
    const routeModule = (await import(file).catch((error: unknown) => {
      throw new Error(`${keyOf(operation)} has no route file (${path.relative(ROOT, file)})`, { cause: error });
    })) as Record<string, unknown>;
    const handler = routeModule[operation.method.toUpperCase()];
    if (operationOf(handler) !== operation)
      throw new Error(
        `${keyOf(operation)} is not bound by the ${operation.method.toUpperCase()} export of ${path.relative(ROOT, file)}`,
      );
    handlers.set(keyOf(operation), handler as RouteHandler);
  }
  return handlers;
}
