/**
 * What the `/v2` wrapper keeps per caller across server processes: the rate-limit counters of
 * each minute and the stored answers of idempotent creates. The only code that reads or writes
 * their collections. One way to the database: Mongoose models with typed lean results.
 */
import { isDuplicateKeyError } from "@/lib/kernel/errors";
import { defineModel, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";

// ---------------------------------------------------------------------------------------------
// Rate-limit counters: one document per caller and window, holding how many requests the
// server processes have leased from it; removed by the TTL index after the window.

const rateCounterSchema = new Schema(
  {
    _id: { type: String, required: true },
    count: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "rateLimits" },
);
rateCounterSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
export const RateCounter = defineModel("RateCounter", rateCounterSchema);

/**
 * Adds `batch` to the counter of the caller's window, creating it, in one atomic command; the
 * count after this lease (the lease is the `batch` requests just below it).
 */
export async function leaseRequests(
  caller: string,
  windowStart: number,
  batch: number,
  expiresAt: Date,
): Promise<number> {
  const lease = () =>
    RateCounter.findOneAndUpdate(
      { _id: `${caller}|${windowStart}` },
      { $inc: { count: batch }, $setOnInsert: { expiresAt } },
      { upsert: true, returnDocument: "after", projection: { count: 1 } },
    ).lean();
  let counter;
  try {
    counter = await lease();
  } catch (error) {
    // Two processes creating the same counter at once: one insert wins, the other increments it.
    if (!isDuplicateKeyError(error)) throw error;
    counter = await lease();
  }
  return counter!.count;
}

/**
 * Counts one attempt in the counter of `key`'s window unless it already holds `below` or more, in
 * one atomic command: whether it was counted. A full counter makes the upsert try an insert, which
 * the existing document's `_id` refuses (E11000): that is the refusal, so no attempt is ever
 * counted past the limit, however many servers ask at once.
 */
export async function countAttemptBelow(
  key: string,
  windowStart: number,
  below: number,
  expiresAt: Date,
): Promise<boolean> {
  if (below <= 0) return false;
  const count = () =>
    RateCounter.updateOne(
      { _id: `${key}|${windowStart}`, count: { $lt: below } },
      { $inc: { count: 1 }, $setOnInsert: { expiresAt } },
      { upsert: true },
    );
  try {
    await count();
    return true;
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  // Either the counter is full, or two processes created it at once and this one lost: once more.
  try {
    await count();
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

/** The counts of `key`'s windows (0 for one without a counter). */
export async function attemptCounts(key: string, windowStarts: number[]): Promise<number[]> {
  const ids = windowStarts.map((start) => `${key}|${start}`);
  const found = await RateCounter.find({ _id: { $in: ids } }, { count: 1 }).lean();
  return ids.map((id) => found.find((counter) => counter._id === id)?.count ?? 0);
}

/** Takes back one attempt counted in `key`'s window (an attempt that turned out not to count). */
export async function uncountAttempt(key: string, windowStart: number): Promise<void> {
  await RateCounter.updateOne({ _id: `${key}|${windowStart}`, count: { $gt: 0 } }, { $inc: { count: -1 } });
}

/** Forgets `key`'s counts in these windows. */
export async function forgetAttempts(key: string, windowStarts: number[]): Promise<void> {
  await RateCounter.deleteMany({ _id: { $in: windowStarts.map((start) => `${key}|${start}`) } });
}

// ---------------------------------------------------------------------------------------------
// Idempotency records: one per caller and `Idempotency-Key`, inserted before the request runs
// (the unique index makes a second request with the key wait its turn, in any process), holding
// the answer once it is done; removed by the TTL index 24 hours after creation.

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

const idempotencySchema = new Schema(
  {
    caller: { type: String, required: true },
    key: { type: String, required: true },
    /** SHA-256 of the method, path and body: a repeat must send the same. */
    fingerprint: { type: String, required: true },
    createdAt: { type: Date, required: true },
    /** When the request holding the key started; a running record this old is abandoned. */
    startedAt: { type: Date, required: true },
    done: { type: Boolean, required: true },
    status: { type: Number, default: null },
    body: { type: String, default: null },
    location: { type: String, default: null },
    /** The first answer's `ETag`, replayed with it. */
    etag: { type: String, default: null },
  },
  { ...schemaOptions, collection: "idempotencyKeys" },
);
idempotencySchema.index({ caller: 1, key: 1 }, { unique: true });
idempotencySchema.index({ createdAt: 1 }, { expireAfterSeconds: IDEMPOTENCY_TTL_SECONDS });
export const IdempotencyRecord = defineModel("IdempotencyRecord", idempotencySchema);

export type IdempotencyDoc = mongoose.InferSchemaType<typeof idempotencySchema> & { _id: mongoose.Types.ObjectId };

/** Inserts the running record of a key; `false` when the caller already has one for that key. */
export async function insertRunning(caller: string, key: string, fingerprint: string, now: Date): Promise<boolean> {
  try {
    await IdempotencyRecord.create({ caller, key, fingerprint, createdAt: now, startedAt: now, done: false });
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}

export const findIdempotencyRecord = (caller: string, key: string) =>
  IdempotencyRecord.findOne({ caller, key }).lean<IdempotencyDoc>();

/**
 * Takes over a record that nobody will finish: one created before `expiredBefore` (the TTL
 * monitor has not removed it yet), or still running since before `abandonedBefore` (its process
 * died). Whether this call took it.
 */
export async function takeOver(
  record: IdempotencyDoc,
  fingerprint: string,
  now: Date,
  cutoffs: { expiredBefore: Date; abandonedBefore: Date },
): Promise<boolean> {
  const stale = {
    $or: [{ createdAt: { $lt: cutoffs.expiredBefore } }, { done: false, startedAt: { $lt: cutoffs.abandonedBefore } }],
  };
  const result = await IdempotencyRecord.updateOne(
    { _id: record._id, startedAt: record.startedAt, ...stale },
    {
      $set: {
        fingerprint,
        createdAt: now,
        startedAt: now,
        done: false,
        status: null,
        body: null,
        location: null,
        etag: null,
      },
    },
  );
  return result.modifiedCount === 1;
}

/** Stores the answer of the request that holds the key. */
export async function completeRecord(
  caller: string,
  key: string,
  startedAt: Date,
  answer: { status: number; body: string; location: string | null; etag: string | null },
): Promise<void> {
  await IdempotencyRecord.updateOne({ caller, key, startedAt, done: false }, { $set: { done: true, ...answer } });
}

/** Drops the running record of a request that failed, so the key may be used again. */
export async function releaseRecord(caller: string, key: string, startedAt: Date): Promise<void> {
  await IdempotencyRecord.deleteOne({ caller, key, startedAt, done: false });
}
