import { ifMatch, tagged } from "@/lib/http/etag";
import { handle, otherMethods } from "@/lib/http/route";
import { putContent } from "@/lib/surveys/content";
import * as surveys from "@/lib/surveys/contract";
import { surveyAnswerTag } from "@/lib/surveys/repository";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PUT = handle(surveys.putContent, async ({ request, auth, params, body }) => tagged(request, await putContent(auth, params.id, body, ifMatch(request)), surveyAnswerTag));

export const { OPTIONS, GET, HEAD, POST, PATCH, DELETE } = otherMethods({ PUT });
