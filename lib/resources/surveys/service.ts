/**
 * The surveys resource (docs/api.md#surveys): list, read (with its
 * chats, questions and answer counts), create, update. Every query is scoped to the caller's
 * company: a survey of another company does not exist here, and its code is free to reuse.
 */
import {
  migratePermissions,
  warnDormantFields,
  type PermissionState,
  type SurveyVersion,
} from "@/lib/base/shared/survey-permissions";
import { listScope, pageFields, pageOf, pageRead, withCondition, type ListOrder } from "@/lib/kernel/cursor";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { matchesTag } from "@/lib/kernel/entity-tag";
import { isDuplicateKeyError, notFound, preconditionFailed, ServiceError } from "@/lib/kernel/errors";
import { keysetBatches, type ExportSource } from "@/lib/kernel/export/stream";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import { offThread } from "@/lib/kernel/off-thread";
import type { Principal } from "@/lib/kernel/principal";
import { checkReferences, listRefs } from "@/lib/kernel/references";
import { retryWhileRaced } from "@/lib/kernel/retry";
import { recordChange } from "@/lib/resources/events/service";
import { ReferenceNames } from "@/lib/resources/reference/names";
import { existingIds } from "@/lib/resources/reference/repository";
import { existingUserIds } from "@/lib/resources/users/repository";
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
  applySurveyPatch,
  countSurveys,
  findCompanySurvey,
  forgetSurveyCounters,
  insertSurvey,
  newDoc,
  readPopulatedSurvey,
  readSurveyRecords,
  sealRevisions,
  storedSurveyTag,
  toSurveyRecord,
  WITHOUT_INTERNAL_FIELDS,
  type LeanSurvey,
  type SurveyConditions,
  type SurveyPatch,
  type Write,
} from "./repository";
import { revisionAuthor } from "./revisions";
import { lower } from "./search";

// ---------------------------------------------------------------------------------------------
// Reading

