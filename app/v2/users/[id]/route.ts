import { ifMatch, tagged } from "@/lib/http/etag";
import { handle, otherMethods } from "@/lib/http/route";
import * as users from "@/lib/users/contract";
import { userTag } from "@/lib/users/repository";
import { getUser, updateUser } from "@/lib/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.read, async ({ request, auth, params }) => tagged(request, await getUser(auth, params.id), userTag));
export const PATCH = handle(users.update, async ({ request, auth, params, body, notes }) => tagged(request, await updateUser(auth, params.id, body, notes, ifMatch(request)), userTag));

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
