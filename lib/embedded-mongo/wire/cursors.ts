/**
 * Open cursors of find, aggregate and list commands. Results are computed when the cursor opens
 * (a snapshot of that moment) and handed out in batches by getMore. Idle cursors are closed after
 * ten minutes, as MongoDB does.
 */
import { Long, type Document } from "bson";
import { MongoCommandError } from "../errors";

const IDLE_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_BATCH = 101;

interface OpenCursor {
  ns: string;
  docs: Document[];
  position: number;
  touched: number;
}

/** A cursor whose results arrive over time (a change stream): each getMore asks it for more. */
interface TailableCursor {
  ns: string;
  next: (
    batchSize: number | undefined,
    maxTimeMS: number | undefined,
  ) => Promise<{ events: Document[]; postBatchResumeToken: Document }>;
  done: () => boolean;
  touched: number;
  /** A getMore is running: another one on the same cursor is refused, as MongoDB does. */
  busy: boolean;
}

export class CursorRegistry {
  private readonly cursors = new Map<string, OpenCursor>();
  private readonly tailable = new Map<string, TailableCursor>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  close(): void {
    clearInterval(this.sweeper);
    this.cursors.clear();
    this.tailable.clear();
  }

  /** Registers a tailable cursor; returns its id. */
  openTailable(ns: string, next: TailableCursor["next"], done: () => boolean): Long {
    const id = Long.fromNumber(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER) + 1);
    this.tailable.set(id.toString(), { ns, next, done, touched: Date.now(), busy: false });
    return id;
  }

  private async getMoreTailable(
    key: string,
    cursor: TailableCursor,
    batchSize?: number,
    maxTimeMS?: number,
  ): Promise<Document> {
    if (cursor.busy) throw new MongoCommandError("CursorInUse", `Cursor id ${key} is already in use`);
    cursor.busy = true;
    try {
      const { events, postBatchResumeToken } = await cursor.next(
        batchSize && batchSize > 0 ? batchSize : undefined,
        maxTimeMS,
      );
      cursor.touched = Date.now();
      const done = cursor.done() || !this.tailable.has(key);
      if (done) this.tailable.delete(key);
      return {
        cursor: { nextBatch: events, postBatchResumeToken, id: done ? Long.ZERO : Long.fromString(key), ns: cursor.ns },
        ok: 1,
      };
    } finally {
      cursor.busy = false;
    }
  }

  /** The reply of a command that opens a cursor, keeping the remainder open when there is one. */
  open(ns: string, docs: Document[], batchSize: number | undefined, singleBatch = false): Document {
    const size = batchSize ?? DEFAULT_BATCH;
    const firstBatch = docs.slice(0, size);
    let id = Long.ZERO;
    if (!singleBatch && docs.length > firstBatch.length) {
      id = Long.fromNumber(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER) + 1);
      this.cursors.set(id.toString(), { ns, docs, position: firstBatch.length, touched: Date.now() });
    }
    return { cursor: { firstBatch, id, ns }, ok: 1 };
  }

  getMore(
    id: Long | number,
    collection: string,
    db: string,
    batchSize?: number,
    maxTimeMS?: number,
  ): Document | Promise<Document> {
    const key = String(id);
    const tailable = this.tailable.get(key);
    if (tailable) {
      if (tailable.ns !== `${db}.${collection}` && !tailable.ns.startsWith(`${db}.$cmd`)) {
        throw new MongoCommandError("CursorNotFound", `cursor id ${key} not found in namespace ${db}.${collection}`);
      }
      return this.getMoreTailable(key, tailable, batchSize, maxTimeMS);
    }
    const cursor = this.cursors.get(key);
    if (!cursor) throw new MongoCommandError("CursorNotFound", `cursor id ${key} not found`);
    if (cursor.ns !== `${db}.${collection}` && !cursor.ns.startsWith(`${db}.$cmd`)) {
      throw new MongoCommandError("CursorNotFound", `cursor id ${key} not found in namespace ${db}.${collection}`);
    }
    const end = batchSize && batchSize > 0 ? cursor.position + batchSize : cursor.docs.length;
    const nextBatch = cursor.docs.slice(cursor.position, end);
    cursor.position += nextBatch.length;
    cursor.touched = Date.now();
    const exhausted = cursor.position >= cursor.docs.length;
    if (exhausted) this.cursors.delete(key);
    return { cursor: { nextBatch, id: exhausted ? Long.ZERO : Long.fromString(key), ns: cursor.ns }, ok: 1 };
  }

  kill(ids: Array<Long | number>): Document {
    const killed: Array<Long | number> = [];
    const notFound: Array<Long | number> = [];
    for (const id of ids)
      (this.cursors.delete(String(id)) || this.tailable.delete(String(id)) ? killed : notFound).push(id);
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS;
    for (const [id, cursor] of this.cursors) if (cursor.touched < cutoff) this.cursors.delete(id);
    for (const [id, cursor] of this.tailable) if (cursor.touched < cutoff && !cursor.busy) this.tailable.delete(id);
  }
}
