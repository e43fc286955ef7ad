import { handle, otherMethods } from "@/lib/http/route";
import { properties } from "@/lib/reference/contract";
import { getReference, updateReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(properties.read, ({ auth, params }) => getReference(auth, "properties", params.id));
export const PATCH = handle(properties.update, ({ auth, params, body }) => updateReference(auth, "properties", params.id, body));

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
