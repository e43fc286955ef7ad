import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import { properties } from "@/lib/resources/reference/contract";
import { createReference, listReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(properties.list, ({ auth, query }) => listReference(auth, "properties", query));
export const POST = handle(properties.create, async ({ auth, body }) =>
  createdRecord(properties.create.path, await createReference(auth, "properties", body)),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
