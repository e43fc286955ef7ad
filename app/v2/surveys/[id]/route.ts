import { otherMethods, route } from "@/lib/http/route";
import { GetSurveyQuery, SERVER_MANAGED_SURVEY_FIELDS, SurveyIdParams, UpdateSurveyBody } from "@/lib/schemas/surveys";
import { getSurvey, updateSurvey } from "@/lib/services/surveys";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ admin: true, params: SurveyIdParams, query: GetSurveyQuery }, ({ auth, params, query }) =>
  getSurvey(auth, params.id, { populate: query.populate }),
);

export const PATCH = route(
  { admin: true, params: SurveyIdParams, body: UpdateSurveyBody, ignoreBodyFields: SERVER_MANAGED_SURVEY_FIELDS },
  ({ auth, params, body, notes }) => updateSurvey(auth, params.id, body, notes),
);

export const { OPTIONS, POST, PUT, DELETE } = otherMethods({ GET, PATCH });
