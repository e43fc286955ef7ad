/**
 * The `counter` of a list's `count=true`, kept in the database so that every server process and
 * machine shares it (docs/api.md#counters). The only code that reads or writes the `listCounts`
 * collection.
 *
 * Two kinds of document:
 * - a **mark** per company and kind (`users|<company>`), whose `version` every write of that kind
 *   raises after its commit;
 * - a **count** per company, kind and filter (`users|<company>|<filter>`): the number, the mark's
 *   version read before it was counted, when it was counted and how long counting took.
 *
 * A count is current when its version is the mark's: no write of the company has committed since
 * its counting began. A current count is answered as it is, for as long as no write comes and at
 * most {@link refreshAfter} (writes made straight into the database, past the servers, show then).
 * After a write, a count that was cheap (under {@link CHEAP_MS}, or of at most {@link SMALL} records)
 * is counted again at once, so it is exact; a dear one (a broad search of a large company) is answered as it was while one process of
 * the cluster, holding a lease in the count's document, counts it again in the background, at most
 * once in {@link refreshAfter} however many writes come.
 */
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import { findDocs } from "@/lib/kernel/models/read";
import { BSON, type Document, type Filter } from "mongodb";
import mongoose, { Schema } from "mongoose";
import { createHash } from "node:crypto";

const listCountSchema = new Schema(
  {
    _id: { type: String, required: true },
    company: { type: ObjectId, required: true },
    /** The mark's version (on a mark, the version itself). */
    version: { type: Number, required: true, default: 0 },
    count: { type: Number },
    /** When counting began. */
    countedAt: { type: Date },
    /** How long counting took, in milliseconds. */
    tookMs: { type: Number },
    /** Until when one process recounts it in the background. */
    leaseUntil: { type: Date, default: null },
    /** When an unused count is removed (the TTL index); a mark never is. */
    expiresAt: { type: Date },
  },
  { ...schemaOptions, collection: "listCounts" },
);
listCountSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
export const ListCount = defineModel("ListCount", listCountSchema);

type Stored = mongoose.InferSchemaType<typeof listCountSchema> & { _id: string };

type CountKind = "users" | "surveys";

/** A count that took less than this, or found at most {@link SMALL} records, is counted again, exactly, as soon as a write has come. */
const CHEAP_MS = 100;
const SMALL = 1_000;
/** A current count is answered for at most this long, then counted again (writes past the servers). */
const FRESH_MS = 5_000;
/** A dear count is answered stale for at most this long after it was counted; past it the caller waits. */
const STALE_LIMIT_MS = 10 * 60_000;
/** An unused count's document is removed a day after its last counting. */
const KEEP_MS = 24 * 3600_000;

/** When a count counted at `countedAt` in `tookMs` is next counted again: at least {@link FRESH_MS}, ten times its cost for a dear one, so a recount takes at most a tenth of the database's time. */
const refreshAfter = (countedAt: Date, tookMs: number): number => countedAt.getTime() + Math.max(FRESH_MS, 10 * tookMs);

// The driver's collection, never in a transaction's session: a count and a mark are bookkeeping
// beside the writes, and a mark raised inside a write's transaction would make concurrent writes
// of one company conflict on it.
const counts = () => ListCount.collection as unknown as import("mongodb").Collection<Stored>;

const markId = (kind: CountKind, companyId: Id) => `${kind}|${companyId.toHexString()}`;

/** The filter as a short, exact key (Extended JSON keeps its ObjectIds, dates and regular expressions apart). */
const filterKey = (filter: Filter<Document>) =>
  createHash("sha256")
    .update(BSON.EJSON.stringify(filter, { relaxed: false }))
    .digest("base64url")
    .slice(0, 32);

/** Counts under way in this process, so concurrent requests for one count share it. */
const counting = new Map<string, Promise<number>>();

/**
 * The two documents a count reads: the company's mark of the kind and the filter's count. Made
 * once on the HTTP thread, it crosses to a read worker in place of the filter.
 */
export interface CountKey {
  mark: string;
  id: string;
}

export function countKey(kind: CountKind, companyId: Id, filter: Filter<Document>): CountKey {
  const mark = markId(kind, companyId);
  return { mark, id: `${mark}|${filterKey(filter)}` };
}

/**
 * How many records a filter (already scoped to the company) matches, as `count()` counts them,
 * through the shared count of `key` ({@link countKey}): see the module's comment for when it is
 * counted again. `stored` is what {@link storedCounts} read of `key`, when a read worker read it.
 */
