import { otherMethods } from "@/lib/http/route";
import { accessRoles } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = accessRoles.holders;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
