import { otherMethods } from "@/lib/http/route";
import * as apiKeys from "@/lib/api/api-keys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = apiKeys.list;
export const POST = apiKeys.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
