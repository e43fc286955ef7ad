import { otherMethods } from "@/lib/http/route";
import { accessRoles } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = accessRoles.read;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
