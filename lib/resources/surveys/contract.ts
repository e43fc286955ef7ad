/**
 * Surveys and their parts: the records, the create and update bodies, the list, read and
 * revisions queries (docs/api.md#surveys).
 *
 * Where the specification leaves a field's type open ("not shown"), the decision is here and in
 * docs/api.md#the-survey-record: `group` is a name, `groupPermissions`, `permissions` are access role ids,
 * `permissionsV2` and `groupPermissionsV2` are lists of objects, `propertiesChannel` and
 * `propertiesLimit` are property ids and `responders` are user ids of the company.
 */
import {
  idList,
  isoDateTime,
  listEnvelope,
  objectId,
  pagingQuery,
  queryBoolean,
  queryIdList,
  singleLineText,
} from "@/lib/base/schemas/common";
import { exportFormat, exportParameterDocs, LIST_PAGING, withoutPaging } from "@/lib/base/schemas/export";
import { type ComponentNames, operation, pagingParameters, repeated } from "@/lib/base/schemas/operation";
import { SurveyVersion } from "@/lib/base/shared/survey-permissions";
import { z } from "zod";

export const SURVEY_CODE = /^[a-z0-9_]{1,60}$/;
export const MAX_SURVEY_CODE = 60;
export const MAX_SURVEY_NAME = 200;
/** Longest list a survey field holds (permissions, responders...). */
export const MAX_SURVEY_LIST = 1000;

/** `SURVEY_CODE`, checked so that each broken rule is named once. */
export const SurveyCode = z
  .string({ error: "must be a string" })
  .min(1, { error: "must not be empty" })
  .max(MAX_SURVEY_CODE, { error: `must be at most ${MAX_SURVEY_CODE} characters` })
  .regex(/^[a-z0-9_]*$/, { error: "may hold only lowercase letters a-z, digits and underscore" });

export const SurveyName = singleLineText({ min: 1, max: MAX_SURVEY_NAME });

const groupName = singleLineText({ min: 1, max: 200 });

/** A version 2 permission: what holders of one access role may do with the survey. */
export const PermissionV2 = z.strictObject({
  accessRole: objectId,
  canAnswer: z.boolean().default(true),
  canViewAnswers: z.boolean().default(false),
});
export type PermissionV2 = z.infer<typeof PermissionV2>;

/** A version 2 group permission: the access roles that reach the survey through a named group. */
export const GroupPermissionV2 = z.strictObject({
  group: groupName,
  accessRoles: idList(MAX_SURVEY_LIST),
});
export type GroupPermissionV2 = z.infer<typeof GroupPermissionV2>;

const uniqueBy =
  <T>(key: (item: T) => string, what: string) =>
  (items: T[], ctx: z.core.$RefinementCtx<T[]>) => {
    const seen = new Set<string>();
    items.forEach((item, index) => {
      const k = key(item);
      if (seen.has(k)) ctx.addIssue({ code: "custom", path: [index], message: `${what} ${k} is listed twice` });
      seen.add(k);
    });
  };

const permissionsV2 = z
  .array(PermissionV2)
  .max(MAX_SURVEY_LIST)
  .superRefine(uniqueBy((p: PermissionV2) => p.accessRole, "access role"));
const groupPermissionsV2 = z
  .array(GroupPermissionV2)
  .max(100)
  .superRefine(uniqueBy((g: GroupPermissionV2) => g.group, "group"));

/**
 * `permissions` in a PATCH: one id adds it (docs/api.md#updating-a-survey), an array replaces the list.
 * Dispatched by type so an error names the bad element (`permissions.2`), not "invalid union".
 */
const permissionsPatch = z.unknown().transform((value, ctx): string | string[] => {
  const result = (typeof value === "string" ? objectId : idList(MAX_SURVEY_LIST)).safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    ctx.addIssue({
      code: "custom",
      path: issue.path,
      message:
        issue.code === "invalid_type" ? "must be an access role id or an array of access role ids" : issue.message,
    });
  }
  return z.NEVER;
});

