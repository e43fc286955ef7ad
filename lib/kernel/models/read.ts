import { currentSession } from "@/lib/kernel/db/transaction";
import { BSON, Long, type Document, type Filter, type Sort } from "mongodb";
import type { Collection, Connection } from "mongoose";

/**
 * Reads as one `find` (or `aggregate`) command whose first batch holds the whole result, instead
 * of a driver cursor. Inside the Next.js server a cursor's own bookkeeping (the cursor object, its
 * implicit session, its close and cleanup) cost more than the database's work for a page
 * (docs/benchmarks.md#where-the-time-goes).
 * A result too large for one reply (16 MiB, or more documents than the batch asked for) leaves
 * its cursor open on the server; then that cursor is closed and the read is made again through a
 * driver cursor, which pages on.
 *
 * The reply comes back as BSON (`raw`) and its cursor is decoded here, once: with command monitoring
 * on (docs/deployment.md#metrics) the driver decodes every reply for its event and then again for
 * the caller: under the users page those two decodes took 31% of the read worker's busy time
 * (docs/benchmarks.md#each-page-decoded-once-2026-11-30-18281845-utc).
 *
 * Filters go to the database as given: no Mongoose casting, so callers pass ObjectIds and Dates.
 * The command runs on the primary, as every read of this service does. Inside `inTransaction` it
 * reads the transaction's snapshot with its own writes (docs/architecture.md#events).
 */
export interface ReadOptions {
  projection?: Document;
  sort?: Sort;
  skip?: number;
  /** At most this many documents (0 or absent: all). */
  limit?: number;
  /** Read outside the transaction around the caller, if any (bookkeeping read beside writes). */
  outsideTransaction?: boolean;
}

/** Documents of one reply when there is no limit; past it, a cursor. */
const UNLIMITED_BATCH = 10_000;

/** Any model: the connection and collection are all a read needs. */
interface AnyModel {
  db: Connection;
  collection: Collection;
}

export async function findDocs<T = Document>(
  model: AnyModel,
  filter: Filter<Document>,
  { outsideTransaction, ...options }: ReadOptions = {},
): Promise<T[]> {
  const limit = options.limit && options.limit > 0 ? options.limit : undefined;
  const session = outsideTransaction ? {} : sessionOption();
  const reply = await database(model).command(
    {
      find: model.collection.collectionName,
      filter,
      ...(options.projection ? { projection: options.projection } : {}),
      ...(options.sort ? { sort: options.sort } : {}),
      ...(options.skip ? { skip: options.skip } : {}),
      ...(limit ? { limit } : {}),
      batchSize: limit ?? UNLIMITED_BATCH,
    },
    { ...session, raw: true },
  );
  return firstBatchOr<T>(
    model,
    reply,
    () => model.collection.find(filter, { ...options, limit, ...session }).toArray() as Promise<T[]>,
    session,
  );
}

export async function findOneDoc<T = Document>(
  model: AnyModel,
  filter: Filter<Document>,
  projection?: Document,
): Promise<T | null> {
  const [doc] = await findDocs<T>(model, filter, { projection, limit: 1 });
  return doc ?? null;
}

export async function aggregateDocs<T extends Document = Document>(
  model: AnyModel,
  pipeline: Document[],
): Promise<T[]> {
  const session = sessionOption();
  const reply = await database(model).command(
    {
      aggregate: model.collection.collectionName,
      pipeline,
      cursor: { batchSize: UNLIMITED_BATCH },
    },
    { ...session, raw: true },
  );
  return firstBatchOr<T>(model, reply, () => model.collection.aggregate<T>(pipeline, session).toArray(), session);
}

/** The session of the transaction around the caller, so that its reads see its own writes. */
const sessionOption = () => {
  const session = currentSession();
  return session ? { session } : {};
};

function database(model: AnyModel) {
  const db = model.db.db;
  if (!db) throw new Error("The database connection is not open.");
  return db;
}

async function firstBatchOr<T>(
  model: AnyModel,
  reply: Document,
  again: () => Promise<T[]>,
  session: ReturnType<typeof sessionOption>,
): Promise<T[]> {
  const db = database(model);
  // `raw`: the cursor is still BSON; decoded with the options the driver would have used.
  const cursor = BSON.deserialize(reply.cursor as Uint8Array, { ...db.bsonOptions, raw: false });
  const { id, firstBatch } = cursor as { id: Long | number; firstBatch: T[] };
  if (typeof id === "number" ? id === 0 : id.isZero()) return firstBatch;
  // A cursor id fits a double exactly whenever the driver turned it into a number.
  const cursorId = typeof id === "number" ? Long.fromNumber(id) : id;
  await db
    .command({ killCursors: model.collection.collectionName, cursors: [cursorId] }, session)
    .catch(() => undefined);
  return again();
}
