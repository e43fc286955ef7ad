import mongoose, { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

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
