/**
 * The models of the records behind a survey: its revisions, its chats, their questions and the
 * answers to them. Only lib/resources/surveys/repository.ts reads or writes the revisions, chats and
 * questions; lib/resources/answers/repository.ts the answers (lib/resources/surveys/repository.ts reads them too,
 * for the answer counts and `answer=`).
 */
import mongoose, { Schema } from "mongoose";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";

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

export type SurveyRevisionDoc = mongoose.InferSchemaType<typeof surveyRevisionSchema> & { _id: mongoose.Types.ObjectId };

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

/** A user's answer to one question; identified to clients by `uuid` (docs/api.md#records-behind-a-survey). */
const answerSchema = new Schema(
  {
    uuid: { type: ObjectId, required: true },
    company: { type: ObjectId, required: true },
    survey: { type: ObjectId, required: true },
    chat: { type: ObjectId, required: true },
    question: { type: ObjectId, required: true },
    user: { type: ObjectId, default: null },
    /** A `date` answer is stored as a Date, so the database can order and bucket it. */
    value: { type: Schema.Types.Mixed, default: null },
    /** The response (one POST) the answer belongs to, and its place in it: 0 counts the response. */
    response: { type: ObjectId, default: null },
    position: { type: Number, default: 0 },
    /** Set on a response's first answer until the response is in the tallies (lib/resources/answers/tallies.ts). */
    untallied: { type: Boolean, default: undefined },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "answers" },
);
// `GET /v2/surveys?answer=<uuid>`: the answers of those uuids, within the company.
answerSchema.index({ uuid: 1, company: 1 }, { unique: true });
// `populate`: the answer count of each question of a survey.
answerSchema.index({ survey: 1, question: 1 });
// The answers list (newest first, by cursor) and the results' counts within a date window.
answerSchema.index({ survey: 1, createdAt: -1, _id: -1 });
// One question's answers newest first: the list by question and the latest text answers.
answerSchema.index({ survey: 1, question: 1, createdAt: -1, _id: -1 });
// Responses within a window's partial months: their first answers.
answerSchema.index({ survey: 1, position: 1, createdAt: 1 });
// Responses whose process died before they were added to the tallies (normally none): the
// marked answers lead, so finding them reads only them (a partial index would be smaller, but
// the embedded database plans with full indexes only).
answerSchema.index({ untallied: 1, survey: 1 });

export const Answer = defineModel("Answer", answerSchema);

export type AnswerDoc = mongoose.InferSchemaType<typeof answerSchema> & { _id: mongoose.Types.ObjectId };

/**
 * Running counts of a survey's answers by calendar month (UTC) of `createdAt`, kept with each
 * response, so that results read a few documents a month instead of every answer
 * (lib/resources/answers/tallies.ts). `_id` names the tally: survey, month, question, kind and value.
 */
const answerTallySchema = new Schema(
  {
    _id: { type: String, required: true },
    survey: { type: ObjectId, required: true },
    company: { type: ObjectId, required: true },
    /** The first instant of the month the counted answers were given in. */
    month: { type: Date, required: true },
    /** `null` for the count of responses. */
    question: { type: ObjectId, default: null },
    /** `r` responses, `n` answers of the question (with min, max and sum of its values), `v` answers holding `value`. */
    kind: { type: String, required: true },
    value: { type: Schema.Types.Mixed, default: null },
    n: { type: Number, required: true },
    sum: { type: Number, default: undefined },
    min: { type: Schema.Types.Mixed, default: undefined },
    max: { type: Schema.Types.Mixed, default: undefined },
  },
  { ...schemaOptions, collection: "answertallies" },
);
// A survey's tallies, of all months or of a range of months.
answerTallySchema.index({ survey: 1, month: 1 });

export const AnswerTally = defineModel("AnswerTally", answerTallySchema);
