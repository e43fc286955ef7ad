import { otherMethods } from "@/lib/http/route";
import * as users from "@/lib/api/users";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = users.list;
export const POST = users.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
