import { otherMethods } from "@/lib/http/route";
import { bots } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = bots.read;
export const PATCH = bots.update;

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
