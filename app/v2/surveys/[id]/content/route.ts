import { ifMatch, tagged } from "@/lib/platform/http/etag";
import { handle, otherMethods } from "@/lib/platform/http/route";
import { putContent } from "@/lib/resources/surveys/content";
import * as surveys from "@/lib/resources/surveys/contract";
import { surveyAnswerTag } from "@/lib/resources/surveys/repository";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PUT = handle(surveys.putContent, async ({ request, auth, params, body }) =>
  tagged(request, await putContent(auth, params.id, body, ifMatch(request)), surveyAnswerTag),
);

export const { OPTIONS, GET, HEAD, POST, PATCH, DELETE } = otherMethods({ PUT });
