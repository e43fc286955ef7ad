import type { Document } from "bson";
import { MongoCommandError, errorReply } from "../errors";
import { adminCommands } from "./admin";
import type { CommandContext, Handler } from "./context";
import { ddlCommands } from "./ddl";
import { readCommands } from "./read";
import { writeCommands } from "./write";

const handlers: Record<string, Handler> = { ...adminCommands, ...readCommands, ...writeCommands, ...ddlCommands };

/** Runs one command document and returns MongoDB's reply; never throws. */
export async function runCommand(cmd: Document, ctx: Omit<CommandContext, "db">): Promise<Document> {
  const name = Object.keys(cmd)[0];
  const db = typeof cmd.$db === "string" ? cmd.$db : "admin";
  try {
    const handler = name === undefined ? undefined : Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    if (!handler) throw new MongoCommandError("CommandNotFound", `no such command: '${name ?? ""}'`);
    return await handler(cmd, { ...ctx, db });
  } catch (err) {
    return errorReply(err);
  }
}
