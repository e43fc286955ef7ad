import { otherMethods } from "@/lib/http/route";
import { jobTitles } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = jobTitles.list;
export const POST = jobTitles.create;

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
