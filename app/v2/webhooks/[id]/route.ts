import { handle, noContent, otherMethods } from "@/lib/platform/http/route";
import * as webhooks from "@/lib/resources/webhooks/contract";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/resources/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(webhooks.read, ({ auth, params }) => getWebhook(auth, params.id));
export const PATCH = handle(webhooks.update, ({ auth, params, body }) => updateWebhook(auth, params.id, body));
export const DELETE = handle(webhooks.remove, ({ auth, params }) => deleteWebhook(auth, params.id).then(noContent));

export const { OPTIONS, POST, PUT } = otherMethods({ GET, PATCH, DELETE });
