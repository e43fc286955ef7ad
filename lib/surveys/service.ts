/**
 * The surveys resource (docs/api.md#surveys): list, read (with its
 * chats, questions and answer counts), create, update. Every query is scoped to the caller's
 * company: a survey of another company does not exist here, and its code is free to reuse.
 */
import type { Document, Filter } from "mongodb";
import { AccessRole, Answer, Property, Question, SurveyChat } from "@/lib/models";
import { Survey } from "./repository";
import { User } from "@/lib/users/repository";
import { aggregateDocs, findDocs, findOneDoc, pageWindow } from "@/lib/models/read";
import type { SurveyDoc } from "./repository";
import {
  SURVEY_FIELDS,
  type CreateSurveyBody,
  type ListSurveysQuery,
  type QuestionType,
  type SurveyChatRecord,
  type SurveyField,
  type SurveyList,
  type SurveyRecord,
  type SurveyVersion,
  type UpdateSurveyBody,
} from "./contract";
import type { ErrorDetail } from "@/lib/schemas/common";
import type { Principal } from "@/lib/services/auth";
import { TtlCache } from "@/lib/services/cache";
import { isDuplicateKeyError, notFound, ServiceError } from "@/lib/services/errors";
import { newId, oid, type ObjectId } from "@/lib/services/ids";
import { Notes } from "@/lib/services/notes";
import { offThread } from "@/lib/services/off-thread";
import { revisionAuthor, sealRevisions, WITHOUT_INTERNAL_FIELDS } from "@/lib/services/survey-revisions";
import { migratePermissions, warnDormantFields, type PermissionState } from "@/lib/shared/survey-permissions";
import { toSurveyRecord } from "./repository";
import { lower, searchFilter, searchPrefixesExpression, surveySearchPrefixes } from "@/lib/services/survey-search";

type LeanSurvey = SurveyDoc;

const NEWEST_FIRST = { modifiedAt: -1, _id: -1 } as const;

// ---------------------------------------------------------------------------------------------
// Reading

export async function listSurveys(auth: Principal, query: ListSurveysQuery, notes: Notes): Promise<SurveyList> {
  const companyId = oid(auth.companyId);
  const filter: Filter<Document> = { company: companyId };
  if (query.isActive !== "all") filter.isActive = query.isActive === "true";
  if (query.answer) filter._id = { $in: await surveysOfAnswers(companyId, query.answer, notes) };

  if (query.search === "") notes.warning("empty_search", "The search is empty and was ignored.", "search");
  else if (query.search !== undefined) Object.assign(filter, searchFilter(query.search));
  const fields = query.select ? withId(query.select) : SURVEY_FIELDS;
  const projection = query.select ? Object.fromEntries(fields.map((field) => [field, 1])) : WITHOUT_INTERNAL_FIELDS;

  const [surveys, counter] = await Promise.all([
    offThread("surveyRecords", { filter, projection, fields, sort: NEWEST_FIRST, ...pageWindow(query) }),
    query.count ? countSurveys(companyId, filter) : undefined,
  ]);
  return {
    data: {
      surveys: surveys as SurveyList["data"]["surveys"],
      page: query.page,
      limit: query.limit,
      ...(counter === undefined ? {} : { counter }),
    },
  };
}

/**
 * Counting walks every match, which costs more than the page itself on a large company (the
 * admin pages ask for the counter with every page). As for users, the counter of one filter is
 * kept for 5 seconds, and for up to a minute an older one is answered while a fresh one is
 * counted in the background. A survey write through this process forgets the company's counters;
 * writes of other processes show within that minute.
 */
const counters = new TtlCache<number>({ ttlMs: 5_000, staleMs: 60_000 });

function countSurveys(companyId: ObjectId, filter: Filter<Document>): Promise<number> {
  return counters.get(`${companyId.toHexString()}|${JSON.stringify(filter)}`, () => Survey.collection.countDocuments(filter));
}

const forgetCounters = (companyId: ObjectId) => counters.clear(`${companyId.toHexString()}|`);

const withId = (select: SurveyField[]): SurveyField[] => ["_id", ...new Set(select.filter((field) => field !== "_id"))];

/** The ids of the surveys the answers of these uuids belong to, within the company. */
async function surveysOfAnswers(companyId: ObjectId, uuids: string[], notes: Notes): Promise<ObjectId[]> {
  const wanted = [...new Set(uuids)];
  const answers = await findDocs(Answer, { uuid: { $in: wanted.map(oid) }, company: companyId }, { projection: { uuid: 1, survey: 1 } });
  const found = new Set(answers.map((answer) => (answer.uuid as ObjectId).toHexString()));
  for (const uuid of wanted) {
    if (!found.has(uuid)) notes.warning("unknown_answer", `No answer of the company has the uuid ${uuid}.`, "answer");
  }
  const surveys = new Map(answers.map((answer) => [(answer.survey as ObjectId).toHexString(), answer.survey as ObjectId]));
  return [...surveys.values()];
}

