/**
 * Events: the only code that reads or writes their collection and the per-company sequence that
 * orders them. An event is written inside the transaction of the change it records, and takes the
 * next number of its company's sequence there: the sequence document is written by every such
 * transaction, so two of them conflict and the later one retries after the earlier commits. The
 * numbers therefore follow commit order, and a reader that asks for what follows the last number it
 * saw never skips an event committed late (docs/architecture.md#events).
 */
import mongoose, { Schema } from "mongoose";
import { currentSession } from "@/lib/db/transaction";
import { defineModel, ObjectId, schemaOptions } from "@/lib/models/define";
import type { ObjectId as Id } from "@/lib/server/ids";

/** Events are kept this long, then the database removes them (at least the 30 days promised). */
export const EVENT_RETENTION_DAYS = 90;

/** `{ type, id }`: of the record changed, or of who changed it. */
const reference = new Schema({ type: { type: String, required: true }, id: { type: String, required: true } }, { _id: false });

const eventSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    /** The event's place in its company's sequence: 1, 2, 3... in commit order. */
    seq: { type: Number, required: true },
    type: { type: String, required: true },
    resource: { type: reference, required: true },
    changes: { type: [String], required: true },
    actor: { type: reference, default: null },
    requestId: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "events" },
);
eventSchema.index({ company: 1, seq: 1 }, { unique: true });
eventSchema.index({ company: 1, type: 1, seq: 1 });
eventSchema.index({ createdAt: 1 }, { expireAfterSeconds: EVENT_RETENTION_DAYS * 24 * 3600 });
export const Event = defineModel("SvcEvent", eventSchema);

export type EventDoc = mongoose.InferSchemaType<typeof eventSchema> & { _id: mongoose.Types.ObjectId };

const sequenceSchema = new Schema({ _id: { type: ObjectId, required: true }, seq: { type: Number, required: true } }, { ...schemaOptions, collection: "eventSequences" });
export const EventSequence = defineModel("SvcEventSequence", sequenceSchema);

export type NewEvent = Omit<EventDoc, "_id" | "seq">;

/**
 * Appends an event to its company's sequence. Only inside `inTransaction`: outside one, the event
 * and its change could part in a crash, and the number would not follow commit order.
 */
export async function appendEvent(event: NewEvent): Promise<EventDoc> {
  if (!currentSession()) throw new Error("appendEvent runs only inside inTransaction()");
  const counter = await EventSequence.findOneAndUpdate({ _id: event.company }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: "after" }).lean<{ seq: number }>();
  const doc: EventDoc = { _id: new mongoose.Types.ObjectId(), seq: counter!.seq, ...event };
  await Event.create([doc]);
  return doc;
}

/** The company's events numbered after `afterSeq`, oldest first, of the given types (all when empty). */
export const findEventsAfter = (company: Id, afterSeq: number, types: readonly string[], limit: number) =>
  Event.find({ company, seq: { $gt: afterSeq }, ...(types.length > 0 ? { type: { $in: types } } : {}) })
    .sort({ seq: 1 })
    .limit(limit)
    .lean<EventDoc[]>();

/** The number of the company's event `id`, or `null` when it has none of that id (or it expired). */
export async function eventSeq(company: Id, id: Id): Promise<number | null> {
  const found = await Event.findOne({ _id: id, company }, { seq: 1 }).lean<{ seq: number }>();
  return found?.seq ?? null;
}
