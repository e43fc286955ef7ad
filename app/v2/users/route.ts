import { otherMethods } from "@/lib/http/route";
import * as users from "@/lib/users/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = users.list;
export const POST = users.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
