import { createdRecord, handle, otherMethods } from "@/lib/http/route";
import * as surveys from "@/lib/surveys/contract";
import { surveyTag } from "@/lib/surveys/repository";
import { createSurvey, listSurveys } from "@/lib/surveys/service";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = handle(surveys.list, ({ auth, query, notes }) => listSurveys(auth, query, notes));
export const POST = handle(surveys.create, async ({ auth, body, notes }) => createdRecord(surveys.create.path, await createSurvey(auth, body, notes), surveyTag));

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
