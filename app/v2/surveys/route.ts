import { createdRecord, handle, otherMethods } from "@/lib/platform/http/route";
import * as surveys from "@/lib/resources/surveys/contract";
import { surveyTag } from "@/lib/resources/surveys/repository";
import { createSurvey, listSurveys } from "@/lib/resources/surveys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(surveys.list, ({ auth, query, notes }) => listSurveys(auth, query, notes));
export const POST = handle(surveys.create, async ({ auth, body, notes }) =>
  createdRecord(surveys.create.path, await createSurvey(auth, body, notes), surveyTag),
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
