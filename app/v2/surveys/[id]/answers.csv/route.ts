import { handle, otherMethods } from "@/lib/platform/http/route";
import * as answers from "@/lib/resources/answers/contract";
import { exportAnswers } from "@/lib/resources/answers/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(answers.exportCsv, ({ auth, params, query, request, requestId }) => exportAnswers(auth, params.id, query, request.headers.get("admin"), requestId));

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
