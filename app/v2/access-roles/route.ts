import { otherMethods } from "@/lib/http/route";
import { accessRoles } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = accessRoles.list;
export const POST = accessRoles.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
