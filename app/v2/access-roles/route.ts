import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import { accessRoles } from "@/lib/resources/reference/contract";
import { createReference, listReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(accessRoles.list, ({ auth, query }) => listReference(auth, "accessRoles", query));
export const POST = handle(accessRoles.create, async ({ auth, body }) =>
  createdRecord(accessRoles.create.path, await createReference(auth, "accessRoles", body)),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
