/**
 * Open cursors of find, aggregate and list commands. Results are computed when the cursor opens
 * (a snapshot of that moment) and handed out in batches by getMore. Idle cursors are closed after
 * ten minutes, as MongoDB does.
 */
import { Long, type Document } from "bson";
import { MongoCommandError } from "./errors";

const IDLE_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_BATCH = 101;

interface OpenCursor {
  ns: string;
  docs: Document[];
  position: number;
  touched: number;
}

export class CursorRegistry {
  private readonly cursors = new Map<string, OpenCursor>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  close(): void {
    clearInterval(this.sweeper);
    this.cursors.clear();
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

  getMore(id: Long | number, collection: string, db: string, batchSize?: number): Document {
    const key = String(id);
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
    for (const id of ids) (this.cursors.delete(String(id)) ? killed : notFound).push(id);
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_TIMEOUT_MS;
    for (const [id, cursor] of this.cursors) if (cursor.touched < cutoff) this.cursors.delete(id);
  }
}
