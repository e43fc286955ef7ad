import { handle, otherMethods } from "@/lib/http/route";
import * as webhooks from "@/lib/webhooks/contract";
import { listDeliveries } from "@/lib/webhooks/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(webhooks.deliveries, ({ auth, params, query }) => listDeliveries(auth, params.id, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
