import { handle, otherMethods } from "@/lib/platform/http/route";
import * as outbox from "@/lib/resources/mail/contract";
import { listOutbox } from "@/lib/resources/mail/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(outbox.list, ({ auth, query }) => listOutbox(auth, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
