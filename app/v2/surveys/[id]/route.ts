import { ifMatch, tagged, taggedAs } from "@/lib/platform/http/etag";
import { handle, otherMethods } from "@/lib/platform/http/route";
import * as surveys from "@/lib/resources/surveys/contract";
import { surveyTag } from "@/lib/resources/surveys/repository";
import { surveyAnswer, updateSurvey } from "@/lib/resources/surveys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(surveys.read, async ({ request, auth, params, query }) =>
  taggedAs(request, await surveyAnswer(auth, params.id, query)),
);
export const PATCH = handle(surveys.update, async ({ request, auth, params, body, notes }) =>
  tagged(request, await updateSurvey(auth, params.id, body, notes, ifMatch(request)), surveyTag),
);

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
