/**
 * The surveys resource (docs/api.md#surveys): list, read (with its
 * chats, questions and answer counts), create, update. Every query is scoped to the caller's
 * company: a survey of another company does not exist here, and its code is free to reuse.
 */
import { warnDormantFields, type PermissionState, type SurveyVersion } from "@/lib/base/shared/survey-permissions";
import { listScope, pageFields, pageOfWritten, pageRead, withCondition, type ListOrder } from "@/lib/kernel/cursor";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { isDuplicateKeyError, notFound } from "@/lib/kernel/errors";
import { keysetBatches, type ExportSource } from "@/lib/kernel/export/stream";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import { JsonText } from "@/lib/kernel/json-text";
import { Notes } from "@/lib/kernel/notes";
import { offThread } from "@/lib/kernel/off-thread";
import type { Principal } from "@/lib/kernel/principal";
import { requestContext } from "@/lib/kernel/request-context";
import { ReferenceNames } from "@/lib/resources/reference/names";
import type { Sort } from "mongodb";
import { SURVEY_COLUMNS, surveyReferences, surveyRow } from "./columns";
import { finishContentWrite } from "./content-sync";
import {
  SURVEY_FIELDS,
  type CreateSurveyBody,
  type ExportSurveysQuery,
  type ListSurveysQuery,
  type SurveyField,
  type SurveyList,
  type SurveyRecord,
  type SurveySort,
  type UpdateSurveyBody,
} from "./contract";
import { surveyListFilter } from "./list-filter";
import {
  countSurveys,
  findCompanySurvey,
  forgetSurveyCounters,
  insertSurvey,
  newDoc,
  readSurveyRecords,
  readWrittenPopulatedSurvey,
  readWrittenSurveys,
  sealRevisions,
  surveyAnswerTag,
  surveyCountKey,
  toSurveyRecord,
  WITHOUT_INTERNAL_FIELDS,
  type SurveyPosition,
} from "./repository";
import { revisionAuthor } from "./revisions";
import { lower } from "./search";
import {
  checkBodyReferences,
  duplicateCode,
  recordSurveyChange,
  storedGroupPermissionV2,
  storedPermissionV2,
  writeSurveyPatch,
} from "./writes";

// ---------------------------------------------------------------------------------------------
// Reading

/** A list's answer whose records are written where they were read (lib/kernel/json-text.ts). */
type WrittenSurveyList = {
  data: Omit<SurveyList["data"], "surveys"> & { surveys: JsonText<SurveyList["data"]["surveys"][number]>[] };
};

export async function listSurveys(auth: Principal, query: ListSurveysQuery, notes: Notes): Promise<WrittenSurveyList> {
  const companyId = oid(auth.companyId);
  const filter = await surveyListFilter(companyId, query, notes);
  const order = surveyOrder(query);
  // The cursor needs each record's sort field, also when `select` leaves it out of the answer.
  const fields = query.select ? withId([...query.select, query.sort]) : SURVEY_FIELDS;
  const projection = query.select ? Object.fromEntries(fields.map((field) => [field, 1])) : WITHOUT_INTERNAL_FIELDS;
  // `sort` and `orderBy` are filters of the scope: a cursor of one order is refused by another.
  const scope = listScope(auth.companyId, "/v2/surveys", query);
  const read = await pageRead(query, order, scope);

  // The stored count is read beside the page, so a current count costs this thread no command
  // (docs/api.md#counters).
  const counted = query.count ? surveyCountKey(companyId, filter) : undefined;
  const written = await offThread("surveyPage", readWrittenSurveys, {
    filter: withCondition(filter, read.after),
    projection,
    fields,
    sort: read.sort,
    skip: read.skip,
    limit: read.limit,
    ...(query.select && !query.select.includes(query.sort) ? { omit: query.sort } : {}),
    ...(counted ? { counted } : {}),
  });
  const counter = counted ? await countSurveys(companyId, filter, { key: counted, stored: written.counts }) : undefined;
  const page = await pageOfWritten(written, query, order, scope, surveyPosition(query.sort));
  return {
    data: {
      surveys: page.items,
      ...pageFields(query, page, counter),
    },
  };
}

/**
 * Every survey the list's filters match, in the list's order, for a CSV or NDJSON stream
 * (docs/api.md#export, lib/kernel/export/stream.ts); the count of the matches, taken first, is the answer's `X-Total-Count`.
 */
export async function exportSurveys(
  auth: Principal,
  query: ExportSurveysQuery,
  notes: Notes,
): Promise<ExportSource<SurveyRecord>> {
  const companyId = oid(auth.companyId);
  const filter = await surveyListFilter(companyId, query, notes);
  const order = surveyOrder(query);
  const sort = Object.fromEntries(order.fields.map((field) => [field.name, order.direction])) as Sort;
  const names = new ReferenceNames(companyId);
  return {
    name: "surveys",
    total: await countSurveys(companyId, filter),
    batches: keysetBatches(
      async (after, limit) =>
        (await readSurveyRecords({
          filter: withCondition(filter, after),
          projection: WITHOUT_INTERNAL_FIELDS,
          fields: SURVEY_FIELDS,
          sort,
          limit,
        })) as SurveyRecord[],
      order,
      surveyPosition(query.sort),
    ),
    columns: SURVEY_COLUMNS,
    rows: async (batch) => {
      await names.load(surveyReferences(batch));
      return batch.map((survey) => surveyRow(survey, names));
    },
    records: (batch) => batch,
  };
}

