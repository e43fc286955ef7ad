import { otherMethods } from "@/lib/http/route";
import * as outbox from "@/lib/api/mail";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = outbox.list;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
