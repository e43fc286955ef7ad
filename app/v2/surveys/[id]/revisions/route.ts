import { otherMethods, route } from "@/lib/http/route";
import { ListRevisionsQuery, SurveyIdParams } from "@/lib/schemas/surveys";
import { listRevisions } from "@/lib/services/survey-revisions";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = route({ admin: true, params: SurveyIdParams, query: ListRevisionsQuery }, ({ auth, params, query }) =>
  listRevisions(auth, params.id, query),
);

export const { OPTIONS, POST, PUT, PATCH, DELETE } = otherMethods({ GET });
