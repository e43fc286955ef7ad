import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import { runNow, runYielding, type Work } from "../query/work";
import type { CollectionMeta, Store } from "../storage/store";
import type { Sessions } from "../txn/transactions";
import type { CursorRegistry } from "../wire/cursors";
import type { MemberView, ReplicaSetInfo } from "../wire/replset";
import type { ScramConversation, ScramSecret } from "../wire/scram";
import type { FailPoints } from "./failpoint";

interface ServerInfo {
  startedAt: number;
  port: number;
  connections: () => number;
  totalConnections: () => number;
  /** The replica set this server presents (see replset.ts). */
  replicaSet: ReplicaSetInfo;
  /** Aborted when the server closes: long waits (awaitable hello, tailable getMore) end then. */
  closing: AbortSignal;
}

/** The one user of the server, kept in the `admin` database as MongoDB keeps its users. */
export interface ServerUser {
  name: string;
  secret: ScramSecret;
}

/** What a connection has proved about itself. */
export interface ConnectionAuth {
  /** False on a connection that needs no authentication (the owner-only Unix socket, a TCP one from the owner's socket). */
  required: boolean;
  /** The authenticated user's name. */
  user?: string;
  /** An authentication conversation under way (`saslStart` answered, `saslContinue` to come). */
  conversation?: { scram: ScramConversation; skipEmptyExchange: boolean; verified: boolean };
}

export interface CommandContext {
  store: Store;
  cursors: CursorRegistry;
  server: ServerInfo;
  connectionId: number;
  auth: ConnectionAuth;
  /** Undefined: nobody can authenticate (then only connections that need not can run commands). */
  user?: ServerUser;
  /** Logical sessions and their transactions (see transactions.ts). */
  sessions: Sessions;
  /** Present only when test commands are enabled. */
  failPoints?: FailPoints;
  /** The command's `$db`. */
  db: string;
  /** The member this connection reached, and the members' addresses as it reaches them. */
  member: MemberView;
}

export type Handler = (cmd: Document, ctx: CommandContext) => Document | Promise<Document>;

/** The collection name a command names in its first field, validated. */
export function collectionName(cmd: Document, field: string): string {
  const name = cmd[field];
  if (typeof name !== "string" || name.length === 0) {
    throw new MongoCommandError("InvalidNamespace", `collection name has invalid type ${typeof name}`);
  }
  return name;
}

export function existing(ctx: CommandContext, name: string): CollectionMeta | undefined {
  return ctx.store.collection(ctx.db, name);
}

export function optionalDocument(cmd: Document, field: string): Document | undefined {
  const value = cmd[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new MongoCommandError(
      "TypeMismatch",
      `BSON field '${field}' is the wrong type '${Array.isArray(value) ? "array" : typeof value}', expected type 'object'`,
    );
  }
  return value as Document;
}

export function optionalNumber(cmd: Document, field: string): number | undefined {
  const value = cmd[field];
  if (value === undefined || value === null) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n))
    throw new MongoCommandError("TypeMismatch", `BSON field '${field}' is the wrong type, expected a number`);
  return n;
}

/** Writes go to collections only: a view is read-only. */
export function assertWritable(ctx: CommandContext, name: string): void {
  if (ctx.store.collection(ctx.db, name)?.options.viewOn) {
    throw new MongoCommandError("CommandNotSupportedOnView", `Namespace ${ctx.db}.${name} is a view, not a collection`);
  }
}

/**
 * Runs a read on a snapshot of its own in slices, so that other connections' commands are
 * answered while it works (query/work.ts); in a transaction it runs at once on the transaction's
 * view, which holds its own snapshot and writes.
 */
export async function readInSlices<T>(ctx: CommandContext, work: (store: Store) => Work<T>): Promise<T> {
  const snapshot = ctx.store.readSnapshot();
  if (!snapshot) return runNow(work(ctx.store));
  try {
    return await runYielding(work(snapshot.store));
  } finally {
    snapshot.done();
  }
}
