/** The surveys operations bound to the surveys service: what the route files under app/v2/surveys export. */
import { handle } from "@/lib/http/route";
import { putContent as replaceContent } from "@/lib/surveys/content";
import { ifMatch, tagged } from "@/lib/http/etag";
import { entityTag } from "@/lib/server/etag";
import { surveyTag } from "@/lib/surveys/repository";
import { listRevisions } from "@/lib/surveys/revisions";
import { createSurvey, getSurvey, listSurveys, updateSurvey } from "@/lib/surveys/service";
import * as surveys from "@/lib/surveys/contract";
import type { SurveyRecord } from "@/lib/surveys/contract";

export const list = handle(surveys.list, ({ auth, query, notes }) => listSurveys(auth, query, notes));

export const create = handle(surveys.create, async ({ request, auth, body, notes }) => {
  const survey = await createSurvey(auth, body, notes);
  return tagged(request, survey, surveyTag(survey), 201, { Location: `/v2/surveys/${survey._id}` });
});

/**
 * With its chats an answer also changes with them and their answer counts, which are not the
 * survey's stored record: a weak tag of the whole answer, which If-Match never accepts.
 */
const answerTag = (survey: SurveyRecord) => (survey.chat ? `W/${entityTag("survey-populated", [surveyTag(survey), survey.chat])}` : surveyTag(survey));

export const read = handle(surveys.read, async ({ request, auth, params, query }) => {
  const survey = await getSurvey(auth, params.id, { populate: query.populate });
  return tagged(request, survey, answerTag(survey));
});

export const update = handle(surveys.update, async ({ request, auth, params, body, notes }) => {
  const survey = await updateSurvey(auth, params.id, body, notes, ifMatch(request));
  return tagged(request, survey, surveyTag(survey));
});

export const revisions = handle(surveys.revisions, ({ auth, params, query }) => listRevisions(auth, params.id, query));

export const putContent = handle(surveys.putContent, async ({ request, auth, params, body }) => {
  const survey = await replaceContent(auth, params.id, body, ifMatch(request));
  return tagged(request, survey, answerTag(survey));
});
