import { handle, otherMethods } from "@/lib/http/route";
import { bots } from "@/lib/reference/contract";
import { getReference, updateReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(bots.read, ({ auth, params }) => getReference(auth, "bots", params.id));
export const PATCH = handle(bots.update, ({ auth, params, body }) => updateReference(auth, "bots", params.id, body));

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
