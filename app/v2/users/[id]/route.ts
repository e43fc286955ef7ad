import { ifMatch, tagged, taggedAs } from "@/lib/platform/http/etag";
import { handle, otherMethods } from "@/lib/platform/http/route";
import { updateUserWithKeys } from "@/lib/resources/spanning/user-keys";
import * as users from "@/lib/resources/users/contract";
import { userTag } from "@/lib/resources/users/repository";
import { userAnswer } from "@/lib/resources/users/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(users.read, async ({ request, auth, params }) =>
  taggedAs(request, await userAnswer(auth, params.id)),
);
export const PATCH = handle(users.update, async ({ request, auth, params, query, body, notes }) =>
  tagged(request, await updateUserWithKeys(auth, params.id, body, query, notes, ifMatch(request)), userTag),
);

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
