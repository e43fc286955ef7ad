import mongoose, { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

/** A user's answer to one question; identified to clients by `uuid` (docs/api.md#records-behind-a-survey). */
const answerSchema = new Schema(
  {
    uuid: { type: ObjectId, required: true },
    company: { type: ObjectId, required: true },
    survey: { type: ObjectId, required: true },
    chat: { type: ObjectId, required: true },
    question: { type: ObjectId, required: true },
    user: { type: ObjectId, default: null },
    value: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "answers" },
);
// `GET /v2/surveys?answer=<uuid>`: the answers of those uuids, within the company.
answerSchema.index({ uuid: 1, company: 1 }, { unique: true });
// `populate`: the answer count of each question of a survey.
answerSchema.index({ survey: 1, question: 1 });

export const Answer = defineModel("SvcAnswer", answerSchema);

export type AnswerDoc = mongoose.InferSchemaType<typeof answerSchema> & { _id: mongoose.Types.ObjectId };
