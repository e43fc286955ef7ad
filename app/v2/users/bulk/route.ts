import { handle, otherMethods } from "@/lib/platform/http/route";
import { bulkUpdateUsersWithKeys } from "@/lib/resources/spanning/user-keys";
import * as users from "@/lib/resources/users/contract";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(users.bulk, ({ auth, body, notes }) => bulkUpdateUsersWithKeys(auth, body, notes));

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
