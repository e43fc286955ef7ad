/**
 * The surveys collection: the model, and how a stored survey is shown by the API (also inside
 * revisions).
 */
import mongoose, { Schema } from "mongoose";
import type { Document, Filter } from "mongodb";
import { defineModel, ObjectId, schemaOptions } from "@/lib/models/define";
import { findDocs, type ReadOptions } from "@/lib/models/read";
import type { ObjectId as Id } from "@/lib/services/ids";
import { SURVEY_FIELDS, type SurveyField, type SurveyRecord, type SurveyVersion } from "./contract";

const ids = { type: [{ type: ObjectId }], default: [] };

const surveySchema = new Schema(
  {
    code: { type: String, required: true },
    name: { type: String, required: true },
    /** `name` lowercased, for `search` (never shown by the API, as `searchPrefixes`). */
    nameLower: { type: String, required: true },
    /**
     * Every prefix (up to 32 code points) of `code` and of `nameLower`: `search` is then one
     * equality on an index that also serves the newest-first order (lib/services/survey-search.ts).
     */
    searchPrefixes: { type: [String], default: [] },
    version: { type: Number, enum: [1, 2], required: true },
    company: { type: ObjectId, required: true },
    isActive: { type: Boolean, required: true, default: true },
    isSystemModel: { type: Boolean, required: true, default: false },
    // Version 1 permission model (docs/api.md#permission-models).
    permissions: ids,
    group: { type: String, default: null },
    groupPermissions: ids,
    // Version 2 permission model.
    permissionsV2: {
      type: [new Schema({ accessRole: { type: ObjectId, required: true }, canAnswer: Boolean, canViewAnswers: Boolean }, { _id: false, strict: "throw" })],
      default: [],
    },
    groupPermissionsV2: {
      type: [new Schema({ group: { type: String, required: true }, accessRoles: ids }, { _id: false, strict: "throw" })],
      default: [],
    },
    onlySubSurvey: { type: Boolean, required: true, default: false },
    propertiesChannel: ids,
    propertiesLimit: ids,
    responders: ids,
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
    /** The revision counter: 0 on creation, one more per successful update. */
    __v: { type: Number, required: true, default: 0 },
    /**
     * Never shown, as `nameLower`: who made this state of the survey, and the stored state the
     * last update replaced, so either revision can still be written after a crash
     * (lib/services/survey-revisions.ts `sealRevisions`).
     */
    revisionBy: { type: ObjectId, default: null },
    previous: { type: Schema.Types.Mixed, default: undefined },
  },
  { ...schemaOptions, collection: "surveys" },
);

// `code` is unique within a company; the index also answers the code half of `search`.
surveySchema.index({ company: 1, code: 1 }, { unique: true });
// The default list (active surveys, newest first) and the list with isActive=all.
surveySchema.index({ company: 1, isActive: 1, modifiedAt: 1, _id: 1 });
surveySchema.index({ company: 1, modifiedAt: 1, _id: 1 });
// `search` (a prefix of code or name), active surveys newest first; counted from the index alone.
surveySchema.index({ company: 1, searchPrefixes: 1, isActive: 1, modifiedAt: 1, _id: 1 });

export const Survey = defineModel("SvcSurvey", surveySchema);

export type SurveyDoc = mongoose.InferSchemaType<typeof surveySchema> & { _id: mongoose.Types.ObjectId };

type LeanSurvey = SurveyDoc;

const hex = (id: Id) => id.toHexString();
const hexAll = (ids: Id[] | undefined) => (ids ?? []).map(hex);

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
