/** The surveys operations of the HTTP API (docs/api.md#surveys). */
import { operation, pagingParameters, repeated } from "@/lib/http/contract";
import {
  CreateSurveyBody,
  GetSurveyQuery,
  ListRevisionsQuery,
  ListSurveysQuery,
  SERVER_MANAGED_SURVEY_FIELDS,
  SURVEY_FIELDS,
  SurveyIdParams,
  SurveyList,
  SurveyRecord,
  SurveyRevisionList,
  UpdateSurveyBody,
} from "@/lib/schemas/surveys";

export const list = operation({
  method: "get",
  path: "/v2/surveys",
  query: ListSurveysQuery,
  doc: {
      tag: "Surveys",
      summary: "List surveys",
      description:
        "The surveys of the caller's company, newest `modifiedAt` first. Without `isActive`, only active surveys.",
      status: 200,
      response: SurveyList,
      parameters: {
        ...pagingParameters,
        count: { description: "Adds `counter`: how many surveys match the filters, ignoring paging." },
        answer: { description: repeated("The surveys these answers (by their `uuid`) belong to.") },
        select: {
          description: repeated("Survey fields to return; `_id` is always returned."),
          items: { enum: SURVEY_FIELDS },
        },
        isActive: { description: "`all` lists active and inactive surveys." },
        search: { description: "Case-insensitive prefix of `code` or `name`, matched literally." },
      },
    },
});

export const create = operation({
  method: "post",
  path: "/v2/surveys",
  admin: true,
  body: CreateSurveyBody,
  ignoreBodyFields: SERVER_MANAGED_SURVEY_FIELDS,
  doc: {
      tag: "Surveys",
      summary: "Create a survey",
      description:
        "`code` is unique within the company (`409 conflict`). Fields not sent get the defaults shown. Service-managed fields (`_id`, `company`, `createdAt`, `modifiedAt`, `__v`, `chat`) are ignored, with a debug warning. Stores the first revision.",
      status: 201,
      response: SurveyRecord,
      errors: ["conflict", "unknown_reference"],
    },
});

export const read = operation({
  method: "get",
  path: "/v2/surveys/{id}",
  admin: true,
  params: SurveyIdParams,
  query: GetSurveyQuery,
  doc: {
      tag: "Surveys",
      summary: "Read a survey",
      status: 200,
      response: SurveyRecord,
      parameters: { populate: { description: "Adds `chat`: the survey's chats ordered by `order`, each with its questions." } },
    },
});

export const update = operation({
  method: "patch",
  path: "/v2/surveys/{id}",
  admin: true,
  params: SurveyIdParams,
  body: UpdateSurveyBody,
  ignoreBodyFields: SERVER_MANAGED_SURVEY_FIELDS,
  doc: {
      tag: "Surveys",
      summary: "Update a survey",
      description:
        "Send only the fields to change. `permissions` as one access role id adds it (no duplicates); as an array it replaces the list. Changing `version` migrates the survey between the version 1 and version 2 permission models. `__v` increases by exactly one on every successful update, also under concurrent updates, and a revision is stored.",
      status: 200,
      response: SurveyRecord,
      errors: ["conflict", "unknown_reference"],
    },
});

export const revisions = operation({
  method: "get",
  path: "/v2/surveys/{id}/revisions",
  admin: true,
  params: SurveyIdParams,
  query: ListRevisionsQuery,
  doc: {
      tag: "Surveys",
      summary: "List a survey's revisions",
      description: "The survey as it was after each successful create and update, with who and when; newest first.",
      status: 200,
      response: SurveyRevisionList,
      parameters: pagingParameters,
    },
});