/** The fields a client may write, on create and on update. */
const writable = {
  code: SurveyCode,
  name: SurveyName,
  version: SurveyVersion,
  isActive: z.boolean(),
  isSystemModel: z.boolean(),
  permissions: idList(MAX_SURVEY_LIST),
  group: groupName.nullable(),
  groupPermissions: idList(MAX_SURVEY_LIST),
  permissionsV2,
  groupPermissionsV2,
  onlySubSurvey: z.boolean(),
  propertiesChannel: idList(MAX_SURVEY_LIST),
  propertiesLimit: idList(MAX_SURVEY_LIST),
  responders: idList(MAX_SURVEY_LIST),
};

/** Fields the service sets (or, for `chat`, only shows): ignored in a body with a debug warning. */
export const SERVER_MANAGED_SURVEY_FIELDS = ["_id", "company", "createdAt", "modifiedAt", "__v", "chat"];

export const CreateSurveyBody = z.strictObject({
  code: writable.code,
  name: writable.name,
  version: writable.version,
  isActive: writable.isActive.default(true),
  isSystemModel: writable.isSystemModel.default(false),
  // A single id is accepted as a list of one, as on update.
  permissions: permissionsPatch.transform((value) => (typeof value === "string" ? [value] : value)).default([]),
  group: writable.group.default(null),
  groupPermissions: writable.groupPermissions.default([]),
  permissionsV2: writable.permissionsV2.default([]),
  groupPermissionsV2: writable.groupPermissionsV2.default([]),
  onlySubSurvey: writable.onlySubSurvey.default(false),
  propertiesChannel: writable.propertiesChannel.default([]),
  propertiesLimit: writable.propertiesLimit.default([]),
  responders: writable.responders.default([]),
});
export type CreateSurveyBody = z.infer<typeof CreateSurveyBody>;

export const UpdateSurveyBody = z.strictObject({
  code: writable.code.optional(),
  name: writable.name.optional(),
  version: writable.version.optional(),
  isActive: writable.isActive.optional(),
  isSystemModel: writable.isSystemModel.optional(),
  permissions: permissionsPatch.optional(),
  group: writable.group.optional(),
  groupPermissions: writable.groupPermissions.optional(),
  permissionsV2: writable.permissionsV2.optional(),
  groupPermissionsV2: writable.groupPermissionsV2.optional(),
  onlySubSurvey: writable.onlySubSurvey.optional(),
  propertiesChannel: writable.propertiesChannel.optional(),
  propertiesLimit: writable.propertiesLimit.optional(),
  responders: writable.responders.optional(),
});
export type UpdateSurveyBody = z.infer<typeof UpdateSurveyBody>;

// ---------------------------------------------------------------------------------------------
// Records as the API shows them.

export const QuestionType = z.enum(["text", "number", "date", "yes_no", "single_choice", "multiple_choice", "rating"]);
export type QuestionType = z.infer<typeof QuestionType>;

export const QuestionRecord = z.object({
  _id: objectId,
  text: z.string(),
  type: QuestionType,
  options: z.array(z.string()),
  order: z.number().int(),
  /** How many answers the question has. */
  answerCount: z.number().int(),
});
export type QuestionRecord = z.infer<typeof QuestionRecord>;

export const SurveyChatRecord = z.object({
  _id: objectId,
  name: z.string(),
  order: z.number().int(),
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
  questions: z.array(QuestionRecord),
});
export type SurveyChatRecord = z.infer<typeof SurveyChatRecord>;

export const SurveyRecord = z.object({
  _id: objectId,
  code: z.string(),
  name: z.string(),
  version: SurveyVersion,
  company: objectId,
  isActive: z.boolean(),
  isSystemModel: z.boolean(),
  permissions: z.array(objectId),
  group: z.string().nullable(),
  groupPermissions: z.array(objectId),
  permissionsV2: z.array(z.object({ accessRole: objectId, canAnswer: z.boolean(), canViewAnswers: z.boolean() })),
  groupPermissionsV2: z.array(z.object({ group: z.string(), accessRoles: z.array(objectId) })),
  onlySubSurvey: z.boolean(),
  propertiesChannel: z.array(objectId),
  propertiesLimit: z.array(objectId),
  responders: z.array(objectId),
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
  __v: z.number().int(),
  /** Only with `populate=true` on read by id. */
  chat: z.array(SurveyChatRecord).optional(),
});
export type SurveyRecord = z.infer<typeof SurveyRecord>;

