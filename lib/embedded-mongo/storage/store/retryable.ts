/**
 * The store's retryable-write records: the last write of each session and its reply.
 */
import { BSON, type Document } from "bson";
import { StoreBase } from "./base";
import { deserializeOptions, serialize } from "./common";

export abstract class RetryableStore extends StoreBase {
  // ---- retryable writes ----

  /** The last retryable write recorded for a session: its number and its reply. */
  retryRecord(session: string): { txnNumber: number; reply: Document } | undefined {
    const buf = this.kv.get("sessions", [session]) as Buffer | undefined;
    if (!buf) return undefined;
    const record = BSON.deserialize(buf, deserializeOptions);
    return { txnNumber: Number(record.txnNumber), reply: record.reply as Document };
  }

  /** Inside `write()`: records a retryable write's reply with the write itself. */
  recordRetry(session: string, txnNumber: number, reply: Document): void {
    this.kv.put("sessions", [session], serialize({ txnNumber, reply, at: new Date() }));
  }

  /** Forgets the retryable-write records of sessions idle since before `before` (expired, as on MongoDB). */
  async pruneRetryRecords(before: Date, live: ReadonlySet<string>): Promise<void> {
    const expired = [...this.kv.range("sessions", {})].filter(({ key, value }) => {
      if (live.has(String(key[0]))) return false;
      const at = BSON.deserialize(value as Buffer, deserializeOptions).at;
      return !(at instanceof Date) || at < before;
    });
    if (expired.length === 0) return;
    await this.write(() => {
      for (const { key } of expired) this.kv.remove("sessions", key);
    });
  }
}
