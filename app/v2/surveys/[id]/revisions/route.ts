import { otherMethods } from "@/lib/http/route";
import * as surveys from "@/lib/api/surveys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = surveys.revisions;

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