export async function sharedCount(
  key: CountKey,
  company: Id,
  count: () => Promise<number>,
  stored?: StoredCount[],
): Promise<number> {
  const { mark, id } = key;
  const found = stored ?? (await storedCounts(key));
  const version = found.find((doc) => doc._id === mark)?.version ?? 0;
  const cached = found.find((doc) => doc._id === id);
  const now = Date.now();
  if (cached?.count != null && cached.countedAt && cached.tookMs != null) {
    const current = cached.version === version;
    if (current && now < refreshAfter(cached.countedAt, cached.tookMs)) return cached.count;
    const dear = cached.tookMs >= CHEAP_MS && cached.count > SMALL;
    if (dear && now - cached.countedAt.getTime() < STALE_LIMIT_MS) {
      // Writes that keep coming must not keep the database counting: a dear count is counted again
      // at most once in ten times its cost, as for writes past the servers (docs/api.md#counters).
      const due = now >= refreshAfter(cached.countedAt, cached.tookMs);
      if (due && !counting.has(id) && (!cached.leaseUntil || cached.leaseUntil.getTime() < now))
        void recountInBackground(id, company, version, cached.tookMs, count);
      return cached.count;
    }
  }
  return countNow(id, company, version, count);
}

/** What {@link sharedCount} reads first: the company's mark and the filter's count, as stored. */
export type StoredCount = Stored;

/**
 * The stored mark and count of a {@link CountKey}, one query by `_id`, for {@link sharedCount}: a
 * read worker reads them beside the page (lib/platform/startup/read-tasks.ts), so the HTTP thread
 * sends no command for a current count.
 */
export function storedCounts({ mark, id }: CountKey): Promise<StoredCount[]> {
  // One `find` command rather than a driver cursor, whose bookkeeping cost a read worker more than
  // the read (lib/kernel/models/read.ts); outside any transaction, as every count's read and write.
  const ids: Document = { _id: { $in: [mark, id] } };
  return findDocs<StoredCount>(ListCount, ids, { outsideTransaction: true });
}

function countNow(id: string, companyId: Id, version: number, count: () => Promise<number>): Promise<number> {
  const running = counting.get(id);
  if (running) return running;
  const started = new Date();
  const promise = count().then(async (value) => {
    await store(id, companyId, version, value, started);
    return value;
  });
  counting.set(id, promise);
  return promise.finally(() => counting.delete(id));
}

async function recountInBackground(
  id: string,
  companyId: Id,
  version: number,
  tookMs: number,
  count: () => Promise<number>,
): Promise<void> {
  try {
    // One process of the cluster takes the lease; the others keep answering the stale count.
    const now = new Date();
    const leaseUntil = new Date(now.getTime() + Math.max(30_000, 3 * tookMs));
    const taken = await counts().updateOne(
      { _id: id, $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }] },
      { $set: { leaseUntil } },
    );
    if (taken.modifiedCount === 0) return;
    await countNow(id, companyId, version, count);
  } catch {
    // A failed recount leaves the stale count; its lease runs out and the next request tries again.
  }
}

async function store(id: string, company: Id, version: number, count: number, countedAt: Date): Promise<void> {
  const tookMs = Date.now() - countedAt.getTime();
  // A count that began before another stored its own is older: it does not replace it.
  await counts()
    .updateOne(
      { _id: id, $or: [{ countedAt: { $exists: false } }, { countedAt: { $lte: countedAt } }] },
      {
        $set: {
          company,
          version,
          count,
          countedAt,
          tookMs,
          leaseUntil: null,
          expiresAt: new Date(countedAt.getTime() + KEEP_MS),
        },
      },
      { upsert: true },
    )
    .catch((error: unknown) => {
      // The upsert of an older count finds the newer one's `_id` taken: nothing to do.
      if ((error as { code?: number }).code !== 11000) throw error;
    });
}

/**
 * After a write of `kind` has committed: raises the mark of each company, so that every count of
 * theirs begun before it is no longer current, in every process.
 */
export async function countsChanged(kind: CountKind, companyIds: readonly Id[]): Promise<void> {
  const unique = [...new Map(companyIds.map((id) => [id.toHexString(), id])).values()];
  await Promise.all(unique.map((company) => raise(markId(kind, company), company)));
}

/** The raise of each mark under way in this process, and the one queued to start after it. */
const raising = new Map<string, Promise<void>>();
const queued = new Map<string, Promise<void>>();

/**
 * Raises a mark once for every writer that asks while a raise is under way: each raise is a
 * durable write, and concurrent creates of one company would otherwise pay one each (a group
 * commit). A writer joins the queued raise only before it starts, so it starts after that
 * writer's commit.
 */
function raise(id: string, company: Id): Promise<void> {
  const waiting = queued.get(id);
  if (waiting) return waiting;
  const start = (): Promise<void> => {
    queued.delete(id);
    const running = raiseOnce(id, company);
    raising.set(id, running);
    const done = () => {
      if (raising.get(id) === running) raising.delete(id);
    };
    running.then(done, done);
    return running;
  };
  const running = raising.get(id);
  if (!running) return start();
  const next = running.then(start, start);
  queued.set(id, next);
  return next;
}

async function raiseOnce(id: string, company: Id): Promise<void> {
  await counts()
    .updateOne({ _id: id }, { $inc: { version: 1 }, $setOnInsert: { company } }, { upsert: true })
    .catch(retryDuplicate(() => counts().updateOne({ _id: id }, { $inc: { version: 1 } })));
}

/** Two processes creating one mark at once: one insert wins, the other raises it. */
const retryDuplicate = (again: () => Promise<unknown>) => (error: unknown) => {
  if ((error as { code?: number }).code !== 11000) throw error;
  return again();
};
