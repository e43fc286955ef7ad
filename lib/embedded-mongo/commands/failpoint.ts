/**
 * MongoDB's `failCommand` fail point (a test command, as on a real server started with
 * enableTestCommands): makes chosen commands fail with an error code, a write concern error or a
 * closed connection, so clients' error handling can be tested against this server too.
 */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";

export const CLOSE_CONNECTION = Symbol("close connection");

interface FailCommand {
  commands: Set<string>;
  remaining: number;
  skip: number;
  data: Document;
}

export class FailPoints {
  private active: FailCommand | undefined;

  configure(cmd: Document): Document {
    if (cmd.configureFailPoint !== "failCommand") {
      throw new MongoCommandError("BadValue", `unknown fail point: ${String(cmd.configureFailPoint)}`);
    }
    const mode = cmd.mode;
    const data = (cmd.data ?? {}) as Document;
    if (mode === "off") {
      this.active = undefined;
      return { count: 0, ok: 1 };
    }
    const commands = new Set(Array.isArray(data.failCommands) ? data.failCommands.map(String) : []);
    if (mode === "alwaysOn") this.active = { commands, remaining: Infinity, skip: 0, data };
    else if (mode && typeof mode === "object" && "times" in mode)
      this.active = { commands, remaining: Number(mode.times), skip: 0, data };
    else if (mode && typeof mode === "object" && "skip" in mode)
      this.active = { commands, remaining: Infinity, skip: Number(mode.skip), data };
    else throw new MongoCommandError("BadValue", "mode must be 'off', 'alwaysOn', {times: n} or {skip: n}");
    return { count: 0, ok: 1 };
  }

  /** What the fail point does to this command, if it applies to it. */
  trigger(
    name: string,
    cmd: Document,
  ): { close: true } | { reply: Document } | { writeConcernError: Document } | undefined {
    const fp = this.active;
    if (!fp || !fp.commands.has(name)) return undefined;
    if (typeof fp.data.appName === "string" && fp.data.appName !== cmd.$appName) return undefined;
    if (fp.skip > 0) {
      fp.skip -= 1;
      return undefined;
    }
    fp.remaining -= 1;
    if (fp.remaining <= 0) this.active = undefined;
    if (fp.data.closeConnection === true) return { close: true };
    if (fp.data.writeConcernError) return { writeConcernError: fp.data.writeConcernError as Document };
    const code = Number(fp.data.errorCode ?? 1);
    const reply: Document = { ok: 0, errmsg: "Failing command via 'failCommand' failpoint", code, codeName: "" };
    if (Array.isArray(fp.data.errorLabels)) reply.errorLabels = fp.data.errorLabels;
    return { reply };
  }
}
