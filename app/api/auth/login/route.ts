import { otherMethods } from "@/lib/http/route";
import * as auth from "@/lib/api/auth";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = auth.login;

export const { GET, HEAD, OPTIONS, PUT, PATCH, DELETE } = otherMethods({ POST });
