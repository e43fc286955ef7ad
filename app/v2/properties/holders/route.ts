import { otherMethods } from "@/lib/http/route";
import { properties } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = properties.holders;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
