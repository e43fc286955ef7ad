import mongoose, { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "./define";

/** One question of a survey chat. */
const questionSchema = new Schema(
  {
    chat: { type: ObjectId, required: true },
    survey: { type: ObjectId, required: true },
    company: { type: ObjectId, required: true },
    text: { type: String, required: true },
    type: { type: String, required: true },
    options: { type: [String], default: [] },
    order: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "questions" },
);
// The questions of one chat in order.
questionSchema.index({ chat: 1, order: 1 });
// `populate`: every question of a survey in one read, grouped by chat.
questionSchema.index({ survey: 1, chat: 1, order: 1 });

export const Question = defineModel("SvcQuestion", questionSchema);

export type QuestionDoc = mongoose.InferSchemaType<typeof questionSchema> & { _id: mongoose.Types.ObjectId };
