import { otherMethods } from "@/lib/http/route";
import { properties } from "@/lib/reference/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = properties.read;
export const PATCH = properties.update;

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
