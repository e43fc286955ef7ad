import mongoose, { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

/** A component of a survey: a conversation that asks its questions in `order`. */
const surveyChatSchema = new Schema(
  {
    survey: { type: ObjectId, required: true },
    company: { type: ObjectId, required: true },
    name: { type: String, required: true },
    order: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "surveychats" },
);
// `populate`: the chats of one survey in order.
surveyChatSchema.index({ survey: 1, order: 1 });

export const SurveyChat = defineModel("SvcSurveyChat", surveyChatSchema);

export type SurveyChatDoc = mongoose.InferSchemaType<typeof surveyChatSchema> & { _id: mongoose.Types.ObjectId };
