/**
 * Events: the only code that reads or writes their collection and the per-company sequence that
 * orders them. An event is inserted inside the transaction of the change it records, unnumbered;
 * the readers of the feed number what has been committed since they last looked, in short
 * transactions of their own that write the company's sequence document, before they read. A number
 * is therefore given only to an event already committed, and the numbers follow the order in which
 * events became visible, so a reader that asks for what follows the last number it saw never skips
 * an event committed late, and concurrent changes never contend on the sequence
 * (docs/architecture.md#events).
 */
import { currentSession, deferInsert, inTransaction } from "@/lib/kernel/db/transaction";
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";

/** Events are kept this long, then the database removes them (at least the 30 days promised). */
const EVENT_RETENTION_DAYS = 90;

/** `{ type, id }`: of the record changed, or of who changed it. */
const reference = new Schema(
  { type: { type: String, required: true }, id: { type: String, required: true } },
  { _id: false },
);

const eventSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    /** The event's place in its company's sequence, 1, 2, 3... once numbered; `null` until then. */
    seq: { type: Number, default: null },
    /** Committed and not numbered yet (then removed). */
    pending: { type: Boolean },
    type: { type: String, required: true },
    resource: { type: reference, required: true },
    changes: { type: [String], required: true },
    actor: { type: reference, default: null },
    requestId: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "events" },
);
// The feed. Not unique: unnumbered events share `null`, and the sequence's transaction gives each number once.
eventSchema.index({ company: 1, seq: 1 });
// The events still to number, per company.
eventSchema.index({ pending: 1, company: 1, _id: 1 });
eventSchema.index({ company: 1, type: 1, seq: 1 });
eventSchema.index({ createdAt: 1 }, { expireAfterSeconds: EVENT_RETENTION_DAYS * 24 * 3600 });
export const Event = defineModel("Event", eventSchema);

export type EventDoc = mongoose.InferSchemaType<typeof eventSchema> & { _id: mongoose.Types.ObjectId };

const sequenceSchema = new Schema(
  { _id: { type: ObjectId, required: true }, seq: { type: Number, required: true } },
  { ...schemaOptions, collection: "eventSequences" },
);
export const EventSequence = defineModel("EventSequence", sequenceSchema);

/** An event of the feed: numbered. */
export type NumberedEvent = EventDoc & { seq: number };

export type NewEvent = Omit<EventDoc, "_id" | "seq" | "pending">;

/** Events numbered in one transaction of the sequence. */
const NUMBER_BATCH = 200;

/**
 * Inserts an event, unnumbered. Only inside `inTransaction`: outside one, the event and its change
 * could part in a crash.
 */
export async function appendEvent(event: NewEvent): Promise<EventDoc> {
  const session = currentSession();
  if (!session) throw new Error("appendEvent runs only inside inTransaction()");
  const doc = newEventDoc(event);
  // Nothing reads an event back inside its own transaction: inserted at its end, with the others (lib/kernel/db/transaction.ts).
  deferInsert(Event.collection, doc);
  return doc;
}

/** An event document as stored, unnumbered: built in this one place for the service and the benchmark. */
export const newEventDoc = (event: NewEvent): EventDoc => ({
  _id: new mongoose.Types.ObjectId(),
  seq: null,
  pending: true,
  ...event,
});

/**
 * Numbers the company's committed events that have no number yet, after the last number given.
 * Readers call it before they read; two at once conflict on the sequence document and one retries,
 * so each event gets one number and a number is never given to an event after a greater one was.
 */
async function numberPending(company: Id): Promise<void> {
  // Most reads find nothing to number: one indexed read, then no transaction at all.
  if (!(await Event.exists({ pending: true, company }))) return;
  for (;;) {
    const numbered = await inTransaction(async () => {
      const session = currentSession();
      const pending = await Event.find({ pending: true, company }, { _id: 1 }, { session })
        .sort({ _id: 1 })
        .limit(NUMBER_BATCH)
        .lean<{ _id: Id }[]>();
      if (pending.length === 0) return 0;
      const counter = await EventSequence.findOneAndUpdate(
        { _id: company },
        { $inc: { seq: pending.length } },
        { upsert: true, returnDocument: "after", session },
      ).lean<{ seq: number }>();
      const first = counter!.seq - pending.length + 1;
      await Event.bulkWrite(
        pending.map((event, index) => ({
          updateOne: {
            filter: { _id: event._id, pending: true },
            update: { $set: { seq: first + index }, $unset: { pending: "" } },
          },
        })),
        { session },
      );
      return pending.length;
    });
    if (numbered < NUMBER_BATCH) return;
  }
}

/** The number of the company's last numbered event (0 before its first): where a new follower starts. */
export async function lastSeq(company: Id): Promise<number> {
  await numberPending(company);
  const counter = await EventSequence.findById(company, { seq: 1 }).lean<{ seq: number }>();
  return counter?.seq ?? 0;
}

/**
 * The company's events numbered after `afterSeq`, oldest first, of the given types (all when
 * empty), once the committed ones are numbered.
 */
export async function findEventsAfter(
  company: Id,
  afterSeq: number,
  types: readonly string[],
  limit: number,
): Promise<NumberedEvent[]> {
  await numberPending(company);
  return Event.find({ company, seq: { $gt: afterSeq }, ...(types.length > 0 ? { type: { $in: types } } : {}) })
    .sort({ seq: 1 })
    .limit(limit)
    .lean<NumberedEvent[]>();
}

/** The number of the company's event `id`, or `null` when it has none of that id (or it expired). */
export async function eventSeq(company: Id, id: Id): Promise<number | null> {
  const found = await Event.findOne({ _id: id, company }, { seq: 1 }).lean<{ seq: number }>();
  return found?.seq ?? null;
}
