import { ServiceError } from "@/lib/kernel/errors";
import { otherMethods, route } from "@/lib/platform/http/route";
import { isAdmin } from "@/lib/resources/auth/service";
import { scrape } from "@/lib/resources/spanning/metrics";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * Prometheus' scrape (docs/deployment.md#metrics): for an API key with `metrics:read` or a signed-in
 * admin's token, through the wrapper of every `/v2` route (its 401, 403 and rate limit).
 */
export const GET = route({ scope: "metrics:read" }, async ({ auth, requestId }) => {
  if (!auth.apiKey && !(await isAdmin(auth))) {
    throw new ServiceError(
      "forbidden",
      "The metrics are open to users holding an admin access role and to API keys with the scope metrics:read.",
    );
  }
  const { text, contentType } = await scrape();
  return new Response(text, {
    headers: { "Content-Type": contentType, "Cache-Control": "no-store", "X-Request-Id": requestId },
  });
});

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
