import { created, otherMethods, route } from "@/lib/http/route";
import { CreateUserBody, CreateUserQuery, ListUsersQuery, SERVER_MANAGED_USER_FIELDS } from "@/lib/schemas/users";
import { createUser, listUsers } from "@/lib/services/users";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ query: ListUsersQuery }, ({ auth, query, notes }) => listUsers(auth, query, notes));

export const POST = route(
  {
    admin: true,
    query: CreateUserQuery,
    body: CreateUserBody,
    // `companies` is always the caller's company (docs/api.md#creating-a-user).
    ignoreBodyFields: [...SERVER_MANAGED_USER_FIELDS, "companies"],
  },
  async ({ auth, query, body, notes, origin }) => {
    const user = await createUser(auth, body, { notifyEmail: query.notifyEmail, origin, notes });
    return created(user, `/v2/users/${user._id}`);
  },
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
