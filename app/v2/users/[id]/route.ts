import { otherMethods, route } from "@/lib/http/route";
import { SERVER_MANAGED_USER_FIELDS, UpdateUserBody, UserIdParams } from "@/lib/schemas/users";
import { getUser, updateUser } from "@/lib/services/users";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ params: UserIdParams }, ({ auth, params }) => getUser(auth, params.id));

export const PATCH = route(
  { admin: true, params: UserIdParams, body: UpdateUserBody, ignoreBodyFields: SERVER_MANAGED_USER_FIELDS },
  ({ auth, params, body, notes }) => updateUser(auth, params.id, body, notes),
);

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
