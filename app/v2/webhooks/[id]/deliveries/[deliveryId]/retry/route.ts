import { handle, otherMethods } from "@/lib/platform/http/route";
import * as webhooks from "@/lib/resources/webhooks/contract";
import { retryDelivery } from "@/lib/resources/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(webhooks.retry, ({ auth, params }) => retryDelivery(auth, params.id, params.deliveryId));

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
