import { handle, otherMethods } from "@/lib/platform/http/route";
import { bots } from "@/lib/resources/reference/contract";
import { getReference, updateReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(bots.read, ({ auth, params }) => getReference(auth, "bots", params.id));
export const PATCH = handle(bots.update, ({ auth, params, body }) => updateReference(auth, "bots", params.id, body));

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
