import { otherMethods } from "@/lib/http/route";
import * as users from "@/lib/users/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = users.me;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
