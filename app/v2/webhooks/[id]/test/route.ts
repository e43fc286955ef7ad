import { handle, otherMethods } from "@/lib/platform/http/route";
import * as webhooks from "@/lib/resources/webhooks/contract";
import { testWebhook } from "@/lib/resources/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(webhooks.test, ({ auth, params }) => testWebhook(auth, params.id));

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
