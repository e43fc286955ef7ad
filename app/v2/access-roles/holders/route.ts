import { handle, otherMethods } from "@/lib/http/route";
import { accessRoles } from "@/lib/reference/contract";
import { countReferenceHolders } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(accessRoles.holders, ({ auth, query }) => countReferenceHolders(auth, "accessRoles", query));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
