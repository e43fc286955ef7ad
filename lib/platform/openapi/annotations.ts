/** What the document says of schemas whose conversion cannot see what they accept. */
import { idList, objectId } from "@/lib/base/schemas/common";
import { MAX_SURVEY_LIST, UpdateSurveyBody } from "@/lib/resources/surveys/contract";
import { annotate, convert } from "./schema";

// `permissions` of a survey body: one access role id (added on update) or a list of them.
annotate(UpdateSurveyBody.shape.permissions.unwrap(), () => ({
  anyOf: [convert(objectId, "input"), convert(idList(MAX_SURVEY_LIST), "input")],
}));
