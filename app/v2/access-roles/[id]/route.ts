import { handle, otherMethods } from "@/lib/platform/http/route";
import { accessRoles } from "@/lib/resources/reference/contract";
import { getReference, updateReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(accessRoles.read, ({ auth, params }) => getReference(auth, "accessRoles", params.id));
export const PATCH = handle(accessRoles.update, ({ auth, params, body }) =>
  updateReference(auth, "accessRoles", params.id, body),
);

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
