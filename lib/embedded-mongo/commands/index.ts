import type { Document } from "bson";
import { MongoCommandError, errorReply } from "../errors";
import { adminCommands } from "./admin";
import { authCommands, checkAuthenticated } from "./auth";
import type { CommandContext, Handler } from "./context";
import { ddlCommands } from "./ddl";
import { CLOSE_CONNECTION } from "./failpoint";
import { readCommands } from "./read";
import { writeCommands } from "./write";

export { CLOSE_CONNECTION };

const handlers: Record<string, Handler> = { ...adminCommands, ...authCommands, ...readCommands, ...writeCommands, ...ddlCommands };

/**
 * Runs one command document and returns MongoDB's reply (or CLOSE_CONNECTION when a fail point
 * says the connection drops); never throws.
 */
export async function runCommand(cmd: Document, ctx: Omit<CommandContext, "db">): Promise<Document | typeof CLOSE_CONNECTION> {
  const name = Object.keys(cmd)[0];
  const db = typeof cmd.$db === "string" ? cmd.$db : "admin";
  try {
    const handler = name === undefined ? undefined : Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    const failPoints = name === "configureFailPoint" ? ctx.failPoints : undefined;
    // As MongoDB checks: an unknown command first, then whether the connection may run it.
    if (name === undefined || (!handler && !failPoints)) throw new MongoCommandError("CommandNotFound", `no such command: '${name ?? ""}'`);
    checkAuthenticated(name, ctx);
    if (failPoints) return failPoints.configure(cmd);
    if (!handler) throw new MongoCommandError("CommandNotFound", `no such command: '${name}'`);
    if (cmd.autocommit === false || name === "commitTransaction" || name === "abortTransaction") {
      // As a standalone mongod answers: multi-document transactions need a replica set.
      throw new MongoCommandError("IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos");
    }
    const failure = ctx.failPoints?.trigger(name, cmd);
    if (failure && "close" in failure) return CLOSE_CONNECTION;
    if (failure && "reply" in failure) return failure.reply;
    const reply = await handler(cmd, { ...ctx, db });
    return failure ? { ...reply, writeConcernError: failure.writeConcernError } : reply;
  } catch (err) {
    return errorReply(err);
  }
}
