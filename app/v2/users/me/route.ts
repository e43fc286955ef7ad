import { taggedAs } from "@/lib/platform/http/etag";
import { handle, otherMethods } from "@/lib/platform/http/route";
import * as users from "@/lib/resources/users/contract";
import { getMe } from "@/lib/resources/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.me, async ({ request, auth }) => taggedAs(request, await getMe(auth)));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
