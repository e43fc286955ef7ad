import mongoose, { type ClientSession } from "mongoose";

// Every Mongoose operation inside `inTransaction` joins its session without being handed it.
mongoose.set("transactionAsyncLocalStorage", true);

/**
 * Runs `work` in one multi-document transaction on the process's connection: all of its writes
 * commit together or none does (docs/architecture.md#events). The driver retries the whole of
 * `work` on a transient error (a write conflict, a failover), so `work` must only write through
 * the database. Mongoose model calls join the transaction by themselves; driver calls on a raw
 * collection pass `{ session: currentSession() }`.
 */
export async function inTransaction<T>(work: () => Promise<T>): Promise<T> {
  return mongoose.connection.transaction(async () => work());
}

/** The session of the transaction running around the caller, if any. */
export function currentSession(): ClientSession | undefined {
  return (mongoose as unknown as { transactionAsyncLocalStorage?: { getStore(): { session?: ClientSession } | undefined } }).transactionAsyncLocalStorage?.getStore()?.session;
}