/** The names `select` accepts: every field of the record except `chat`. */
export const SURVEY_FIELDS = Object.keys(SurveyRecord.shape).filter((name) => name !== "chat") as Exclude<
  keyof SurveyRecord,
  "chat"
>[];
export type SurveyField = (typeof SURVEY_FIELDS)[number];

export const SurveyList = listEnvelope("surveys", SurveyRecord.partial().required({ _id: true }));
export type SurveyList = z.infer<typeof SurveyList>;

/** A survey's content as a revision keeps it: what a content PUT sent, with each `order`. */
export const SnapshotChat = z.object({
  _id: objectId,
  name: z.string(),
  order: z.number().int(),
  questions: z.array(
    z.object({
      _id: objectId,
      text: z.string(),
      type: QuestionType,
      options: z.array(z.string()),
      order: z.number().int(),
    }),
  ),
});
export type SnapshotChat = z.infer<typeof SnapshotChat>;

/** The survey as a revision keeps it. */
export const SurveySnapshot = SurveyRecord.omit({ chat: true }).extend({ chat: z.array(SnapshotChat).optional() });
export type SurveySnapshot = z.infer<typeof SurveySnapshot>;

export const SurveyRevisionRecord = z.object({
  _id: objectId,
  surveyId: objectId,
  __v: z.number().int(),
  /** `chat` is there once the survey's content has been written by a content PUT (or the seed). */
  snapshot: SurveySnapshot,
  modifiedBy: objectId.nullable(),
  createdAt: isoDateTime,
});
export type SurveyRevisionRecord = z.infer<typeof SurveyRevisionRecord>;

export const SurveyRevisionList = listEnvelope("revisions", SurveyRevisionRecord);
export type SurveyRevisionList = z.infer<typeof SurveyRevisionList>;

// ---------------------------------------------------------------------------------------------
// Content: the chats and questions a PUT replaces (docs/api.md#survey-content).

export const MAX_CHATS = 50;
export const MAX_QUESTIONS = 500;
export const MIN_OPTIONS = 2;
export const MAX_OPTIONS = 50;
export const MAX_QUESTION_TEXT = 1000;
export const MAX_OPTION_TEXT = 200;
export const MAX_CHAT_NAME = 200;

/** The question types whose answers are one or several of `options`. */
export const CHOICE_TYPES: readonly QuestionType[] = ["single_choice", "multiple_choice"];
export const isChoiceType = (type: QuestionType): boolean => CHOICE_TYPES.includes(type);

export const ContentQuestion = z
  .strictObject({
    _id: objectId.optional(),
    text: singleLineText({ min: 1, max: MAX_QUESTION_TEXT }),
    type: QuestionType,
    options: z.array(singleLineText({ min: 1, max: MAX_OPTION_TEXT })).optional(),
  })
  .superRefine((question, ctx) => {
    const options = question.options ?? [];
    if (!isChoiceType(question.type)) {
      if (options.length > 0)
        ctx.addIssue({
          code: "custom",
          path: ["options"],
          message: `only single_choice and multiple_choice questions have options`,
        });
      return;
    }
    if (options.length < MIN_OPTIONS || options.length > MAX_OPTIONS) {
      ctx.addIssue({
        code: "custom",
        path: ["options"],
        message: `a ${question.type} question needs ${MIN_OPTIONS} to ${MAX_OPTIONS} options`,
      });
    }
    const seen = new Set<string>();
    options.forEach((option, index) => {
      if (seen.has(option))
        ctx.addIssue({ code: "custom", path: ["options", index], message: `option ${option} is listed twice` });
      seen.add(option);
    });
  });
export type ContentQuestion = z.infer<typeof ContentQuestion>;

export const ContentChat = z.strictObject({
  _id: objectId.optional(),
  name: singleLineText({ min: 1, max: MAX_CHAT_NAME }),
  questions: z.array(ContentQuestion).max(MAX_QUESTIONS),
});
export type ContentChat = z.infer<typeof ContentChat>;