export async function getSurvey(auth: Principal, id: string, options: { populate: boolean }): Promise<SurveyRecord> {
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  const [doc, chat] = await Promise.all([
    findOneDoc<LeanSurvey>(Survey, { _id: surveyId, company: companyId }, WITHOUT_INTERNAL_FIELDS),
    options.populate ? surveyChats(surveyId, companyId) : undefined,
  ]);
  if (!doc) throw notFound("survey");
  const record = toSurveyRecord(doc) as SurveyRecord;
  return chat ? { ...record, chat } : record;
}

/** The survey's chats by `order`, each with its questions by `order` and their answer counts. */
async function surveyChats(surveyId: ObjectId, companyId: ObjectId): Promise<SurveyChatRecord[]> {
  // Three independent reads, in parallel: one round trip to the database.
  const [chats, questions, counts] = await Promise.all([
    findDocs(SurveyChat, { survey: surveyId, company: companyId }, { sort: { order: 1, _id: 1 } }),
    findDocs(Question, { survey: surveyId, company: companyId }),
    aggregateDocs<{ _id: ObjectId; n: number }>(Answer, [
      { $match: { survey: surveyId, company: companyId } },
      { $group: { _id: "$question", n: { $sum: 1 } } },
    ]),
  ]);
  const answers = new Map(counts.map((count) => [count._id.toHexString(), count.n]));
  const byChat = new Map<string, Document[]>();
  for (const question of questions) {
    const key = (question.chat as ObjectId).toHexString();
    byChat.set(key, [...(byChat.get(key) ?? []), question]);
  }
  return chats.map((chat) => ({
    _id: chat._id.toHexString(),
    name: chat.name as string,
    order: chat.order as number,
    createdAt: (chat.createdAt as Date).toISOString(),
    modifiedAt: (chat.modifiedAt as Date).toISOString(),
    questions: (byChat.get(chat._id.toHexString()) ?? [])
      .sort((a, b) => (a.order as number) - (b.order as number) || compareIds(a._id as ObjectId, b._id as ObjectId))
      .map((question) => ({
        _id: (question._id as ObjectId).toHexString(),
        text: question.text as string,
        type: question.type as QuestionType,
        options: (question.options as string[] | undefined) ?? [],
        order: question.order as number,
        answerCount: answers.get((question._id as ObjectId).toHexString()) ?? 0,
      })),
  }));
}

const compareIds = (a: ObjectId, b: ObjectId) => (a.toHexString() < b.toHexString() ? -1 : a.equals(b) ? 0 : 1);

// ---------------------------------------------------------------------------------------------
// Writing

export async function createSurvey(auth: Principal, body: CreateSurveyBody, notes: Notes): Promise<SurveyRecord> {
  const companyId = oid(auth.companyId);
  await checkReferences(companyId, body);
  const now = new Date();
  const doc = {
    _id: newId(),
    code: body.code,
    name: body.name,
    nameLower: lower(body.name),
    searchPrefixes: surveySearchPrefixes(body.code, body.name),
    version: body.version,
    company: companyId,
    isActive: body.isActive,
    isSystemModel: body.isSystemModel,
    permissions: body.permissions.map(oid),
    group: body.group,
    groupPermissions: body.groupPermissions.map(oid),
    permissionsV2: body.permissionsV2.map(storedPermissionV2),
    groupPermissionsV2: body.groupPermissionsV2.map(storedGroupPermissionV2),
    onlySubSurvey: body.onlySubSurvey,
    propertiesChannel: body.propertiesChannel.map(oid),
    propertiesLimit: body.propertiesLimit.map(oid),
    responders: body.responders.map(oid),
    createdAt: now,
    modifiedAt: now,
    __v: 0,
    revisionBy: revisionAuthor(auth.userId),
  };
  warnDormantFields(body.version, nonEmptyPermissionFields(doc), notes);
  try {
    await Survey.collection.insertOne(doc);
  } catch (error) {
    if (isDuplicateKeyError(error)) throw duplicateCode();
    throw error;
  }
  forgetCounters(companyId);
  await sealRevisions(doc);
  return toSurveyRecord(doc as LeanSurvey) as SurveyRecord;
}

const duplicateCode = () =>
  new ServiceError("conflict", "A survey with this code already exists in the company.", [{ path: "code", message: "is already in use" }]);

const storedPermissionV2 = (entry: CreateSurveyBody["permissionsV2"][number]) => ({
  accessRole: oid(entry.accessRole),
  canAnswer: entry.canAnswer,
  canViewAnswers: entry.canViewAnswers,
});

const storedGroupPermissionV2 = (entry: CreateSurveyBody["groupPermissionsV2"][number]) => ({
  group: entry.group,
  accessRoles: entry.accessRoles.map(oid),
});

