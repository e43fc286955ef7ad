/**
 * Authentication as a MongoDB server answers it: SCRAM-SHA-256 through `saslStart` and
 * `saslContinue` (or speculatively inside `hello`), a few commands allowed before it, and every
 * failure reported only as `18 AuthenticationFailed`, whatever went wrong.
 */
import { Binary, type Document } from "bson";
import { MongoCommandError } from "../errors";
import { SCRAM_SHA_256, ScramConversation, ScramError } from "../wire/scram";
import type { CommandContext, Handler } from "./context";

/** The commands MongoDB runs for a client that has not authenticated (those it declares `requiresAuth: false`). */
const ALLOWED_BEFORE_AUTH = new Set([
  "hello",
  "isMaster",
  "ismaster",
  "ping",
  "buildInfo",
  "buildinfo",
  "connectionStatus",
  "saslStart",
  "saslContinue",
]);

/** Whether a command is one a connection may run before authenticating (its answer does not depend on it). */
export function allowedBeforeAuth(cmd: Document): boolean {
  const name = Object.keys(cmd)[0];
  return name !== undefined && ALLOWED_BEFORE_AUTH.has(name);
}

/** Refuses a command the connection may not run yet, with MongoDB's error. */
export function checkAuthenticated(name: string, ctx: Pick<CommandContext, "auth">): void {
  if (ctx.auth.required && ctx.auth.user === undefined && !ALLOWED_BEFORE_AUTH.has(name)) {
    throw new MongoCommandError("Unauthorized", `Command ${name} requires authentication`);
  }
}

const authenticationFailed = () => new MongoCommandError("AuthenticationFailed", "Authentication failed.");

/** A SASL payload as text; MongoDB accepts binary data or a base64 string, and answers in kind. */
function readPayload(cmd: Document): { text: string; asString: boolean } {
  const payload = cmd.payload;
  if (payload instanceof Binary)
    return { text: Buffer.from(payload.buffer.subarray(0, payload.position)).toString("utf8"), asString: false };
  if (typeof payload === "string") return { text: Buffer.from(payload, "base64").toString("utf8"), asString: true };
  throw new MongoCommandError(
    "TypeMismatch",
    "BSON field 'payload' is the wrong type, expected type 'binData' or 'string'",
  );
}

function writePayload(text: string, asString: boolean): Binary | string {
  const bytes = Buffer.from(text, "utf8");
  return asString ? bytes.toString("base64") : new Binary(bytes);
}

/** Answers a `saslStart` (given as a command, or inside `hello` with its database in `db`). */
function start(cmd: Document, db: string, ctx: CommandContext): Document {
  const mechanism = cmd.mechanism;
  if (mechanism !== SCRAM_SHA_256) {
    throw new MongoCommandError(
      "MechanismUnavailable",
      `Received authentication for mechanism ${String(mechanism)} which is unknown or not enabled`,
    );
  }
  const { text, asString } = readPayload(cmd);
  ctx.auth.conversation = undefined;
  try {
    const { conversation, reply } = ScramConversation.start(text, (name) =>
      db === "admin" && ctx.user?.name === name ? ctx.user.secret : undefined,
    );
    const options = cmd.options as Document | undefined;
    ctx.auth.conversation = {
      scram: conversation,
      skipEmptyExchange: options?.skipEmptyExchange === true,
      verified: false,
    };
    return { conversationId: 1, done: false, payload: writePayload(reply, asString), ok: 1 };
  } catch (error) {
    if (error instanceof ScramError) throw authenticationFailed();
    throw error;
  }
}

const saslStart: Handler = (cmd, ctx) => start(cmd, ctx.db, ctx);

const saslContinue: Handler = (cmd, ctx) => {
  if (Number(cmd.conversationId) !== 1)
    throw new MongoCommandError("ProtocolError", "sasl: Mismatched conversation id");
  const conversation = ctx.auth.conversation;
  if (!conversation) throw new MongoCommandError("ProtocolError", "No SASL session state found");
  const { text, asString } = readPayload(cmd);
  // Without skipEmptyExchange the client sends one more, empty, message after the server's signature.
  if (conversation.verified) {
    ctx.auth.conversation = undefined;
    if (text !== "") throw authenticationFailed();
    ctx.auth.user = conversation.scram.user;
    return { conversationId: 1, done: true, payload: writePayload("", asString), ok: 1 };
  }
  let reply: string;
  try {
    reply = conversation.scram.finish(text);
  } catch (error) {
    ctx.auth.conversation = undefined;
    if (error instanceof ScramError) throw authenticationFailed();
    throw error;
  }
  if (conversation.skipEmptyExchange) {
    ctx.auth.conversation = undefined;
    ctx.auth.user = conversation.scram.user;
  } else {
    conversation.verified = true;
  }
  return { conversationId: 1, done: conversation.skipEmptyExchange, payload: writePayload(reply, asString), ok: 1 };
};

/**
 * The authentication fields of a `hello` reply: the mechanisms of the user it asks about
 * (`saslSupportedMechs: "admin.USER"`), and the first step of a speculative authentication,
 * left out when that step fails, as MongoDB does (the client then authenticates plainly).
 */
export function helloAuthFields(cmd: Document, ctx: CommandContext): Document {
  const fields: Document = {};
  if (typeof cmd.saslSupportedMechs === "string" && ctx.user && cmd.saslSupportedMechs === `admin.${ctx.user.name}`) {
    fields.saslSupportedMechs = [SCRAM_SHA_256];
  }
  const speculative = cmd.speculativeAuthenticate as Document | undefined;
  if (
    speculative &&
    typeof speculative === "object" &&
    speculative.saslStart !== undefined &&
    typeof speculative.db === "string"
  ) {
    try {
      fields.speculativeAuthenticate = start(speculative, speculative.db, ctx);
    } catch {
      // A failed speculative start is as if none was asked for.
    }
  }
  return fields;
}

/** What `connectionStatus` reports of the connection. */
export function authInfo(ctx: CommandContext): Document {
  const user = ctx.auth.user;
  return user === undefined
    ? { authenticatedUsers: [], authenticatedUserRoles: [] }
    : { authenticatedUsers: [{ user, db: "admin" }], authenticatedUserRoles: [{ role: "root", db: "admin" }] };
}

export const authCommands: Record<string, Handler> = { saslStart, saslContinue };
