import { handle, otherMethods } from "@/lib/platform/http/route";
import { properties } from "@/lib/resources/reference/contract";
import { getReference, updateReference } from "@/lib/resources/spanning/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(properties.read, ({ auth, params }) => getReference(auth, "properties", params.id));
export const PATCH = handle(properties.update, ({ auth, params, body }) =>
  updateReference(auth, "properties", params.id, body),
);

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
