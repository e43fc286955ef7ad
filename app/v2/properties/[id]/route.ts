import { otherMethods } from "@/lib/http/route";
import { properties } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = properties.read;
export const PATCH = properties.update;

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
