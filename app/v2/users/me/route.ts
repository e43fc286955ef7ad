import { otherMethods } from "@/lib/http/route";
import * as users from "@/lib/api/users";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = users.me;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