/** The permission fields that hold something (on create, the ones worth a dormant warning). */
function nonEmptyPermissionFields(state: PermissionState<ObjectId>): string[] {
  return (Object.keys(state) as (keyof PermissionState<ObjectId>)[]).filter((field) => {
    const value = state[field];
    return Array.isArray(value) ? value.length > 0 : field === "group" ? value !== null : value === true;
  });
}

/** Retries of a version change that lost a race with another update of the same survey. */
const MIGRATION_ATTEMPTS = 20;

/**
 * A PATCH is one atomic update of the stored survey (an update pipeline), so concurrent PATCHes
 * never lose each other's changes: `__v` rises by one each, `permissions` given as one id is
 * added to whatever the list holds at that moment, and `modifiedAt` always moves forward. Only a
 * change of `version` reads the survey first (the migration derives fields from it), and it
 * applies only if `__v` is still the one it read, retrying otherwise.
 */
export async function updateSurvey(auth: Principal, id: string, body: UpdateSurveyBody, notes: Notes): Promise<SurveyRecord> {
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  await checkReferences(companyId, body);
  const sent = new Set(Object.keys(body).filter((key) => body[key as keyof UpdateSurveyBody] !== undefined));
  const write: Write = { at: new Date(), by: revisionAuthor(auth.userId) };

  let updated: Document | null = null;
  if (body.version === undefined) {
    updated = await applyUpdate({ _id: surveyId, company: companyId }, body, {}, write);
    if (!updated) throw notFound("survey");
  } else {
    for (let attempt = 0; attempt < MIGRATION_ATTEMPTS && !updated; attempt++) {
      if (attempt > 0) await pause(attempt);
      const current = (await Survey.collection.findOne({ _id: surveyId, company: companyId }, { projection: WITHOUT_INTERNAL_FIELDS })) as LeanSurvey | null;
      if (!current) throw notFound("survey");
      const from = current.version as SurveyVersion;
      if (from === body.version) {
        updated = await applyUpdate({ _id: surveyId, company: companyId, version: from }, body, {}, write);
      } else {
        const migrationNotes = new Notes();
        const derived = migratePermissions(patchedPermissions(current, body), from, body.version, sent, migrationNotes);
        updated = await applyUpdate({ _id: surveyId, company: companyId, __v: current.__v }, body, derived, write);
        if (updated) notes.list.push(...migrationNotes.list);
      }
    }
    if (!updated) throw new ServiceError("conflict", "The survey is being changed by other requests; try again.");
  }
  forgetCounters(companyId);
  warnDormantFields(updated.version as SurveyVersion, sent, notes);
  await sealRevisions(updated);
  return toSurveyRecord(updated as LeanSurvey) as SurveyRecord;
}

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));

/** The permission fields of `current` with the body's values applied (input of a migration). */
function patchedPermissions(current: LeanSurvey, body: UpdateSurveyBody): PermissionState<ObjectId> {
  const stored = current as unknown as PermissionState<ObjectId>;
  let permissions = stored.permissions ?? [];
  if (typeof body.permissions === "string") {
    const id = oid(body.permissions);
    if (!permissions.some((existing) => existing.equals(id))) permissions = [...permissions, id];
  } else if (body.permissions) {
    permissions = body.permissions.map(oid);
  }
  return {
    permissions,
    group: body.group !== undefined ? body.group : (stored.group ?? null),
    groupPermissions: body.groupPermissions?.map(oid) ?? stored.groupPermissions ?? [],
    permissionsV2: body.permissionsV2?.map(storedPermissionV2) ?? stored.permissionsV2 ?? [],
    groupPermissionsV2: body.groupPermissionsV2?.map(storedGroupPermissionV2) ?? stored.groupPermissionsV2 ?? [],
    onlySubSurvey: body.onlySubSurvey ?? stored.onlySubSurvey ?? false,
  };
}

/** The stored state becomes `previous`, without its own `previous` or its search fields. */
const KEEP_PREVIOUS = [{ $set: { previous: "$$ROOT" } }, { $unset: ["previous.previous", "previous.nameLower", "previous.searchPrefixes"] }];

/** When a PATCH happens and who makes it. */
interface Write {
  at: Date;
  by: ObjectId | null;
}

/**
 * Runs the PATCH as one update pipeline; `null` when `filter` matches nothing. The state it
 * replaces is kept in the document as `previous` (see `sealRevisions`).
 */
