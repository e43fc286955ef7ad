import { handle, otherMethods } from "@/lib/http/route";
import * as webhooks from "@/lib/webhooks/contract";
import { testWebhook } from "@/lib/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(webhooks.test, ({ auth, params }) => testWebhook(auth, params.id));

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
