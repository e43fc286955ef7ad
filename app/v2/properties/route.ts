import { createdRecord, handle, otherMethods } from "@/lib/http/route";
import { properties } from "@/lib/reference/contract";
import { createReference, listReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(properties.list, ({ auth, query }) => listReference(auth, "properties", query));
export const POST = handle(properties.create, async ({ auth, body }) => createdRecord(properties.create.path, await createReference(auth, "properties", body)));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
