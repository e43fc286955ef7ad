import { exportResponse } from "@/lib/kernel/export/stream";
import { handle, otherMethods } from "@/lib/platform/http/route";
import * as surveys from "@/lib/resources/surveys/contract";
import { exportSurveys } from "@/lib/resources/surveys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(surveys.exportSurveys, async ({ auth, query, notes, requestId, request }) =>
  exportResponse({
    ...(await exportSurveys(auth, query, notes)),
    format: query.format,
    requestId,
    signal: request.signal,
  }),
);

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
