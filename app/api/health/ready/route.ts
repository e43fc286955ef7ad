import { isDraining } from "@/lib/base/shared/shutdown";
import { ping } from "@/lib/kernel/db";
import { DATABASE_RETRY_AFTER_SECONDS, otherMethods, plainRoute } from "@/lib/platform/http/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const unavailable = (request: Request, message: string, retryAfter?: number) =>
  Response.json(
    {
      error: {
        status: 503,
        code: "service_unavailable",
        message,
        requestId: request.headers.get("x-request-id") ?? undefined,
      },
    },
    {
      status: 503,
      headers: { "Cache-Control": "no-store", ...(retryAfter ? { "Retry-After": String(retryAfter) } : {}) },
    },
  );

/**
 * Readiness (docs/deployment.md#processes-restarts-and-health): 200 only while this process takes
 * new requests and its database answers; 503 in the error shape once it drains or while the database is away.
 */
export const GET = plainRoute(async (request) => {
  if (isDraining()) return unavailable(request, "This server process is stopping; send requests to another.");
  try {
    await ping();
  } catch (error) {
    // The reason is logged, not returned: driver errors name hosts and users.
    console.error("readiness check failed:", error instanceof Error ? error.message : error);
    return unavailable(request, "The database does not answer.", DATABASE_RETRY_AFTER_SECONDS);
  }
  if (isDraining()) return unavailable(request, "This server process is stopping; send requests to another.");
  return Response.json({ status: "ready" }, { headers: { "Cache-Control": "no-store" } });
});

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
