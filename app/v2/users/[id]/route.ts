import { otherMethods } from "@/lib/http/route";
import * as users from "@/lib/api/users";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = users.read;
export const PATCH = users.update;

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
