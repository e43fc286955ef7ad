/**
 * Logical sessions, multi-document transactions and retryable writes, as a replica-set primary
 * runs them.
 *
 * A transaction (`lsid`, `txnNumber`, `autocommit: false`, `startTransaction: true` on its first
 * command) reads a snapshot of the data taken when it starts (an LMDB read transaction) with its
 * own writes over it; those writes stay in memory (kv.ts `OverlayKv`) until `commitTransaction`
 * applies them all in one LMDB write transaction, so others see all of them or none. Conflicts
 * follow conflicts.ts. A transaction open longer than `transactionLifetimeLimitSeconds` (60) is
 * aborted. Any error inside a transaction aborts it, as on MongoDB.
 *
 * A retryable write (`txnNumber` without `autocommit`) records its reply with the session's
 * number, durably and in the same LMDB transaction as the write; the same write sent again (the
 * driver retries once after a network error) gets the recorded reply and is not applied twice.
 */
import { Long, type Binary, type Document } from "bson";
import { MongoCommandError, endsCommand } from "../errors";
import { decodeDocument } from "../storage/bson-values";
import type { IndexSpec } from "../storage/index-spec";
import { OverlayKv } from "../storage/kv";
import { isCapped, type CollectionMeta, type Store } from "../storage/store";
import { writeConflict, type ConflictOwner } from "./conflicts";

export const DEFAULT_TRANSACTION_LIFETIME_SECONDS = 60;
/** MongoDB's logicalSessionTimeoutMinutes: a session idle that long is gone, with its records. */
const SESSION_TIMEOUT_MS = 30 * 60 * 1000;
const PRUNE_EVERY_MS = 60 * 1000;

/** The commands MongoDB runs inside a transaction; any other is refused there. */
const ALLOWED_IN_TRANSACTION = new Set([
  "find",
  "getMore",
  "killCursors",
  "insert",
  "update",
  "delete",
  "findAndModify",
  "findandmodify",
  "aggregate",
  "distinct",
  "create",
  "createIndexes",
  "commitTransaction",
  "abortTransaction",
]);

/** The write commands a `txnNumber` makes retryable. */
const RETRYABLE_WRITES = new Set(["insert", "update", "delete", "findAndModify", "findandmodify"]);

type Execute = (store: Store) => Promise<Document>;

class Transaction implements ConflictOwner {
  readonly snapshotSeq: number;
  readonly ended: Promise<void>;
  readonly startedAt = Date.now();
  readonly view: Store;
  private readonly overlay: OverlayKv;
  private readonly release: () => void;
  private finish!: () => void;
  state: "inProgress" | "committed" | "aborted" = "inProgress";
  /** Why an abort happened, when the server did it (lifetime, error). */
  reason?: string;

  constructor(
    private readonly store: Store,
    readonly txnNumber: number,
    private readonly lsid: Document,
  ) {
    const snapshot = store.snapshot();
    this.snapshotSeq = snapshot.seq;
    this.release = snapshot.done;
    this.ended = new Promise((resolve) => (this.finish = resolve));
    this.overlay = new OverlayKv(snapshot.kv, (key) => store.conflicts.transactionWrite(this, key));
    store.conflicts.opened(this);
    this.view = store.forTransaction(this.overlay, <T>(fn: () => T) => {
      try {
        return Promise.resolve(fn());
      } catch (err) {
        return Promise.reject(err as Error);
      }
    });
  }

  abort(reason?: string): void {
    if (this.state !== "inProgress") return;
    this.state = "aborted";
    this.reason = reason;
    this.end();
  }

  private end(): void {
    this.store.conflicts.release(this);
    this.release();
    this.finish();
  }

  /** Applies the transaction's writes in one LMDB transaction, re-checking unique indexes. */
  async commit(): Promise<void> {
    const changes = this.overlay.documentChanges();
    const created = [...this.view.catalogEntries().values()].filter(
      (meta) => this.store.collection(meta.db, meta.name)?.uuid !== meta.uuid,
    );
    if (changes.length === 0 && created.length === 0) {
      this.state = "committed";
      this.end();
      return;
    }
    const store = this.store;
    try {
      await store.write(() => {
        // From here on the documents are the commit's to write: nothing runs in between.
        store.conflicts.release(this);
        store.asTransaction({ lsid: this.lsid, txnNumber: Long.fromNumber(this.txnNumber) }, () =>
          this.apply(store, changes, created),
        );
      });
      this.state = "committed";
    } catch (err) {
      this.state = "aborted";
      // A unique key another writer took meanwhile: the transaction runs again and sees it.
      if (err instanceof MongoCommandError && (err.codeName === "DuplicateKey" || err.codeName === "WriteConflict"))
        throw writeConflict();
      throw err;
    } finally {
      this.end();
    }
  }

