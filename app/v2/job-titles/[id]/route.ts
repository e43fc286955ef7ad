import { otherMethods } from "@/lib/http/route";
import { jobTitles } from "@/lib/api/reference";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = jobTitles.read;
export const PATCH = jobTitles.update;

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
