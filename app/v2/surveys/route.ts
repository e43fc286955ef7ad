import { otherMethods } from "@/lib/http/route";
import * as surveys from "@/lib/api/surveys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = surveys.list;
export const POST = surveys.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
