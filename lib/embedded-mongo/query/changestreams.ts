/**
 * Change streams: the `$changeStream` aggregation stage on a collection, a database or the whole
 * deployment (`aggregate: 1` on `admin` with `allChangesForCluster`), read from the oplog
 * (oplog.ts). Each event's `_id` is its resume token; every batch carries a
 * `postBatchResumeToken`; `resumeAfter`, `startAfter` and `startAtOperationTime` start from a
 * point of the oplog, which outlives restarts. A `getMore` waits for new events up to its
 * `maxTimeMS` (one second unless given) and wakes at the commit that brings them, without polling.
 */
import { Long, Timestamp, type Document } from "bson";
import type { CommandContext } from "../commands/context";
import { MongoCommandError } from "../errors";
import { compareTimestamps } from "../storage/clock";
import {
  LAST_INDEX,
  oplogKey,
  parseResumeToken,
  resumeToken,
  type OplogEntry,
  type OplogKey,
  type OplogPosition,
} from "../storage/oplog";
import { ns, type Store } from "../storage/store";
import { makeAggregator } from "./collated-query";
import { mingoOptions } from "./query";

const OPTIONS = new Set([
  "fullDocument",
  "fullDocumentBeforeChange",
  "resumeAfter",
  "startAfter",
  "startAtOperationTime",
  "allChangesForCluster",
  "showExpandedEvents",
]);
const INTERNAL_DATABASES = new Set(["admin", "config", "local"]);
const DEFAULT_AWAIT_MS = 1000;
const DEFAULT_BATCH = 101;

interface Scope {
  db?: string;
  coll?: string;
}

function unsupported(feature: string): MongoCommandError {
  return new MongoCommandError(
    "CommandNotSupported",
    `${feature} is not supported by the embedded database; set MONGODB_URI to use a MongoDB server for it`,
  );
}

/** One open change stream: where it stands in the oplog and what it does to each event. */
class ChangeStream {
  private after: OplogKey;
  private invalidated = false;

  constructor(
    private readonly store: Store,
    private readonly scope: Scope,
    private readonly pipeline: Document[],
    private readonly fullDocument: "default" | "updateLookup",
    start: OplogKey,
  ) {
    this.after = start;
  }

  get done(): boolean {
    return this.invalidated;
  }

  private inScope(entry: OplogEntry): boolean {
    if (!this.scope.db) return !INTERNAL_DATABASES.has(entry.db);
    if (entry.db !== this.scope.db) return false;
    return !this.scope.coll || entry.coll === this.scope.coll || entry.op === "dropDatabase";
  }

  private event(position: OplogPosition, entry: OplogEntry): Document {
    const txn = entry.lsid ? { lsid: entry.lsid, txnNumber: entry.txnNumber } : {};
    const head = {
      _id: resumeToken(position),
      operationType: entry.op,
      clusterTime: position.time,
      ...txn,
      wallTime: entry.wall,
    };
    const namespace = { db: entry.db, coll: entry.coll };
    switch (entry.op) {
      case "insert":
      case "replace":
        return { ...head, fullDocument: entry.doc, ns: namespace, documentKey: entry.key };
      case "update": {
        const event: Document = { ...head, ns: namespace, documentKey: entry.key, updateDescription: entry.update };
        if (this.fullDocument === "updateLookup") {
          const meta = this.store.collection(entry.db, entry.coll!);
          return {
            ...head,
            fullDocument: (meta && this.store.get(meta, entry.key!._id)) ?? null,
            ns: namespace,
            documentKey: entry.key,
            updateDescription: entry.update,
          };
        }
        return event;
      }
      case "delete":
        return { ...head, ns: namespace, documentKey: entry.key };
      case "drop":
        return { ...head, ns: namespace };
      case "rename":
        return { ...head, ns: namespace, to: entry.to };
      case "dropDatabase":
        return { ...head, ns: { db: entry.db } };
    }
  }

  /** Whether this event ends the stream: its collection dropped or renamed, or its database dropped. */
  private invalidates(entry: OplogEntry): boolean {
    if (this.scope.coll) return entry.op === "drop" || entry.op === "rename" || entry.op === "dropDatabase";
    if (this.scope.db) return entry.op === "dropDatabase";
    return false;
  }

