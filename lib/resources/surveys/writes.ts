/**
 * A survey's PATCH as one task: the references checked, the update with its revisions, its event
 * and audit entry in one transaction, then the company's count mark raised. A task of the read
 * workers (lib/platform/startup/read-tasks.ts), so that on a process with a worker the HTTP thread
 * sends none of its commands (docs/architecture.md#read-workers); it runs the same in the calling
 * thread when there is none. Also what the create and the content writes share with it.
 */
import type { Notification } from "@/lib/base/schemas/common";
import { migratePermissions, type PermissionState, type SurveyVersion } from "@/lib/base/shared/survey-permissions";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { matchesTag } from "@/lib/kernel/entity-tag";
import { isDuplicateKeyError, notFound, preconditionFailed, ServiceError } from "@/lib/kernel/errors";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import { Notes } from "@/lib/kernel/notes";
import { checkReferences, listRefs } from "@/lib/kernel/references";
import { requestContext, withRequestContext, type RequestContext } from "@/lib/kernel/request-context";
import { retryWhileRaced } from "@/lib/kernel/retry";
import { recordChange } from "@/lib/resources/events/service";
import { existingIds } from "@/lib/resources/reference/repository";
import { existingUserIds } from "@/lib/resources/users/repository";
import type { CreateSurveyBody, SurveyRecord, UpdateSurveyBody } from "./contract";
import {
  applySurveyPatch,
  findCompanySurvey,
  forgetSurveyCounters,
  sealRevisions,
  storedSurveyTag,
  toSurveyRecord,
  WITHOUT_INTERNAL_FIELDS,
  type LeanSurvey,
  type SurveyConditions,
  type SurveyPatch,
  type Write,
} from "./repository";

/** A PATCH, as the surveys service received it. */
export interface SurveyPatchWrite {
  companyId: ObjectId;
  surveyId: ObjectId;
  body: UpdateSurveyBody;
  write: Write;
  ifMatch?: string;
  /** The request's context, which the event and the audit entry name (a worker has none of its own). */
  context?: RequestContext;
}

/** What a PATCH answers: the record, and the notes of a permission migration that applied. */
export interface SurveyPatched {
  record: SurveyRecord;
  notes: Notification[];
}

/**
 * Applies a PATCH (see `updateSurvey` in ./service.ts): the record once committed, and the
 * company's counts no longer current (docs/api.md#counters).
 */
export function writeSurveyPatch({
  companyId,
  surveyId,
  body,
  write,
  ifMatch,
  context,
}: SurveyPatchWrite): Promise<SurveyPatched> {
  const run = async (): Promise<SurveyPatched> => {
    await checkBodyReferences(companyId, body);
    const sent = new Set(Object.keys(body).filter((key) => body[key as keyof UpdateSurveyBody] !== undefined));
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
          if (from === body.version)
            return applyUpdate(surveyId, companyId, body, {}, write, { ...held, version: from });
          migrationNotes.list.length = 0;
          const derived = migratePermissions(
            patchedPermissions(current, body),
            from,
            body.version,
            sent,
            migrationNotes,
          );
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
    await forgetSurveyCounters(companyId);
    return { record: toSurveyRecord(updated) as SurveyRecord, notes: migrationNotes.list };
  };
  return context && requestContext() !== context ? withRequestContext(context, run) : run();
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

export const duplicateCode = () =>
  new ServiceError("conflict", "A survey with this code already exists in the company.", [
    { path: "code", message: "is already in use" },
  ]);

export const storedPermissionV2 = (entry: CreateSurveyBody["permissionsV2"][number]) => ({
  accessRole: oid(entry.accessRole),
  canAnswer: entry.canAnswer,
  canViewAnswers: entry.canViewAnswers,
});

export const storedGroupPermissionV2 = (entry: CreateSurveyBody["groupPermissionsV2"][number]) => ({
  group: entry.group,
  accessRoles: entry.accessRoles.map(oid),
});

export interface References {
  permissions?: string | string[];
  groupPermissions?: string[];
  permissionsV2?: { accessRole: string }[];
  groupPermissionsV2?: { accessRoles: string[] }[];
  propertiesChannel?: string[];
  propertiesLimit?: string[];
  responders?: string[];
}

/** Every id a body names must be a record of the caller's company (`400 unknown_reference`). */
export function checkBodyReferences(companyId: ObjectId, body: References): Promise<void> {
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
