import { otherMethods } from "@/lib/http/route";
import * as openapi from "@/lib/api/openapi";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = openapi.document;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
