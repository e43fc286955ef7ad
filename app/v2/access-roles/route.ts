import { created, otherMethods, route } from "@/lib/http/route";
import { CreateAccessRoleBody, ListReferenceQuery, SERVER_MANAGED_REFERENCE_FIELDS } from "@/lib/schemas/reference";
import { createReference, listReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ query: ListReferenceQuery }, ({ auth, query }) => listReference(auth, "accessRoles", query));

export const POST = route(
  { admin: true, body: CreateAccessRoleBody, ignoreBodyFields: SERVER_MANAGED_REFERENCE_FIELDS },
  async ({ auth, body }) => {
    const record = await createReference(auth, "accessRoles", body);
    return created(record, `/v2/access-roles/${record._id}`);
  },
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
