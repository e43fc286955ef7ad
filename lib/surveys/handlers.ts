/** The surveys operations bound to the surveys service: what the route files under app/v2/surveys export. */
import { created, handle } from "@/lib/http/route";
import { putContent as replaceContent } from "./content";
import { listRevisions } from "./revisions";
import { createSurvey, getSurvey, listSurveys, updateSurvey } from "./service";
import * as surveys from "./contract";

export const list = handle(surveys.list, ({ auth, query, notes }) => listSurveys(auth, query, notes));

export const create = handle(surveys.create, async ({ auth, body, notes }) => {
  const survey = await createSurvey(auth, body, notes);
  return created(survey, `/v2/surveys/${survey._id}`);
});

export const read = handle(surveys.read, ({ auth, params, query }) => getSurvey(auth, params.id, { populate: query.populate }));

export const update = handle(surveys.update, ({ auth, params, body, notes }) => updateSurvey(auth, params.id, body, notes));

export const revisions = handle(surveys.revisions, ({ auth, params, query }) => listRevisions(auth, params.id, query));

export const putContent = handle(surveys.putContent, ({ auth, params, body }) => replaceContent(auth, params.id, body));