async function applyUpdate(filter: Filter<Document>, body: UpdateSurveyBody, derived: Partial<PermissionState<ObjectId>>, write: Write): Promise<Document | null> {
  // Every client value is wrapped in $literal: in a pipeline, "$x" would name a field.
  const literal = (value: unknown) => ({ $literal: value });
  const set: Document = { ...Object.fromEntries(Object.entries(derived).map(([field, value]) => [field, literal(value)])) };
  if (body.code !== undefined) set.code = literal(body.code);
  if (body.name !== undefined) {
    set.name = literal(body.name);
    set.nameLower = literal(lower(body.name));
  }
  if (body.version !== undefined) set.version = literal(body.version);
  for (const field of ["isActive", "isSystemModel", "group", "onlySubSurvey"] as const) {
    if (body[field] !== undefined) set[field] = literal(body[field]);
  }
  for (const field of ["groupPermissions", "propertiesChannel", "propertiesLimit", "responders"] as const) {
    if (body[field] !== undefined) set[field] = literal(body[field].map(oid));
  }
  if (body.permissionsV2 !== undefined) set.permissionsV2 = literal(body.permissionsV2.map(storedPermissionV2));
  if (body.groupPermissionsV2 !== undefined) set.groupPermissionsV2 = literal(body.groupPermissionsV2.map(storedGroupPermissionV2));
  if (typeof body.permissions === "string") {
    const current = { $ifNull: ["$permissions", []] };
    const id = oid(body.permissions);
    set.permissions = { $cond: [{ $in: [literal(id), current] }, current, { $concatArrays: [current, literal([id])] }] };
  } else if (body.permissions !== undefined) {
    set.permissions = literal(body.permissions.map(oid));
  }
  // Strictly later than before, also within one millisecond or when clocks disagree.
  set.modifiedAt = { $max: [literal(write.at), { $add: ["$modifiedAt", 1] }] };
  set.__v = { $add: [{ $ifNull: ["$__v", 0] }, 1] };
  set.revisionBy = literal(write.by);
  // The prefixes `search` uses, from the code and name the first stage left.
  const pipeline = body.code !== undefined || body.name !== undefined ? [...KEEP_PREVIOUS, { $set: set }, { $set: { searchPrefixes: searchPrefixesExpression() } }] : [...KEEP_PREVIOUS, { $set: set }];
  try {
    return await Survey.collection.findOneAndUpdate(filter, pipeline, { returnDocument: "after" });
  } catch (error) {
    if (isDuplicateKeyError(error)) throw duplicateCode();
    throw error;
  }
}

interface References {
  permissions?: string | string[];
  groupPermissions?: string[];
  permissionsV2?: { accessRole: string }[];
  groupPermissionsV2?: { accessRoles: string[] }[];
  propertiesChannel?: string[];
  propertiesLimit?: string[];
  responders?: string[];
}

/** Every id a body names must be a record of the caller's company (`400 unknown_reference`). */
async function checkReferences(companyId: ObjectId, body: References): Promise<void> {
  const roles: [string, string][] = [];
  if (typeof body.permissions === "string") roles.push(["permissions", body.permissions]);
  else body.permissions?.forEach((id, i) => roles.push([`permissions.${i}`, id]));
  body.groupPermissions?.forEach((id, i) => roles.push([`groupPermissions.${i}`, id]));
  body.permissionsV2?.forEach((entry, i) => roles.push([`permissionsV2.${i}.accessRole`, entry.accessRole]));
  body.groupPermissionsV2?.forEach((entry, i) => entry.accessRoles.forEach((id, k) => roles.push([`groupPermissionsV2.${i}.accessRoles.${k}`, id])));
  const properties: [string, string][] = [
    ...(body.propertiesChannel ?? []).map((id, i): [string, string] => [`propertiesChannel.${i}`, id]),
    ...(body.propertiesLimit ?? []).map((id, i): [string, string] => [`propertiesLimit.${i}`, id]),
  ];
  const users = (body.responders ?? []).map((id, i): [string, string] => [`responders.${i}`, id]);

  const missing = async (refs: [string, string][], find: (ids: ObjectId[]) => Promise<{ _id: ObjectId }[]>): Promise<ErrorDetail[]> => {
    if (refs.length === 0) return [];
    const ids = [...new Set(refs.map(([, id]) => id))].map(oid);
    const found = new Set((await find(ids)).map((record) => record._id.toHexString()));
    return refs.filter(([, id]) => !found.has(id)).map(([path, id]) => ({ path, message: `${id} names no such record of the company` }));
  };
  const details = (
    await Promise.all([
      missing(roles, (ids) => AccessRole.find({ _id: { $in: ids }, company: companyId }, { _id: 1 }).lean()),
      missing(properties, (ids) => Property.find({ _id: { $in: ids }, company: companyId }, { _id: 1 }).lean()),
      missing(users, (ids) => User.find({ _id: { $in: ids }, "companies.companyId": companyId }, { _id: 1 }).lean<{ _id: ObjectId }[]>()),
    ])
  ).flat();
  if (details.length > 0) {
    throw new ServiceError("unknown_reference", "The body names records that do not exist in the company.", details);
  }
}
