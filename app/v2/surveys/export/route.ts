import { handle, otherMethods } from "@/lib/platform/http/route";
import * as surveys from "@/lib/resources/surveys/contract";
import { exportSurveys } from "@/lib/resources/surveys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(surveys.exportSurveys, ({ auth, query, notes, requestId, request }) => exportSurveys(auth, query, { notes, requestId, signal: request.signal }));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
