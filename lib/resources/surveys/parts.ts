/**
 * The models of the records behind a survey: its revisions, its chats and their questions. Only
 * lib/resources/surveys/repository.ts reads or writes them. The answers to them, and their tallies, are
 * lib/resources/answers/repository.ts's.
 */
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";

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

export const SurveyRevision = defineModel("SurveyRevision", surveyRevisionSchema);

/** A component of a survey: a conversation that asks its questions in `order`. */
const surveyChatSchema = new Schema(
  {
    survey: { type: ObjectId, required: true },
    company: { type: ObjectId, required: true },
    name: { type: String, required: true },
    order: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
    /** When a content PUT left it out: kept, with its answers, so results and restores still find it. */
    removedAt: { type: Date, default: null },
  },
  { ...schemaOptions, collection: "surveychats" },
);
// `populate`: the chats of one survey in order.
surveyChatSchema.index({ survey: 1, order: 1 });

export const SurveyChat = defineModel("SurveyChat", surveyChatSchema);

export type SurveyChatDoc = mongoose.InferSchemaType<typeof surveyChatSchema> & { _id: mongoose.Types.ObjectId };

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
    /** As for chats: a removed question keeps its answers. */
    removedAt: { type: Date, default: null },
  },
  { ...schemaOptions, collection: "questions" },
);
// The questions of one chat in order.
questionSchema.index({ chat: 1, order: 1 });
// `populate`: every question of a survey in one read, grouped by chat.
questionSchema.index({ survey: 1, chat: 1, order: 1 });

export const Question = defineModel("Question", questionSchema);

export type QuestionDoc = mongoose.InferSchemaType<typeof questionSchema> & { _id: mongoose.Types.ObjectId };
