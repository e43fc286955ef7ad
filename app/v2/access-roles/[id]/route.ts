import { otherMethods, route } from "@/lib/http/route";
import { ReferenceIdParams } from "@/lib/schemas/reference";
import { getReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ params: ReferenceIdParams }, ({ auth, params }) => getReference(auth, "accessRoles", params.id));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
