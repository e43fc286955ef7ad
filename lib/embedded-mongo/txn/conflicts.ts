/**
 * Write conflicts between multi-document transactions and other writes, as MongoDB detects them:
 * the first writer of a document wins. A transaction that writes a document another open
 * transaction has written, or that someone changed since the transaction's snapshot, fails with
 * `WriteConflict` (112) and the `TransientTransactionError` label, so drivers retry it whole. A
 * write outside any transaction that meets a document an open transaction has written waits
 * until that transaction ends, then runs again.
 */
import { MongoCommandError } from "../errors";
import type { KeyPrimitive } from "../storage/keys";
import { keyText } from "../storage/kv";

/** The transaction that holds a document, as far as conflicts go. */
export interface ConflictOwner {
  /** The write sequence number of the transaction's snapshot: later writes conflict with it. */
  readonly snapshotSeq: number;
  /** Settles when the transaction commits or aborts. */
  readonly ended: Promise<void>;
}

/** Thrown by a write outside a transaction that must wait for `owner` to end, then run again. */
export class WaitForTransaction extends Error {
  constructor(readonly owner: ConflictOwner) {
    super("the document is being written by a transaction");
  }
}

export function writeConflict(): MongoCommandError {
  return new MongoCommandError(
    "WriteConflict",
    "Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.",
    { errorLabels: ["TransientTransactionError"] },
  );
}

export class ConflictTracker {
  private seq = 0;
  /** Every write up to this sequence number is committed (visible to a new snapshot). */
  committedSeq = 0;
  /** The sequence number of the write running now, or 0 outside a write. */
  private current = 0;
  /** The last write of each document lately written: its sequence number. */
  private readonly lastWrite = new Map<string, number>();
  /** Documents written by transactions still open. */
  private readonly locks = new Map<string, ConflictOwner>();
  private readonly open = new Set<ConflictOwner>();
  /** The last write of any document of each collection (by `db.name`): a handful of entries, kept. */
  private readonly collectionWrites = new Map<string, number>();

  beginWrite(): number {
    this.current = ++this.seq;
    return this.current;
  }

  /** The write's callback returned: what runs next is outside it. */
  leaveWrite(): void {
    this.current = 0;
  }

  endWrite(seq: number): void {
    if (seq > this.committedSeq) this.committedSeq = seq;
    if (this.open.size === 0 && this.lastWrite.size > 10_000) this.forget();
  }

  /** A document is about to be written outside any transaction (or by a commit). */
  plainWrite(key: KeyPrimitive[]): void {
    const text = keyText(key);
    const owner = this.locks.get(text);
    if (owner) throw new WaitForTransaction(owner);
    const seq = this.current || ++this.seq;
    this.lastWrite.set(text, seq);
    this.collectionWrites.set(`${key[0]}.${key[1]}`, seq);
  }

  /** Whether a document of the collection was written after write `seq` (a transaction's snapshot). */
  collectionWrittenSince(db: string, name: string, seq: number): boolean {
    return (this.collectionWrites.get(`${db}.${name}`) ?? 0) > seq;
  }

  /** A document is about to be written by an open transaction. */
  transactionWrite(owner: ConflictOwner, key: KeyPrimitive[]): void {
    const text = keyText(key);
    const holder = this.locks.get(text);
    if (holder === owner) return;
    if (holder) throw writeConflict();
    if ((this.lastWrite.get(text) ?? 0) > owner.snapshotSeq) throw writeConflict();
    this.locks.set(text, owner);
  }

  opened(owner: ConflictOwner): void {
    this.open.add(owner);
  }

  /** Releases what `owner` held; at commit, before its writes are applied. */
  release(owner: ConflictOwner): void {
    this.open.delete(owner);
    for (const [key, holder] of this.locks) if (holder === owner) this.locks.delete(key);
    if (this.open.size === 0) this.forget();
  }

  /** Writes older than every open transaction's snapshot cannot conflict any more. */
  private forget(): void {
    const oldest = Math.min(this.committedSeq, ...[...this.open].map((o) => o.snapshotSeq));
    for (const [key, seq] of this.lastWrite) if (seq <= oldest) this.lastWrite.delete(key);
  }
}
