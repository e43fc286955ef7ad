import { handle, otherMethods } from "@/lib/platform/http/route";
import * as webhooks from "@/lib/resources/webhooks/contract";
import { rotateWebhookSecret } from "@/lib/resources/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(webhooks.rotateSecret, ({ auth, params }) => rotateWebhookSecret(auth, params.id));

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
