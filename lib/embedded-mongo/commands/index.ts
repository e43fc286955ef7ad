import type { Document } from "bson";
import { MongoCommandError, errorReply } from "../errors";
import { clusterTimeField } from "../storage/clock";
import type { Store } from "../storage/store";
import { WaitForTransaction } from "../txn/conflicts";
import { Sessions } from "../txn/transactions";
import { secondaryRefusal } from "../wire/replset";
import { adminCommands } from "./admin";
import { authCommands, checkAuthenticated } from "./auth";
import type { CommandContext, Handler } from "./context";
import { ddlCommands } from "./ddl";
import { CLOSE_CONNECTION } from "./failpoint";
import { readCommands } from "./read";
import { validateCommands } from "./validate";
import { writeCommands } from "./write";

export { CLOSE_CONNECTION };

/** Answered by the sessions (transactions.ts) when they belong to a transaction, else refused there. */
const transactionCommands: Record<string, Handler> = {
  commitTransaction: () => ({ ok: 1 }),
  abortTransaction: () => ({ ok: 1 }),
};

const handlers: Record<string, Handler> = {
  ...adminCommands,
  ...authCommands,
  ...readCommands,
  ...writeCommands,
  ...ddlCommands,
  ...validateCommands,
  ...transactionCommands,
};

/**
 * Runs one command document and returns MongoDB's reply (or CLOSE_CONNECTION when a fail point
 * says the connection drops); never throws.
 */
export async function runCommand(
  cmd: Document,
  ctx: Omit<CommandContext, "db">,
): Promise<Document | typeof CLOSE_CONNECTION> {
  const name = Object.keys(cmd)[0];
  const db = typeof cmd.$db === "string" ? cmd.$db : "admin";
  try {
    const handler = name === undefined ? undefined : Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    const failPoints = name === "configureFailPoint" ? ctx.failPoints : undefined;
    // As MongoDB checks: an unknown command first, then whether the connection may run it.
    if (name === undefined || (!handler && !failPoints))
      throw new MongoCommandError("CommandNotFound", `no such command: '${name ?? ""}'`);
    checkAuthenticated(name, ctx);
    const notHere = ctx.member.role === "secondary" ? secondaryRefusal(name, cmd) : undefined;
    if (notHere) throw notHere;
    if (failPoints) return failPoints.configure(cmd);
    if (!handler) throw new MongoCommandError("CommandNotFound", `no such command: '${name}'`);
    const failure = ctx.failPoints?.trigger(name, cmd);
    if (failure && "close" in failure) return CLOSE_CONNECTION;
    if (failure && "reply" in failure) return failure.reply;
    // Assigned, not spread then extended: the slow literal of Node 20 (../README.md#object-literals).
    const run = async (store: Store) => handler(cmd, Object.assign({}, ctx, { store, db }));
    let reply: Document;
    if (Sessions.inTransaction(name, cmd)) reply = await ctx.sessions.transactionCommand(name, cmd, run);
    else if (Sessions.retryable(name, cmd))
      reply = await waitingForTransactions(() => ctx.sessions.retryableWrite(cmd, run));
    else {
      refuseOutsideTransactions(name, cmd);
      reply = await waitingForTransactions(() => run(ctx.store));
    }
    if (name === "endSessions" || name === "killSessions") ctx.sessions.end(cmd, name);
    // As a replica set whose one voting member is the primary: a write concern with `j`, `fsync` or `w: "majority"`
    // is answered once the write is synced to the disk; the default (w: 1) once it is committed.
    const concern = cmd.writeConcern as Document | undefined;
    if (Boolean(concern?.j) || Boolean(concern?.fsync) || concern?.w === "majority") await ctx.store.flushed();
    return withClusterTime(failure ? { ...reply, writeConcernError: failure.writeConcernError } : reply, ctx);
  } catch (err) {
    return withClusterTime(errorReply(err), ctx);
  }
}

/** What MongoDB refuses, or this server does not do, outside a transaction and a retryable write. */
function refuseOutsideTransactions(name: string, cmd: Document): void {
  if (cmd.txnNumber !== undefined) {
    throw new MongoCommandError(
      "Location50768",
      `txnNumber may only be provided for multi-document transactions and retryable write commands. autocommit:false was not provided, and ${name} is not a retryable write command.`,
    );
  }
  const readConcern = cmd.readConcern as Document | undefined;
  if (readConcern && typeof readConcern === "object" && readConcern.level === "snapshot") {
    throw new MongoCommandError(
      "CommandNotSupported",
      "readConcern level 'snapshot' outside a transaction (snapshot reads at a cluster time) is not supported by the embedded database; set MONGODB_URI to use a MongoDB server for it",
    );
  }
}

/** A write that met a document an open transaction holds runs again once that transaction ends. */
async function waitingForTransactions(run: () => Promise<Document>): Promise<Document> {
  for (;;) {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof WaitForTransaction)) throw err;
      await err.owner.ended;
    }
  }
}

/** Every reply of a replica-set member carries the cluster time, which drivers gossip back. */
function withClusterTime(reply: Document, ctx: Omit<CommandContext, "db">): Document {
  const time = ctx.store.clock.now();
  // Assigned (../README.md#object-literals): a reply's own fields are the server's, never a `__proto__`.
  return Object.assign({}, reply, { $clusterTime: clusterTimeField(time), operationTime: time });
}
