import { handle, otherMethods } from "@/lib/platform/http/route";
import * as events from "@/lib/resources/events/contract";
import { listEvents } from "@/lib/resources/events/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(events.list, ({ auth, query }) => listEvents(auth, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
