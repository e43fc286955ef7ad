import { otherMethods } from "@/lib/http/route";
import { jobTitles } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = jobTitles.holders;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
