import { handle, otherMethods } from "@/lib/platform/http/route";
import * as audit from "@/lib/resources/audit/contract";
import { listAuditLog } from "@/lib/resources/audit/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(audit.list, ({ auth, query }) => listAuditLog(auth, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
