import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import * as users from "@/lib/resources/users/contract";
import { userTag } from "@/lib/resources/users/repository";
import { createUser, listUsers } from "@/lib/resources/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.list, ({ auth, query, notes }) => listUsers(auth, query, notes));
export const POST = handle(users.create, async ({ auth, query, body, notes }) =>
  createdRecord(users.create.path, await createUser(auth, body, { notifyEmail: query.notifyEmail, notes }), userTag),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
