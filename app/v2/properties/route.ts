import { created, otherMethods, route } from "@/lib/http/route";
import { CreateNamedBody, ListReferenceQuery, SERVER_MANAGED_REFERENCE_FIELDS } from "@/lib/schemas/reference";
import { createReference, listReference } from "@/lib/services/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ query: ListReferenceQuery }, ({ auth, query }) => listReference(auth, "properties", query));

export const POST = route(
  { admin: true, body: CreateNamedBody, ignoreBodyFields: SERVER_MANAGED_REFERENCE_FIELDS },
  async ({ auth, body }) => {
    const record = await createReference(auth, "properties", body);
    return created(record, `/v2/properties/${record._id}`);
  },
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
