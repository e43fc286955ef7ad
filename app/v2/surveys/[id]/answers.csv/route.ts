import { exportResponse } from "@/lib/kernel/export/stream";
import { handle, otherMethods } from "@/lib/platform/http/route";
import * as answers from "@/lib/resources/answers/contract";
import { exportAnswers } from "@/lib/resources/answers/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(answers.exportCsv, async ({ auth, params, query, request, requestId }) =>
  exportResponse({
    ...(await exportAnswers(auth, params.id, query, request.headers.get("admin"))),
    format: "csv",
    requestId,
    signal: request.signal,
  }),
);

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
