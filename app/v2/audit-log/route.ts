import { handle, otherMethods } from "@/lib/http/route";
import * as audit from "@/lib/audit/contract";
import { listAuditLog } from "@/lib/audit/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(audit.list, ({ auth, query }) => listAuditLog(auth, query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