export const PutContentBody = z.strictObject({ chat: z.array(ContentChat).max(MAX_CHATS) }).superRefine((body, ctx) => {
  const total = body.chat.reduce((sum, chat) => sum + chat.questions.length, 0);
  if (total > MAX_QUESTIONS)
    ctx.addIssue({
      code: "custom",
      path: ["chat"],
      message: `a survey holds at most ${MAX_QUESTIONS} questions (${total} sent)`,
    });
  // One chat or question cannot stand in two places.
  const seen = new Set<string>();
  const once = (id: string | undefined, path: (string | number)[]) => {
    if (id === undefined) return;
    if (seen.has(id)) ctx.addIssue({ code: "custom", path, message: `${id} is listed twice` });
    seen.add(id);
  };
  body.chat.forEach((chat, c) => {
    once(chat._id, ["chat", c, "_id"]);
    chat.questions.forEach((question, q) => once(question._id, ["chat", c, "questions", q, "_id"]));
  });
});
export type PutContentBody = z.infer<typeof PutContentBody>;

// ---------------------------------------------------------------------------------------------
// Queries.

const selectField = z.string().refine((name): name is SurveyField => (SURVEY_FIELDS as string[]).includes(name), {
  error: (issue) => `${String(issue.input)} is not a survey field; use ${SURVEY_FIELDS.join(", ")}`,
});

/** The orders of the surveys list (docs/api.md#sorting); `modifiedAt` is the default. */
export const SURVEY_SORTS = ["modifiedAt", "name", "code"] as const;
export type SurveySort = (typeof SURVEY_SORTS)[number];

export const ListSurveysQuery = z.object({
  ...pagingQuery(10, 100),
  orderBy: z.enum(["asc", "desc"], { error: "must be asc or desc" }).default("desc"),
  sort: z.enum(SURVEY_SORTS, { error: `must be one of ${SURVEY_SORTS.join(", ")}` }).default("modifiedAt"),
  /** The specification's parameter: `modifiedAt`, its only accepted value (API-CONTRACT); `sort` chooses another order. */
  sortBy: z
    .enum(["modifiedAt"], { error: "must be modifiedAt, its only accepted value; choose another order with sort" })
    .optional(),
  answer: queryIdList.optional(),
  id: queryIdList.optional(),
  select: z
    .array(selectField)
    .min(1)
    .max(SURVEY_FIELDS.length * 2)
    .optional(),
  isActive: z.enum(["all", "true", "false"], { error: "must be all, true or false" }).default("true"),
  /** An empty value is ignored (with a debug warning), as an empty search box would be. */
  search: singleLineText({ max: MAX_SURVEY_NAME }).optional(),
});
export type ListSurveysQuery = z.infer<typeof ListSurveysQuery>;

/** The filters of the list without its paging and `select`, and the format (docs/api.md#export). */
export const ExportSurveysQuery = ListSurveysQuery.omit({ ...LIST_PAGING, select: true }).extend({
  format: exportFormat,
});
export type ExportSurveysQuery = z.infer<typeof ExportSurveysQuery>;

export const GetSurveyQuery = z.object({
  populate: queryBoolean.default(false),
});
export type GetSurveyQuery = z.infer<typeof GetSurveyQuery>;

export const ListRevisionsQuery = z.object({
  ...pagingQuery(10, 100),
});
export type ListRevisionsQuery = z.infer<typeof ListRevisionsQuery>;

export const SurveyIdParams = z.object({ id: objectId });

// ---------------------------------------------------------------------------------------------
// The operations

export const list = operation({
  method: "get",
  path: "/v2/surveys",
  scope: "surveys:read",
  query: ListSurveysQuery,
  doc: {
    tag: "Surveys",
    summary: "List surveys",
    description:
      "The surveys of the caller's company, newest `modifiedAt` first unless `sort` and `orderBy` say otherwise (ties broken by `_id` in the same direction). Without `isActive`, only active surveys.",
    status: 200,
    response: SurveyList,
    parameters: {
      ...pagingParameters,
      count: { description: "Adds `counter`: how many surveys match the filters, ignoring paging." },
      orderBy: { description: "Direction of the sort on the `sort` field (and on `_id`, which breaks ties)." },
      sortBy: {
        description:
          "`modifiedAt`, the only accepted value (the specification's parameter); `sort` chooses another order.",
      },
      sort: {
        description:
          "The field the list is sorted by: `modifiedAt` (the default), `name` (compared lowercase) or `code` (unique in the company, so it needs no tie-break). Every order is served by an index, and a cursor belongs to its order.",
      },
      answer: { description: repeated("The surveys these answers (by their `uuid`) belong to.") },
      id: {
        description: repeated(
          "Surveys with these ids (a page naming the surveys it mentions, as the Activity page does).",
        ),
      },
      select: {
        description: repeated("Survey fields to return; `_id` is always returned."),
        items: { enum: SURVEY_FIELDS },
      },
      isActive: { description: "`all` lists active and inactive surveys." },
      search: { description: "Case-insensitive prefix of `code` or `name`, matched literally." },
    },
  },
});

