import { tagged } from "@/lib/http/etag";
import { handle, otherMethods } from "@/lib/http/route";
import * as users from "@/lib/users/contract";
import { userTag } from "@/lib/users/repository";
import { getMe } from "@/lib/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.me, async ({ request, auth }) => tagged(request, await getMe(auth), userTag));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
