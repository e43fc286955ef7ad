import { otherMethods } from "@/lib/http/route";
import * as surveys from "@/lib/api/surveys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = surveys.read;
export const PATCH = surveys.update;

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
