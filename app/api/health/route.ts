import { databaseKind, ping } from "@/lib/kernel/db";
import { DATABASE_RETRY_AFTER_SECONDS, otherMethods, plainRoute } from "@/lib/platform/http/route";
import { randomUUID } from "node:crypto";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Echoes a sane incoming request id (docs/api.md#request-ids-and-logs), else makes one. */
function requestId(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
}

export const GET = plainRoute(async (request) => {
  const headers = { "Cache-Control": "no-store", "X-Request-Id": requestId(request) };
  let database: ReturnType<typeof databaseKind> | undefined;
  try {
    database = databaseKind();
    await ping();
    return Response.json({ status: "ok", database }, { headers });
  } catch (error) {
    // The reason is logged, not returned: driver errors name hosts and users.
    console.error("health check failed:", error instanceof Error ? error.message : error);
    return Response.json(
      { status: "unavailable", database, message: "The database does not answer." },
      { status: 503, headers: { ...headers, "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) } },
    );
  }
});

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
