import { otherMethods } from "@/lib/http/route";
import * as surveys from "@/lib/api/surveys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PUT = surveys.putContent;

export const { OPTIONS, GET, HEAD, POST, PATCH, DELETE } = otherMethods({ PUT });
