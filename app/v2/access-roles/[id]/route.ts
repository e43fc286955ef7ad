import { otherMethods } from "@/lib/http/route";
import { accessRoles } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = accessRoles.read;
export const PATCH = accessRoles.update;

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
