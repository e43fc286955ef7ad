import { createdRecord, handle, otherMethods } from "@/lib/http/route";
import * as users from "@/lib/users/contract";
import { userTag } from "@/lib/users/repository";
import { createUser, listUsers } from "@/lib/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.list, ({ auth, query, notes }) => listUsers(auth, query, notes));
export const POST = handle(users.create, async ({ auth, query, body, notes }) => createdRecord(users.create.path, await createUser(auth, body, { notifyEmail: query.notifyEmail, notes }), userTag));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
