import { otherMethods } from "@/lib/http/route";
import * as surveys from "@/lib/surveys/handlers";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PUT = surveys.putContent;

export const { OPTIONS, GET, POST, PATCH, DELETE } = otherMethods({ PUT });
