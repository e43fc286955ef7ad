/**
 * MongoDB's TTL monitor: every `ttlMonitorSleepSecs` (60 by default, changed at run time with
 * `setParameter`) it deletes the documents whose date in a TTL index's field (the earliest, for
 * an array) is older than the index's `expireAfterSeconds`, as a TTL index promises.
 */
import type { Document } from "bson";
import { findDocuments, mingoOptions } from "../query/query";
import { WaitForTransaction } from "../txn/conflicts";
import type { CollectionMeta, Store } from "./store";
import { timeseriesOf } from "./timeseries";

export class TtlMonitor {
  #sleepSecs = 60;
  #enabled = true;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  /** Completed passes, as serverStatus reports them (`metrics.ttl.passes`). */
  passes = 0;
  deletedDocuments = 0;

  constructor(private readonly store: Store) {}

  get sleepSecs(): number {
    return this.#sleepSecs;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  start(): void {
    this.stop();
    if (!this.#enabled) return;
    this.#timer = setInterval(() => {
      this.#running = this.#running.then(() => this.pass()).catch(() => undefined);
    }, this.#sleepSecs * 1000);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Stops the timer and waits for a pass under way. */
  async close(): Promise<void> {
    this.stop();
    await this.#running;
  }

  setSleepSecs(secs: number): void {
    this.#sleepSecs = secs;
    if (this.#timer) this.start();
  }

  setEnabled(on: boolean): void {
    this.#enabled = on;
    if (on) this.start();
    else this.stop();
  }

  /** One pass over every TTL index of every collection. */
  async pass(now = new Date()): Promise<void> {
    for (const db of this.store.databases()) {
      for (const meta of this.store.collections(db)) {
        // A time-series collection's `expireAfterSeconds` applies to its time field.
        const timeseries = timeseriesOf(meta);
        if (timeseries && typeof meta.options.expireAfterSeconds === "number") {
          const cutoff = new Date(now.getTime() - meta.options.expireAfterSeconds * 1000);
          this.deletedDocuments += await this.removeExpired(meta.db, meta.name, {
            [timeseries.timeField]: { $lt: cutoff },
          });
        }
        for (const index of meta.indexes) {
          const fields = Object.keys(index.key);
          if (index.expireAfterSeconds === undefined || fields.length !== 1 || meta.options.viewOn) continue;
          const cutoff = new Date(now.getTime() - index.expireAfterSeconds * 1000);
          // `$lt` a date matches dates only, and an array when one of its dates (so its earliest) is older.
          const expired: Document = { [fields[0]]: { $lt: cutoff } };
          const filter = index.partialFilterExpression ? { $and: [expired, index.partialFilterExpression] } : expired;
          this.deletedDocuments += await this.removeExpired(meta.db, meta.name, filter);
        }
      }
    }
    this.passes += 1;
  }

  /** Deletes through `write()` (so snapshots and change streams see it); a document an open transaction holds waits for it. */
  private async removeExpired(db: string, name: string, filter: Document): Promise<number> {
    for (;;) {
      try {
        return await this.store.write(() => this.remove(db, name, filter));
      } catch (err) {
        if (!(err instanceof WaitForTransaction)) throw err;
        await err.owner.ended;
      }
    }
  }

  private remove(db: string, name: string, filter: Document): number {
    const meta: CollectionMeta | undefined = this.store.collection(db, name);
    if (!meta) return 0;
    const docs = findDocuments(this.store, meta, { filter }, mingoOptions(this.store, db));
    for (const doc of docs) this.store.remove(meta, doc);
    return docs.length;
  }
}

const monitors = new WeakMap<Store, TtlMonitor>();

/** The TTL monitor of an open store (one per store, started by the server that serves it). */
export function ttlMonitorOf(store: Store): TtlMonitor {
  let monitor = monitors.get(store);
  if (!monitor) monitors.set(store, (monitor = new TtlMonitor(store)));
  return monitor;
}