  /**
   * The collections this transaction wrote, when each has the same indexes as at its snapshot
   * and none is capped: its own index entries then still hold at the commit, since no one else
   * wrote its documents meanwhile (conflicts.ts). Of those, the ones someone else wrote to since
   * the snapshot (`recheck`), whose unique keys another document may have taken meanwhile: none
   * may have a unique index under a collation (whose keys are buckets). Undefined otherwise, and
   * the commit applies each document again.
   */
  private ownWritesHold(
    store: Store,
    changes: ReturnType<OverlayKv["documentChanges"]>,
  ): { metas: CollectionMeta[]; recheck: Set<string> } | undefined {
    const touched = new Map<string, CollectionMeta>();
    const recheck = new Set<string>();
    for (const { key } of changes) {
      const [db, name] = key as [string, string];
      const text = `${db}.${name}`;
      if (touched.has(text)) continue;
      const mine = this.view.collection(db, name);
      const meta = store.collection(db, name);
      if (!mine || !meta || mine.uuid !== meta.uuid || isCapped(meta) || !sameIndexes(mine, meta)) return undefined;
      if (store.conflicts.collectionWrittenSince(db, name, this.snapshotSeq)) {
        if (meta.indexes.some((index) => index.unique && index.collation)) return undefined;
        recheck.add(text);
      }
      touched.set(text, mine);
    }
    // Index entries or catalog changes of a collection without a document written (an index built in the transaction): the long way.
    for (const db of ["index", "meta"] as const) {
      for (const name of this.overlay.collectionsChanged(db)) if (!touched.has(name)) return undefined;
    }
    return { metas: [...touched.values()], recheck };
  }

  private apply(store: Store, changes: ReturnType<OverlayKv["documentChanges"]>, created: CollectionMeta[]): void {
    const own = created.length === 0 ? this.ownWritesHold(store, changes) : undefined;
    if (own) {
      store.applyOwnWrites(changes, this.overlay.changesOf("index"), own.metas, own.recheck);
      return;
    }
    for (const meta of created) {
      if (store.collection(meta.db, meta.name)) throw writeConflict();
      const { meta: made } = store.ensureCollection(meta.db, meta.name, meta.options);
      for (const index of meta.indexes)
        if (index.name !== "_id_") store.createIndex(made, { ...index, multikeyFields: [] });
    }
    for (const { key, value } of changes) {
      const [db, name, rank, id] = key as [string, string, number, string | number];
      const mine = this.view.collection(db, name);
      const meta = store.collection(db, name);
      if (!meta || !mine || (meta.uuid !== mine.uuid && !created.includes(mine))) throw writeConflict();
      const current = store.getByIdPart(meta, [rank, id]);
      if (value === null) {
        if (current) store.remove(meta, current);
      } else {
        const doc = decodeDocument(value as Buffer);
        if (current) store.replace(meta, current, doc);
        else store.insert(meta, doc);
      }
    }
  }
}

/** The same indexes, whatever each has learned of its multikey fields. */
function sameIndexes(a: CollectionMeta, b: CollectionMeta): boolean {
  if (a.indexes.length === b.indexes.length && a.indexes.every((spec, i) => sharedSpec(spec, b.indexes[i])))
    return true;
  const specs = (meta: CollectionMeta) =>
    JSON.stringify(meta.indexes.map((spec) => ({ ...spec, multikeyFields: undefined })));
  return specs(a) === specs(b);
}

/**
 * Whether two index specs hold the very same values but for their multikey fields: a
 * transaction's copy of an index the store has not replaced since (copyMeta copies each spec's
 * fields, not their values), so they are the same without writing both out.
 */
function sharedSpec(a: IndexSpec, b: IndexSpec): boolean {
  const fieldsOf = (spec: IndexSpec) =>
    (Object.keys(spec) as Array<keyof IndexSpec>).filter((field) => field !== "multikeyFields");
  const fields = fieldsOf(a);
  const others = fieldsOf(b);
  // In the same order too: the fallback's text compares the fields in order.
  return fields.length === others.length && fields.every((field, i) => field === others[i] && a[field] === b[field]);
}

