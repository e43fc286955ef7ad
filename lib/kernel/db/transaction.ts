import type { Document } from "mongodb";
import mongoose, { type ClientSession } from "mongoose";

/** A collection as either copy of the driver (Mongoose's or the project's) types it. */
interface Collection {
  insertOne(doc: Document, options: { session: ClientSession }): Promise<unknown>;
  insertMany(docs: Document[], options: { session: ClientSession; ordered: boolean }): Promise<unknown>;
}

// Every Mongoose operation inside `inTransaction` joins its session without being handed it.
mongoose.set("transactionAsyncLocalStorage", true);

/** Inserts a transaction has put off to its end, per collection, by session. */
const deferred = new WeakMap<ClientSession, Map<Collection, Document[]>>();

/**
 * Runs `work` in one multi-document transaction on the process's connection: all of its writes
 * commit together or none does (docs/architecture.md#events). The driver retries the whole of
 * `work` on a transient error (a write conflict, a failover), so `work` must only write through
 * the database. Mongoose model calls join the transaction by themselves; driver calls on a raw
 * collection pass `{ session: currentSession() }`. Inserts put off with {@link deferInsert} are
 * made, one command per collection, after `work` and before the commit.
 */
export async function inTransaction<T>(work: () => Promise<T>): Promise<T> {
  return mongoose.connection.transaction(async () => {
    const session = currentSession();
    // A retried attempt starts with nothing put off: its first attempt's writes were rolled back.
    if (session) deferred.delete(session);
    const result = await work();
    if (session) await flushDeferred(session);
    return result;
  });
}

/** The session of the transaction running around the caller, if any. */
export function currentSession(): ClientSession | undefined {
  return (
    mongoose as unknown as { transactionAsyncLocalStorage?: { getStore(): { session?: ClientSession } | undefined } }
  ).transactionAsyncLocalStorage?.getStore()?.session;
}

/**
 * Inserts `doc` at the end of the transaction around the caller, with the others put off for the
 * same collection: an insert nothing reads back inside its transaction (an event) costs one
 * command per transaction instead of one each, which is what lets a batch of thousands of changes
 * commit fast (docs/architecture.md#jobs). Only inside {@link inTransaction}.
 */
export function deferInsert(collection: Collection, doc: Document): void {
  const session = currentSession();
  if (!session) throw new Error("deferInsert runs only inside inTransaction()");
  let pending = deferred.get(session);
  if (!pending) deferred.set(session, (pending = new Map()));
  const docs = pending.get(collection);
  if (docs) docs.push(doc);
  else pending.set(collection, [doc]);
}

async function flushDeferred(session: ClientSession): Promise<void> {
  const pending = deferred.get(session);
  deferred.delete(session);
  for (const [collection, docs] of pending ?? []) {
    // One document (a request's event, its audit entry) goes by insertOne: the same `insert`
    // command, without the driver's bulk-write machinery that insertMany builds around it
    // (docs/benchmarks.md#where-the-time-goes).
    if (docs.length === 1) await collection.insertOne(docs[0], { session });
    else await collection.insertMany(docs, { session, ordered: true });
  }
}
