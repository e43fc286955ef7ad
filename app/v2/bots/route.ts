import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import { bots } from "@/lib/resources/reference/contract";
import { createReference, listReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(bots.list, ({ auth, query }) => listReference(auth, "bots", query));
export const POST = handle(bots.create, async ({ auth, body }) =>
  createdRecord(bots.create.path, await createReference(auth, "bots", body)),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