interface Session {
  txnNumber: number;
  transaction?: Transaction;
  lastUse: number;
}

function noSuchTransaction(message: string): MongoCommandError {
  return new MongoCommandError("NoSuchTransaction", message, { errorLabels: ["TransientTransactionError"] });
}

function sessionId(cmd: Document): string | undefined {
  const lsid = cmd.lsid as { id?: Binary } | undefined;
  if (!lsid || typeof lsid !== "object" || !lsid.id || typeof (lsid.id as Binary).toString !== "function")
    return undefined;
  return Buffer.from((lsid.id as Binary).buffer).toString("hex");
}

function txnNumberOf(cmd: Document): number {
  const raw = cmd.txnNumber;
  const n = raw instanceof Long ? raw.toNumber() : Number(raw);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new MongoCommandError("BadValue", "txnNumber must be a non-negative integer");
  return n;
}

export class Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly reaper: NodeJS.Timeout;
  private prunedAt = Date.now();

  constructor(
    private readonly store: Store,
    private readonly lifetimeMs = DEFAULT_TRANSACTION_LIFETIME_SECONDS * 1000,
  ) {
    this.reaper = setInterval(() => this.reap(), Math.min(1000, lifetimeMs));
    this.reaper.unref();
  }

  close(): void {
    clearInterval(this.reaper);
    for (const session of this.sessions.values()) session.transaction?.abort("the server is closing");
    this.sessions.clear();
  }

  private reap(): void {
    const now = Date.now();
    if (now - this.prunedAt > PRUNE_EVERY_MS) {
      this.prunedAt = now;
      const live = new Set(this.sessions.keys());
      void this.store.pruneRetryRecords(new Date(now - SESSION_TIMEOUT_MS), live).catch(() => undefined);
    }
    for (const [id, session] of this.sessions) {
      const txn = session.transaction;
      if (txn?.state === "inProgress" && now - txn.startedAt > this.lifetimeMs)
        txn.abort("it exceeded transactionLifetimeLimitSeconds");
      if (now - session.lastUse > SESSION_TIMEOUT_MS && txn?.state !== "inProgress") this.sessions.delete(id);
    }
  }

  private session(id: string): Session {
    let session = this.sessions.get(id);
    if (!session) this.sessions.set(id, (session = { txnNumber: -1, lastUse: Date.now() }));
    session.lastUse = Date.now();
    return session;
  }

  /** Whether the command belongs to a transaction (its fields say so). */
  static inTransaction(name: string, cmd: Document): boolean {
    return cmd.autocommit !== undefined || name === "commitTransaction" || name === "abortTransaction";
  }

  static retryable(name: string, cmd: Document): boolean {
    return cmd.txnNumber !== undefined && RETRYABLE_WRITES.has(name);
  }

  /** `endSessions` and `killSessions`: their transactions abort. */
  end(cmd: Document, field: string): void {
    const list = Array.isArray(cmd[field]) ? (cmd[field] as Document[]) : [];
    for (const lsid of list) {
      const id = sessionId({ lsid });
      if (!id) continue;
      this.sessions.get(id)?.transaction?.abort("its session ended");
      this.sessions.delete(id);
    }
  }

  /** Runs a command of a multi-document transaction. */
  async transactionCommand(name: string, cmd: Document, execute: Execute): Promise<Document> {
    const id = sessionId(cmd);
    if (cmd.autocommit !== false) {
      if (cmd.autocommit === true)
        throw new MongoCommandError("InvalidOptions", "Specifying autocommit=true is not allowed.");
      throw new MongoCommandError(
        "InvalidOptions",
        `${name} must be run within a transaction: give lsid, txnNumber and autocommit: false`,
      );
    }
    if (!id)
      throw new MongoCommandError("InvalidOptions", "Transaction number requires a session ID to also be specified");
    if (cmd.txnNumber === undefined)
      throw new MongoCommandError(
        "InvalidOptions",
        "'autocommit' field requires a transaction number to also be specified",
      );
    const txnNumber = txnNumberOf(cmd);
    const session = this.session(id);
    if (txnNumber < session.txnNumber) {
      throw new MongoCommandError(
        "TransactionTooOld",
        `Cannot start transaction ${txnNumber} on session ${id} because a newer transaction ${session.txnNumber} has already started.`,
      );
    }
    let txn = session.transaction;
    if (cmd.startTransaction === true) {
      if (txnNumber === session.txnNumber) {
        throw new MongoCommandError(
          "ConflictingOperationInProgress",
          `Cannot start a transaction at given transaction number ${txnNumber} a transaction with the same number is in state ${txn?.state ?? "retryable write"}`,
        );
      }
      txn?.abort("a newer transaction started on its session");
      session.txnNumber = txnNumber;
      txn = session.transaction = new Transaction(this.store, txnNumber, cmd.lsid as Document);
    } else if (!txn || txn.txnNumber !== txnNumber) {
      throw noSuchTransaction(
        `Given transaction number ${txnNumber} does not match any in-progress transactions. The active transaction number is ${session.txnNumber}`,
      );
    } else if (cmd.readConcern !== undefined) {
      txn.abort();
      throw new MongoCommandError(
        "InvalidOptions",
        "Only the first command in a transaction may specify a readConcern",
      );
    }

    if (txn.state === "committed") {
      if (name === "commitTransaction") return { ok: 1 };
      throw new MongoCommandError(
        "TransactionCommitted",
        `Transaction with { txnNumber: ${txnNumber} } has been committed.`,
      );
    }
    if (txn.state === "aborted") {
      const why = txn.reason ? `, because ${txn.reason}` : "";
      throw noSuchTransaction(`Transaction with { txnNumber: ${txnNumber} } has been aborted${why}.`);
    }
    if (name === "commitTransaction") {
      await txn.commit();
      return { ok: 1 };
    }
    if (name === "abortTransaction") {
      txn.abort();
      return { ok: 1 };
    }
    try {
      if (!ALLOWED_IN_TRANSACTION.has(name)) {
        throw new MongoCommandError(
          "OperationNotSupportedInTransaction",
          `Cannot run '${name}' in a multi-document transaction.`,
        );
      }
      if (cmd.writeConcern !== undefined) {
        throw new MongoCommandError("InvalidOptions", "Cannot set write concern after starting a transaction.");
      }
      if (name === "createIndexes" && typeof cmd.createIndexes === "string") {
        const db = typeof cmd.$db === "string" ? cmd.$db : "admin";
        // Only a collection the transaction itself created can get indexes in it.
        if (this.store.collection(db, cmd.createIndexes)) {
          throw new MongoCommandError(
            "OperationNotSupportedInTransaction",
            `Cannot create new indexes on existing collection ${db}.${cmd.createIndexes} in a multi-document transaction.`,
          );
        }
      }
      if (name === "aggregate" && Array.isArray(cmd.pipeline)) {
        for (const stage of cmd.pipeline as Document[]) {
          const op = Object.keys(stage ?? {})[0];
          if (op === "$out" || op === "$merge" || op === "$changeStream") {
            throw new MongoCommandError("OperationNotSupportedInTransaction", `${op} cannot be used in a transaction`);
          }
        }
      }
      const reply = await execute(txn.view);
      // A write error inside a transaction aborts it, as on MongoDB.
      if (Array.isArray(reply.writeErrors) && reply.writeErrors.length > 0) txn.abort("a write in it failed");
      return reply;
    } catch (err) {
      txn.abort(endsCommand(err) ? undefined : "a command in it failed");
      throw err;
    }
  }

  /** Runs a retryable write once per session and `txnNumber`; a retry gets the first reply. */
  async retryableWrite(cmd: Document, execute: Execute): Promise<Document> {
    const id = sessionId(cmd);
    if (!id)
      throw new MongoCommandError("InvalidOptions", "Transaction number requires a session ID to also be specified");
    const txnNumber = txnNumberOf(cmd);
    const session = this.session(id);
    const recorded = this.store.retryRecord(id);
    const newest = Math.max(session.txnNumber, recorded?.txnNumber ?? -1);
    if (txnNumber < newest) {
      throw new MongoCommandError(
        "TransactionTooOld",
        `Retryable write with txnNumber ${txnNumber} is prohibited on session ${id} because a newer retryable write with txnNumber ${newest} has already started on this session.`,
      );
    }
    if (recorded && recorded.txnNumber === txnNumber) return recorded.reply;
    if (session.transaction?.state === "inProgress")
      session.transaction.abort("a newer retryable write started on its session");
    session.txnNumber = txnNumber;
    const store = this.store.withWriteHook((fn) => () => {
      const reply = fn() as Document;
      this.store.recordRetry(id, txnNumber, reply);
      return reply as never;
    });
    return execute(store);
  }
}
