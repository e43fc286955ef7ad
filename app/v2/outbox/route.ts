import { handle, otherMethods } from "@/lib/http/route";
import * as outbox from "@/lib/mail/contract";
import { listOutbox } from "@/lib/mail/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(outbox.list, ({ auth, query }) => listOutbox(auth, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