export const exportSurveys = operation({
  method: "get",
  path: "/v2/surveys/export",
  scope: "surveys:read",
  admin: true,
  query: ExportSurveysQuery,
  doc: {
    tag: "Surveys",
    summary: "Export surveys as CSV or NDJSON",
    description:
      'Every survey the filters of `GET /v2/surveys` match, in its order (`sort`, `orderBy`), with no cap, streamed as the client reads it (`Content-Disposition: attachment; filename="surveys-YYYY-MM-DD.csv"`). CSV columns: `_id`, `code`, `name`, `version`, `isActive`, `isSystemModel`, `onlySubSurvey`, `group`, `permissions` (access role names joined by `;`), `responders` (how many), `createdAt`, `modifiedAt`, `__v`; a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `\'`. NDJSON: each survey as `GET /v2/surveys/{id}` answers it (without `chat`). Paging parameters and `select` are ignored.',
    status: 200,
    csv: true,
    ndjson: true,
    headers: {
      "X-Total-Count": {
        description: "How many surveys matched when the export began: the rows to expect, for a progress bar.",
        schema: { type: "integer" },
      },
      "Content-Disposition": { description: "`attachment` with the file's name.", schema: { type: "string" } },
    },
    parameters: { ...withoutPaging(list.doc.parameters!, ["select"]), ...exportParameterDocs },
  },
});

export const create = operation({
  method: "post",
  path: "/v2/surveys",
  scope: "surveys:write",
  admin: true,
  body: CreateSurveyBody,
  ignoreBodyFields: SERVER_MANAGED_SURVEY_FIELDS,
  doc: {
    etag: true,
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
  scope: "surveys:read",
  admin: true,
  params: SurveyIdParams,
  query: GetSurveyQuery,
  doc: {
    etag: true,
    tag: "Surveys",
    summary: "Read a survey",
    status: 200,
    response: SurveyRecord,
    parameters: {
      populate: { description: "Adds `chat`: the survey's chats ordered by `order`, each with its questions." },
    },
  },
});

export const update = operation({
  method: "patch",
  path: "/v2/surveys/{id}",
  scope: "surveys:write",
  admin: true,
  params: SurveyIdParams,
  body: UpdateSurveyBody,
  ignoreBodyFields: SERVER_MANAGED_SURVEY_FIELDS,
  doc: {
    etag: true,
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
  scope: "surveys:read",
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

export const putContent = operation({
  method: "put",
  path: "/v2/surveys/{id}/content",
  scope: "surveys:write",
  admin: true,
  params: SurveyIdParams,
  body: PutContentBody,
  doc: {
    etag: true,
    tag: "Surveys",
    summary: "Replace a survey's chats and questions",
    description:
      "Replaces the content in the order given: an `_id` keeps that chat or question, none creates one, one left out is removed (its answers are kept and results still list it). At most 50 chats and 500 questions; `options` (2–50 distinct non-empty strings) only for `single_choice` and `multiple_choice`. A question that has answers keeps its `type` (`409 conflict`); an `_id` that names no chat or question of the survey is `400 invalid_request`. A change of the survey: `__v` grows by one, `modifiedAt` moves and a revision whose snapshot holds `chat` is stored. The answer is the survey with `chat`, under a weak `ETag` as a read with `populate=true`. `If-Match` holds the change to the version it names, as on PATCH (`412 precondition_failed`).",
    status: 200,
    response: SurveyRecord,
    errors: ["conflict"],
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = {
  records: {
    Survey: SurveyRecord,
    SurveyChat: SurveyChatRecord,
    Question: QuestionRecord,
    SurveyRevision: SurveyRevisionRecord,
  },
  answers: { SurveyAnswer: SurveyRecord, SurveyList, SurveyRevisionList },
};
