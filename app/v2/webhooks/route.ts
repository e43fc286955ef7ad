import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import * as webhooks from "@/lib/resources/webhooks/contract";
import { createWebhook, listWebhooks } from "@/lib/resources/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(webhooks.list, ({ auth, query }) => listWebhooks(auth, query));
export const POST = handle(webhooks.create, async ({ auth, body }) =>
  createdRecord(webhooks.create.path, await createWebhook(auth, body)),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
