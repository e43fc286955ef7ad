import { created, otherMethods, route } from "@/lib/http/route";
import { CreateSurveyBody, ListSurveysQuery, SERVER_MANAGED_SURVEY_FIELDS } from "@/lib/schemas/surveys";
import { createSurvey, listSurveys } from "@/lib/services/surveys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ query: ListSurveysQuery }, ({ auth, query, notes }) => listSurveys(auth, query, notes));

export const POST = route(
  { admin: true, body: CreateSurveyBody, ignoreBodyFields: SERVER_MANAGED_SURVEY_FIELDS },
  async ({ auth, body, notes }) => {
    const survey = await createSurvey(auth, body, notes);
    return created(survey, `/v2/surveys/${survey._id}`);
  },
);

export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
