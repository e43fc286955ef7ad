import { otherMethods } from "@/lib/http/route";
import { properties } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = properties.list;
export const POST = properties.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
