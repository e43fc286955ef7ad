import { handle, otherMethods } from "@/lib/http/route";
import { accessRoles } from "@/lib/reference/contract";
import { getReference, updateReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(accessRoles.read, ({ auth, params }) => getReference(auth, "accessRoles", params.id));
export const PATCH = handle(accessRoles.update, ({ auth, params, body }) => updateReference(auth, "accessRoles", params.id, body));

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
