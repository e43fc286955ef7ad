import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import * as views from "@/lib/resources/views/contract";
import { createView, listViews } from "@/lib/resources/views/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(views.list, ({ request, auth, query }) =>
  listViews(auth, query, request.headers.get("admin")),
);
export const POST = handle(views.create, async ({ auth, body }) =>
  createdRecord(views.create.path, await createView(auth, body)),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
