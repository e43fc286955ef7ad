import { handle, otherMethods } from "@/lib/platform/http/route";
import * as answers from "@/lib/resources/answers/contract";
import { surveyResults } from "@/lib/resources/answers/results";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(answers.results, ({ auth, params, query, request }) =>
  surveyResults(auth, params.id, query, request.headers.get("admin")),
);

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
