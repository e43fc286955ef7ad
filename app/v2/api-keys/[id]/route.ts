import { otherMethods } from "@/lib/http/route";
import * as apiKeys from "@/lib/api/api-keys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const DELETE = apiKeys.revoke;

export const { OPTIONS, GET, HEAD, POST, PUT, PATCH } = otherMethods({ DELETE });
