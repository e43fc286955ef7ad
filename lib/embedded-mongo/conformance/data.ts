/** `initialData` (set up collections) and `outcome` (compare collection contents) via the internal client. */
import { MongoServerError, type MongoClient, type WriteConcernSettings } from "mongodb";
import type { CollectionData } from "./loader";
import { match, show } from "./matcher";

export class DataLoader {
  /** Falls back to the server's default write concern if it rejects `w: "majority"`. */
  private writeConcern: WriteConcernSettings | undefined = { w: "majority" };

  constructor(private readonly internal: MongoClient) {}

  /** Drops each collection, creates it (with createOptions) when needed, inserts its documents. */
  async load(data: CollectionData[] | undefined): Promise<void> {
    for (const c of data ?? []) {
      const db = this.internal.db(c.databaseName);
      await this.withWriteConcern(async (writeConcern) => {
        try {
          await db.collection(c.collectionName).drop({ writeConcern });
        } catch (e) {
          if (!(e instanceof MongoServerError && (e.code === 26 || /ns not found/i.test(e.message)))) throw e;
        }
      });
      if (c.createOptions || c.documents.length === 0) {
        await this.withWriteConcern((writeConcern) =>
          db.createCollection(c.collectionName, { ...(c.createOptions ?? {}), writeConcern }),
        );
      }
      if (c.documents.length) {
        await this.withWriteConcern((writeConcern) =>
          db.collection(c.collectionName).insertMany(
            c.documents.map((d) => ({ ...d })),
            { writeConcern },
          ),
        );
      }
    }
  }

  private async withWriteConcern<T>(fn: (wc: WriteConcernSettings | undefined) => Promise<T>): Promise<T> {
    try {
      return await fn(this.writeConcern);
    } catch (e) {
      if (this.writeConcern && e instanceof MongoServerError && /write ?concern|majority/i.test(e.message)) {
        this.writeConcern = undefined;
        return fn(undefined);
      }
      throw e;
    }
  }

  /** Compares each collection's documents (sorted by _id) exactly; returns a failure text or null. */
  async checkOutcome(outcome: CollectionData[] | undefined): Promise<string | null> {
    for (const c of outcome ?? []) {
      const actual = await this.internal
        .db(c.databaseName)
        .collection(c.collectionName)
        .find({}, { sort: { _id: 1 }, readPreference: "primary", readConcern: { level: "local" } })
        .toArray();
      // Exact match: no extra fields at any level (key order ignored, numeric types lenient).
      const m = match(c.documents, actual, { root: false });
      if (m) {
        const where = `${c.databaseName}.${c.collectionName}`;
        // Diagnostic for the server's author: does the unsorted query see other documents?
        const unsorted = await this.internal
          .db(c.databaseName)
          .collection(c.collectionName)
          .find({})
          .toArray()
          .catch(() => undefined);
        const hint =
          unsorted && unsorted.length !== actual.length
            ? ` (note: find with sort {_id: 1} returned ${actual.length} document(s), without sort ${unsorted.length})`
            : "";
        return `outcome ${where}${m.path ? " at " + m.path : ""}: ${m.message}; collection holds ${show(actual, 400)}${hint}`;
      }
    }
    return null;
  }
}
