import { tagged } from "@/lib/platform/http/etag";
import { handle, otherMethods } from "@/lib/platform/http/route";
import * as users from "@/lib/resources/users/contract";
import { userTag } from "@/lib/resources/users/repository";
import { getMe } from "@/lib/resources/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.me, async ({ request, auth }) => tagged(request, await getMe(auth), userTag));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
