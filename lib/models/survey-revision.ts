import mongoose, { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

/** The survey as it was after one successful create or update (docs/api.md#revisions). */
const surveyRevisionSchema = new Schema(
  {
    survey: { type: ObjectId, required: true },
    company: { type: ObjectId, required: true },
    __v: { type: Number, required: true },
    /** The stored survey document after the change. */
    snapshot: { type: Schema.Types.Mixed, required: true },
    modifiedBy: { type: ObjectId, default: null },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "surveyrevisions" },
);
// One revision per survey version, listed newest first.
surveyRevisionSchema.index({ survey: 1, __v: 1 }, { unique: true });

export const SurveyRevision = defineModel("SvcSurveyRevision", surveyRevisionSchema);

export type SurveyRevisionDoc = mongoose.InferSchemaType<typeof surveyRevisionSchema> & { _id: mongoose.Types.ObjectId };
