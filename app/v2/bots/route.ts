import { otherMethods } from "@/lib/http/route";
import { bots } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = bots.list;
export const POST = bots.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
