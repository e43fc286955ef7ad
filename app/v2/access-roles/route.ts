import { createdRecord, handle, otherMethods } from "@/lib/http/route";
import { accessRoles } from "@/lib/reference/contract";
import { createReference, listReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(accessRoles.list, ({ auth, query }) => listReference(auth, "accessRoles", query));
export const POST = handle(accessRoles.create, async ({ auth, body }) => createdRecord(accessRoles.create.path, await createReference(auth, "accessRoles", body)));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
