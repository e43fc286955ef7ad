import { createdRecord, handle, otherMethods } from "@/lib/http/route";
import { bots } from "@/lib/reference/contract";
import { createReference, listReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(bots.list, ({ auth, query }) => listReference(auth, "bots", query));
export const POST = handle(bots.create, async ({ auth, body }) => createdRecord(bots.create.path, await createReference(auth, "bots", body)));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