export async function listSurveys(auth: Principal, query: ListSurveysQuery, notes: Notes): Promise<SurveyList> {
  const companyId = oid(auth.companyId);
  const filter = await surveyListFilter(companyId, query, notes);
  const order = surveyOrder(query);
  // The cursor needs each record's sort field, also when `select` leaves it out of the answer.
  const fields = query.select ? withId([...query.select, query.sort]) : SURVEY_FIELDS;
  const projection = query.select ? Object.fromEntries(fields.map((field) => [field, 1])) : WITHOUT_INTERNAL_FIELDS;
  // `sort` and `orderBy` are filters of the scope: a cursor of one order is refused by another.
  const scope = listScope(auth.companyId, "/v2/surveys", query);
  const read = await pageRead(query, order, scope);

  const [surveys, counter] = await Promise.all([
    offThread("surveyRecords", readSurveyRecords, {
      filter: withCondition(filter, read.after),
      projection,
      fields,
      sort: read.sort,
      skip: read.skip,
      limit: read.limit,
    }),
    query.count ? countSurveys(companyId, filter) : undefined,
  ]);
  const page = await pageOf(surveys, query, order, scope, surveyPosition(query.sort));
  const items =
    query.select && !query.select.includes(query.sort)
      ? page.items.map((survey) => without(survey, query.sort))
      : page.items;
  return {
    data: {
      surveys: items as SurveyList["data"]["surveys"],
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

function without(survey: Partial<SurveyRecord>, field: SurveySort): Partial<SurveyRecord> {
  const copy = { ...survey };
  delete copy[field];
  return copy;
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
function surveyPosition(sort: SurveySort): (survey: Partial<SurveyRecord>) => unknown[] {
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
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  if (options.populate) {
    // The survey with its chats in one round trip, on a read worker when there is one
    // (docs/architecture.md#read-workers); a content write left half-way is finished first.
    const read = () => offThread("populatedSurvey", readPopulatedSurvey, { companyId, surveyId });
    let found = await read();
    if (found.contentPending) {
      await finishContentWrite(surveyId, companyId);
      found = await read();
    }
    if (!found.survey) throw notFound("survey");
    return { ...found.survey, chat: found.chat };
  }
  const doc = await findCompanySurvey(companyId, surveyId, WITHOUT_INTERNAL_FIELDS);
  if (!doc) throw notFound("survey");
  return toSurveyRecord(doc) as SurveyRecord;
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

/**
 * The event of a write of a survey, from the document it returned: `previous` is the state it
 * replaced (none for a create), and the stored content (`chat`) counts as the survey's.
 */
export function recordSurveyChange(doc: LeanSurvey): Promise<boolean> {
  const shown = (state: LeanSurvey) => ({ ...toSurveyRecord(state), chat: state.chat ?? null });
  const previous = doc.previous as LeanSurvey | null | undefined;
  return recordChange({
    company: doc.company,
    resource: "survey",
    id: doc._id,
    action: previous ? "updated" : "created",
    before: previous ? shown(previous) : null,
    after: shown(doc),
  });
}

const duplicateCode = () =>
  new ServiceError("conflict", "A survey with this code already exists in the company.", [
    { path: "code", message: "is already in use" },
  ]);

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
  const companyId = oid(auth.companyId);
  const surveyId = oid(id);
  await checkBodyReferences(companyId, body);
  const sent = new Set(Object.keys(body).filter((key) => body[key as keyof UpdateSurveyBody] !== undefined));
  const write: Write = { at: new Date(), by: revisionAuthor(auth.userId) };
  // A tag other than `*` holds the write to the version it names: `__v` rises with every write.
  const conditional = ifMatch !== undefined && ifMatch.trim() !== "*";

  const migrationNotes = new Notes();
  // The change, its revision and its event commit together; the transaction may run this again
  // whole after a write conflict, so it writes only to the database (docs/architecture.md#events).
  const updated = await inTransaction(async () => {
    migrationNotes.list.length = 0;
    let updated: LeanSurvey | null = null;
    if (body.version === undefined && !conditional) {
      updated = await applyUpdate(surveyId, companyId, body, {}, write);
      if (!updated) throw notFound("survey");
    } else {
      updated = await retryWhileRaced(async () => {
        const current = await findCompanySurvey(companyId, surveyId, WITHOUT_INTERNAL_FIELDS);
        if (!current) throw notFound("survey");
        const tag = storedSurveyTag(current);
        if (ifMatch !== undefined && !matchesTag(ifMatch, tag)) throw preconditionFailed("survey", tag);
        const held: SurveyConditions = conditional ? { revision: current.__v } : {};
        const from = current.version as SurveyVersion;
        if (body.version === undefined) return applyUpdate(surveyId, companyId, body, {}, write, held);
        if (from === body.version) return applyUpdate(surveyId, companyId, body, {}, write, { ...held, version: from });
        migrationNotes.list.length = 0;
        const derived = migratePermissions(patchedPermissions(current, body), from, body.version, sent, migrationNotes);
        const migrated = await applyUpdate(surveyId, companyId, body, derived, write, {
          ...held,
          revision: current.__v,
        });
        // Only the migration that applied speaks.
        if (!migrated) migrationNotes.list.length = 0;
        return migrated;
      });
      if (!updated) throw new ServiceError("conflict", "The survey is being changed by other requests; try again.");
    }
    await sealRevisions(updated);
    await recordSurveyChange(updated);
    return updated;
  });
  notes.list.push(...migrationNotes.list);
  await forgetSurveyCounters(companyId);
  warnDormantFields(updated.version as SurveyVersion, sent, notes);
  return toSurveyRecord(updated) as SurveyRecord;
}

/** The permission fields of `current` with the body's values applied (input of a migration). */
function patchedPermissions(current: LeanSurvey, body: UpdateSurveyBody): PermissionState<ObjectId> {
  // As the migration has always read it: entries stored by earlier versions may lack a flag.
  const stored = current as PermissionState<ObjectId>;
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

/**
 * Runs the PATCH as one update of the stored survey (./repository.ts); `null` when nothing matched.
 */
async function applyUpdate(
  surveyId: ObjectId,
  companyId: ObjectId,
  body: UpdateSurveyBody,
  derived: Partial<PermissionState<ObjectId>>,
  write: Write,
  conditions: SurveyConditions = {},
): Promise<LeanSurvey | null> {
  const fields: Record<string, unknown> = { ...derived };
  if (body.code !== undefined) fields.code = body.code;
  if (body.name !== undefined) fields.name = body.name;
  if (body.version !== undefined) fields.version = body.version;
  for (const field of ["isActive", "isSystemModel", "group", "onlySubSurvey"] as const) {
    if (body[field] !== undefined) fields[field] = body[field];
  }
  for (const field of ["groupPermissions", "propertiesChannel", "propertiesLimit", "responders"] as const) {
    if (body[field] !== undefined) fields[field] = body[field].map(oid);
  }
  if (body.permissionsV2 !== undefined) fields.permissionsV2 = body.permissionsV2.map(storedPermissionV2);
  if (body.groupPermissionsV2 !== undefined)
    fields.groupPermissionsV2 = body.groupPermissionsV2.map(storedGroupPermissionV2);
  const patch: SurveyPatch = { fields };
  if (typeof body.permissions === "string") patch.addPermission = oid(body.permissions);
  else if (body.permissions !== undefined) fields.permissions = body.permissions.map(oid);
  try {
    return await applySurveyPatch(surveyId, companyId, patch, write, conditions);
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
function checkBodyReferences(companyId: ObjectId, body: References): Promise<void> {
  const roles: [string, string][] =
    typeof body.permissions === "string"
      ? [["permissions", body.permissions]]
      : listRefs("permissions", body.permissions);
  roles.push(...listRefs("groupPermissions", body.groupPermissions));
  body.permissionsV2?.forEach((entry, i) => roles.push([`permissionsV2.${i}.accessRole`, entry.accessRole]));
  body.groupPermissionsV2?.forEach((entry, i) =>
    roles.push(...listRefs(`groupPermissionsV2.${i}.accessRoles`, entry.accessRoles)),
  );
  return checkReferences([
    { refs: roles, find: (ids) => existingIds("accessRoles", companyId, ids) },
    {
      refs: [
        ...listRefs("propertiesChannel", body.propertiesChannel),
        ...listRefs("propertiesLimit", body.propertiesLimit),
      ],
      find: (ids) => existingIds("properties", companyId, ids),
    },
    { refs: listRefs("responders", body.responders), find: (ids) => existingUserIds(companyId, ids) },
  ]);
}
