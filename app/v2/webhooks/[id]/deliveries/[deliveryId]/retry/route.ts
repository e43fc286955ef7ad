import { handle, otherMethods } from "@/lib/http/route";
import * as webhooks from "@/lib/webhooks/contract";
import { retryDelivery } from "@/lib/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(webhooks.retry, ({ auth, params }) => retryDelivery(auth, params.id, params.deliveryId));

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
