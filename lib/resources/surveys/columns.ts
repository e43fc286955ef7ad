/**
 * The columns of the surveys CSV (docs/api.md#export), in one place:
 *
 *   _id, code, name   as in the record
 *   version           1 or 2 (the permission model)
 *   isActive, isSystemModel, onlySubSurvey   `true` or `false`
 *   group             empty when none
 *   permissions       the names of the access roles in `permissions`, joined by `;`
 *   responders        how many users `responders` names
 *   createdAt, modifiedAt   ISO date-times
 *   __v               the revision
 *
 * An access role that no longer exists is written as its id.
 */
import type { ReferenceNames } from "@/lib/resources/reference/names";
import type { SurveyRecord } from "./contract";

export const SURVEY_COLUMNS = [
  "_id",
  "code",
  "name",
  "version",
  "isActive",
  "isSystemModel",
  "onlySubSurvey",
  "group",
  "permissions",
  "responders",
  "createdAt",
  "modifiedAt",
  "__v",
] as const;
type SurveyColumn = (typeof SURVEY_COLUMNS)[number];

/** The names a batch of records needs, to load before {@link surveyRow}. */
export const surveyReferences = (records: SurveyRecord[]) => ({
  accessRoles: records.flatMap((record) => record.permissions),
});

export function surveyRow(record: SurveyRecord, names: ReferenceNames): string[] {
  const cells: Record<SurveyColumn, string> = {
    _id: record._id,
    code: record.code,
    name: record.name,
    version: String(record.version),
    isActive: String(record.isActive),
    isSystemModel: String(record.isSystemModel),
    onlySubSurvey: String(record.onlySubSurvey),
    group: record.group ?? "",
    permissions: record.permissions.map((id) => names.name("accessRoles", id)).join(";"),
    responders: String(record.responders.length),
    createdAt: record.createdAt,
    modifiedAt: record.modifiedAt,
    __v: String(record.__v),
  };
  return SURVEY_COLUMNS.map((column) => cells[column]);
}