/**
 * By the field `sort` names (docs/api.md#sorting), in the direction `orderBy` asks: `name` by
 * its stored lowercase `nameLower`, `_id` breaking ties; `code` alone, as it is unique in the
 * company (its unique index serves the order). Each order has its index (./repository.ts).
 */
function surveyOrder(query: Pick<ListSurveysQuery, "orderBy" | "sort">): ListOrder {
  const id = { name: "_id", type: "objectId" } as const;
  const fields: Record<SurveySort, ListOrder["fields"]> = {
    modifiedAt: [{ name: "modifiedAt", type: "date" }, id],
    name: [{ name: "nameLower", type: "string" }, id],
    code: [{ name: "code", type: "string" }],
  };
  return { fields: fields[query.sort], direction: query.orderBy === "asc" ? 1 : -1 };
}

/** A record's values of its order's fields; `nameLower` is always `lower(name)`, written with it. */
function surveyPosition(sort: SurveySort): (survey: SurveyPosition) => unknown[] {
  switch (sort) {
    case "modifiedAt":
      return (survey) => [new Date(survey.modifiedAt!), oid(survey._id!)];
    case "name":
      return (survey) => [lower(survey.name!), oid(survey._id!)];
    case "code":
      return (survey) => [survey.code!];
  }
}

const withId = (select: SurveyField[]): SurveyField[] => ["_id", ...new Set(select.filter((field) => field !== "_id"))];

export async function getSurvey(auth: Principal, id: string, options: { populate: boolean }): Promise<SurveyRecord> {
  if (options.populate) return JSON.parse((await populatedSurvey(auth, id)).text) as SurveyRecord;
  const doc = await findCompanySurvey(oid(auth.companyId), oid(id), WITHOUT_INTERNAL_FIELDS);
  if (!doc) throw notFound("survey");
  return toSurveyRecord(doc) as SurveyRecord;
}

/** A survey as `GET /v2/surveys/{id}` answers it, with its tag (docs/api.md#conditional-requests). */
export async function surveyAnswer(
  auth: Principal,
  id: string,
  options: { populate: boolean },
): Promise<{ body: SurveyRecord | JsonText<SurveyRecord>; tag: string }> {
  if (options.populate) {
    const { text, tag } = await populatedSurvey(auth, id);
    return { body: new JsonText<SurveyRecord>(text), tag };
  }
  const record = await getSurvey(auth, id, options);
  return { body: record, tag: surveyAnswerTag(record) };
}

/**
 * The survey with its chats in one round trip, on a read worker when there is one, written there
 * (docs/architecture.md#read-workers); a content write left half-way is finished first.
 */
async function populatedSurvey(auth: Principal, id: string): Promise<{ text: string; tag: string }> {
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  const read = () => offThread("populatedSurvey", readWrittenPopulatedSurvey, { companyId, surveyId });
  let found = await read();
  if (found.contentPending) {
    await finishContentWrite(surveyId, companyId);
    found = await read();
  }
  if (found.text === null) throw notFound("survey");
  return { text: found.text, tag: found.tag };
}

// ---------------------------------------------------------------------------------------------
// Writing

export async function createSurvey(auth: Principal, body: CreateSurveyBody, notes: Notes): Promise<SurveyRecord> {
  const companyId = oid(auth.companyId);
  await checkBodyReferences(companyId, body);
  const now = new Date();
  const doc = newDoc({
    code: body.code,
    name: body.name,
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
    revisionBy: revisionAuthor(auth.userId),
  });
  warnDormantFields(body.version, nonEmptyPermissionFields(doc), notes);
  // The survey, its revision and its event commit together (docs/architecture.md#events).
  const record = await inTransaction(async () => {
    try {
      await insertSurvey(doc);
    } catch (error) {
      if (isDuplicateKeyError(error)) throw duplicateCode();
      throw error;
    }
    await sealRevisions(doc);
    await recordSurveyChange(doc);
    return toSurveyRecord(doc) as SurveyRecord;
  });
  await forgetSurveyCounters(companyId);
  return record;
}

/** The permission fields that hold something (on create, the ones worth a dormant warning). */
function nonEmptyPermissionFields(state: { [K in keyof PermissionState<ObjectId>]: unknown }): string[] {
  return (Object.keys(state) as (keyof PermissionState<ObjectId>)[]).filter((field) => {
    const value = state[field];
    return Array.isArray(value) ? value.length > 0 : field === "group" ? value !== null : value === true;
  });
}

/**
 * A PATCH is one atomic update of the stored survey (an update pipeline), so concurrent PATCHes
 * never lose each other's changes: `__v` rises by one each, `permissions` given as one id is
 * added to whatever the list holds at that moment, and `modifiedAt` always moves forward. Only a
 * change of `version` reads the survey first (the migration derives fields from it), and it
 * applies only if `__v` is still the one it read, retrying otherwise.
 */
export async function updateSurvey(
  auth: Principal,
  id: string,
  body: UpdateSurveyBody,
  notes: Notes,
  ifMatch?: string,
): Promise<SurveyRecord> {
  const sent = new Set(Object.keys(body).filter((key) => body[key as keyof UpdateSurveyBody] !== undefined));
  // On a read worker when the process has one: this thread then sends none of the write's commands.
  const patched = await offThread(
    "surveyPatch",
    writeSurveyPatch,
    {
      companyId: oid(auth.companyId),
      surveyId: oid(id),
      body,
      write: { at: new Date(), by: revisionAuthor(auth.userId) },
      ...(ifMatch === undefined ? {} : { ifMatch }),
      context: requestContext(),
    },
    { once: true },
  );
  notes.list.push(...patched.notes);
  warnDormantFields(patched.record.version as SurveyVersion, sent, notes);
  return patched.record;
}