  private transform(event: Document): Document[] {
    if (this.pipeline.length === 0) return [event];
    let out: Document[];
    try {
      out = makeAggregator(this.pipeline, mingoOptions(this.store, this.scope.db ?? "admin")).run([
        event,
      ]) as Document[];
    } catch (err) {
      throw new MongoCommandError("BadValue", err instanceof Error ? err.message : String(err));
    }
    for (const doc of out) {
      if (JSON.stringify(doc._id) !== JSON.stringify(event._id)) {
        throw new MongoCommandError(
          "ChangeStreamFatalError",
          "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed.",
        );
      }
    }
    return out;
  }

  /** The events available now, up to `limit`, and the token to resume after this batch. */
  read(limit: number): { events: Document[]; postBatchResumeToken: Document } {
    const events: Document[] = [];
    // Every write up to this time is readable now: the batch covers the oplog at least that far.
    const highWater: OplogPosition = { time: this.store.committedTime, index: LAST_INDEX };
    let truncated = false;
    for (const { position, entry } of this.store.oplogAfter(this.after)) {
      if (events.length >= limit) {
        truncated = true;
        break;
      }
      this.after = oplogKey(position);
      if (!this.inScope(entry)) continue;
      const event = this.event(position, entry);
      events.push(...this.transform(event));
      if (this.invalidates(entry)) {
        const invalidate = {
          _id: resumeToken(position, true),
          operationType: "invalidate",
          clusterTime: position.time,
          wallTime: entry.wall,
        };
        events.push(invalidate);
        this.invalidated = true;
        return { events, postBatchResumeToken: invalidate._id as Document };
      }
    }
    const last = { time: new Timestamp({ t: this.after[0], i: this.after[1] }), index: this.after[2] };
    const behind = compareTimestamps(last.time, highWater.time) < 0;
    if (!truncated && behind) this.after = oplogKey(highWater);
    return { events, postBatchResumeToken: resumeToken(!truncated && behind ? highWater : last) };
  }

  /** A getMore: the events available, else waits for some until `ms` have passed. */
  async next(
    limit: number,
    ms: number,
    signal: AbortSignal,
  ): Promise<{ events: Document[]; postBatchResumeToken: Document }> {
    const deadline = Date.now() + ms;
    for (;;) {
      const batch = this.read(limit);
      const left = deadline - Date.now();
      if (batch.events.length > 0 || this.invalidated || left <= 0 || signal.aborted) return batch;
      await this.store.oplogChanged(left, signal);
    }
  }
}

function scopeOf(cmd: Document, ctx: CommandContext, spec: Document): Scope {
  const cluster = spec.allChangesForCluster === true;
  if (cmd.aggregate === 1) {
    if (ctx.db === "admin") {
      if (!cluster)
        throw new MongoCommandError(
          "InvalidNamespace",
          "$changeStream may not be opened on the internal admin database",
        );
      return {};
    }
    if (cluster)
      throw new MongoCommandError(
        "InvalidOptions",
        "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name",
      );
    return { db: ctx.db };
  }
  const coll = cmd.aggregate;
  if (typeof coll !== "string" || coll.length === 0)
    throw new MongoCommandError("InvalidNamespace", "collection name has invalid type");
  if (cluster)
    throw new MongoCommandError(
      "InvalidOptions",
      "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name",
    );
  if (INTERNAL_DATABASES.has(ctx.db))
    throw new MongoCommandError(
      "InvalidNamespace",
      `$changeStream may not be opened on the internal ${ctx.db} database`,
    );
  if (ctx.store.collection(ctx.db, coll)?.options.viewOn)
    throw new MongoCommandError(
      "CommandNotSupportedOnView",
      `Namespace ${ns(ctx.db, coll)} is a view, not a collection`,
    );
  return { db: ctx.db, coll };
}

