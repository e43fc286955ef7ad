import { handle, otherMethods } from "@/lib/http/route";
import { bulkUpdateUsers } from "@/lib/users/bulk";
import * as users from "@/lib/users/contract";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = handle(users.bulk, ({ auth, body, notes }) => bulkUpdateUsers(auth, body, notes));

export const { OPTIONS, GET, HEAD, PUT, PATCH, DELETE } = otherMethods({ POST });
