import { handle, otherMethods } from "@/lib/platform/http/route";
import * as webhooks from "@/lib/resources/webhooks/contract";
import { listDeliveries } from "@/lib/resources/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(webhooks.deliveries, ({ auth, params, query }) => listDeliveries(auth, params.id, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