/** Where the stream starts: after a token, at an operation time, or after everything committed. */
function startOf(spec: Document, store: Store): OplogKey {
  const given = ["resumeAfter", "startAfter", "startAtOperationTime"].filter((k) => spec[k] !== undefined);
  if (given.length > 1)
    throw new MongoCommandError("Location40674", "Only one type of resume option is allowed, but multiple were found.");
  const oldest = store.oplogEdge();
  const lost = (time: Timestamp) => oldest && compareTimestamps(time, oldest.time) < 0;
  const historyLost = () =>
    new MongoCommandError(
      "ChangeStreamHistoryLost",
      "Resume of change stream was not possible, as the resume point may no longer be in the oplog.",
    );
  if (spec.startAtOperationTime !== undefined) {
    const time = spec.startAtOperationTime;
    if (!(time instanceof Timestamp))
      throw new MongoCommandError(
        "TypeMismatch",
        "BSON field '$changeStream.startAtOperationTime' is the wrong type, expected type 'timestamp'",
      );
    if (lost(time)) throw historyLost();
    // Inclusive: the stream starts just before the first entry of that very time.
    return [time.high >>> 0, time.low >>> 0, -1];
  }
  const field =
    spec.resumeAfter !== undefined ? "resumeAfter" : spec.startAfter !== undefined ? "startAfter" : undefined;
  if (field) {
    const token = parseResumeToken(spec[field]);
    if (!token)
      throw new MongoCommandError("InvalidResumeToken", `Invalid resume token: ${JSON.stringify(spec[field])}`);
    if (token.invalidate && field === "resumeAfter") {
      throw new MongoCommandError(
        "InvalidResumeToken",
        "Cannot resume a change stream after its invalidate event with resumeAfter: use startAfter to open a new stream after it",
      );
    }
    if (lost(token.position.time)) throw historyLost();
    return oplogKey(token.position);
  }
  return oplogKey({ time: store.committedTime, index: LAST_INDEX });
}

/** `aggregate` whose pipeline starts with `$changeStream`: opens the stream's tailable cursor. */
export function openChangeStream(cmd: Document, ctx: CommandContext): Document {
  const [first, ...rest] = cmd.pipeline as Document[];
  const spec = first.$changeStream;
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) {
    throw new MongoCommandError("TypeMismatch", "the $changeStream stage must take an object");
  }
  for (const key of Object.keys(spec)) {
    if (!OPTIONS.has(key))
      throw new MongoCommandError("Location40415", `BSON field '$changeStream.${key}' is an unknown field.`);
  }
  for (const stage of rest) {
    const op = Object.keys(stage ?? {})[0];
    if (
      !["$match", "$project", "$addFields", "$set", "$unset", "$replaceRoot", "$replaceWith", "$redact"].includes(op)
    ) {
      throw new MongoCommandError("IllegalOperation", `${op} is not permitted in a $changeStream pipeline`);
    }
  }
  const fullDocument = spec.fullDocument ?? "default";
  if (fullDocument === "whenAvailable" || fullDocument === "required")
    throw unsupported(`fullDocument: "${fullDocument}" (post-images)`);
  if (fullDocument !== "default" && fullDocument !== "updateLookup")
    throw new MongoCommandError("BadValue", `'${String(fullDocument)}' is not a valid value for fullDocument`);
  if (spec.fullDocumentBeforeChange !== undefined && spec.fullDocumentBeforeChange !== "off")
    throw unsupported("fullDocumentBeforeChange (pre-images)");
  if (spec.showExpandedEvents === true) throw unsupported("showExpandedEvents");
  const scope = scopeOf(cmd, ctx, spec);
  const stream = new ChangeStream(ctx.store, scope, rest, fullDocument, startOf(spec, ctx.store));
  const cursorSpec = (cmd.cursor ?? {}) as Document;
  const batchSize = cursorSpec.batchSize === undefined ? DEFAULT_BATCH : Number(cursorSpec.batchSize);
  const { events, postBatchResumeToken } = stream.read(batchSize);
  const namespace = scope.coll ? ns(scope.db!, scope.coll) : ns(scope.db ?? "admin", "$cmd.aggregate");
  const id = stream.done
    ? Long.ZERO
    : ctx.cursors.openTailable(
        namespace,
        (limit, ms) => stream.next(limit ?? DEFAULT_BATCH, ms ?? DEFAULT_AWAIT_MS, ctx.server.closing),
        () => stream.done,
      );
  return { cursor: { firstBatch: events, postBatchResumeToken, id, ns: namespace }, ok: 1 };
}

/** Whether an aggregate's pipeline is a change stream's (refused when `$changeStream` is not first). */
export function isChangeStream(pipeline: unknown): boolean {
  if (!Array.isArray(pipeline)) return false;
  const positions = pipeline
    .map((stage, i) => (typeof stage === "object" && stage !== null && "$changeStream" in stage ? i : -1))
    .filter((i) => i >= 0);
  if (positions.some((i) => i > 0))
    throw new MongoCommandError("Location40602", "$changeStream is only valid as the first stage in a pipeline");
  return positions.length > 0;
}
