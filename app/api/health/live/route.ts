import { otherMethods, plainRoute } from "@/lib/platform/http/route";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Liveness (docs/deployment.md#processes-restarts-and-health): 200 while the process serves HTTP at all, draining or not. */
export const GET = plainRoute(async () => {
  return Response.json({ status: "live" }, { headers: { "Cache-Control": "no-store" } });
});

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
