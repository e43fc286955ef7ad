/** How a stored survey is shown by the API (also inside revisions). */
import type { Document, Filter } from "mongodb";
import { Survey } from "@/lib/models";
import { findDocs, type ReadOptions } from "@/lib/models/read";
import type { SurveyDoc } from "@/lib/models/survey";
import { SURVEY_FIELDS, type SurveyField, type SurveyRecord, type SurveyVersion } from "@/lib/schemas/surveys";
import type { ObjectId } from "./ids";

type LeanSurvey = SurveyDoc;

const hex = (id: ObjectId) => id.toHexString();
const hexAll = (ids: ObjectId[] | undefined) => (ids ?? []).map(hex);

const SERIALISERS: { [K in SurveyField]: (doc: LeanSurvey) => SurveyRecord[K] } = {
  _id: (doc) => hex(doc._id),
  code: (doc) => doc.code,
  name: (doc) => doc.name,
  version: (doc) => doc.version as SurveyVersion,
  company: (doc) => hex(doc.company),
  isActive: (doc) => doc.isActive ?? true,
  isSystemModel: (doc) => doc.isSystemModel ?? false,
  permissions: (doc) => hexAll(doc.permissions),
  group: (doc) => doc.group ?? null,
  groupPermissions: (doc) => hexAll(doc.groupPermissions),
  permissionsV2: (doc) =>
    (doc.permissionsV2 ?? []).map((entry) => ({
      accessRole: hex(entry.accessRole),
      canAnswer: entry.canAnswer ?? true,
      canViewAnswers: entry.canViewAnswers ?? false,
    })),
  groupPermissionsV2: (doc) => (doc.groupPermissionsV2 ?? []).map((entry) => ({ group: entry.group, accessRoles: hexAll(entry.accessRoles) })),
  onlySubSurvey: (doc) => doc.onlySubSurvey ?? false,
  propertiesChannel: (doc) => hexAll(doc.propertiesChannel),
  propertiesLimit: (doc) => hexAll(doc.propertiesLimit),
  responders: (doc) => hexAll(doc.responders),
  createdAt: (doc) => doc.createdAt.toISOString(),
  modifiedAt: (doc) => doc.modifiedAt.toISOString(),
  __v: (doc) => doc.__v ?? 0,
};

/** The record as the API shows it: only `fields` (all by default), never internal fields. */
export function toSurveyRecord(doc: LeanSurvey, fields: readonly SurveyField[] = SURVEY_FIELDS): Partial<SurveyRecord> {
  const record: Record<string, unknown> = {};
  for (const field of fields) record[field] = SERIALISERS[field](doc);
  return record as Partial<SurveyRecord>;
}

/** A read of survey records: the filter must already be scoped to the caller's company. */
export interface SurveyRecordsQuery extends ReadOptions {
  filter: Filter<Document>;
  projection: Document;
  /** The fields of each record, as {@link toSurveyRecord} takes them. */
  fields: readonly SurveyField[];
}

/** Runs on a read worker (lib/services/read-tasks.ts) as well as in the calling thread. */
export async function readSurveyRecords({ fields, filter, ...options }: SurveyRecordsQuery): Promise<Partial<SurveyRecord>[]> {
  const docs = await findDocs<LeanSurvey>(Survey, filter, options);
  return docs.map((doc) => toSurveyRecord(doc, fields));
}
