/**
 * What the users CLIs (token, company, seed) share: logs on stderr so stdout carries only the
 * answer, the database connection closed at the end, and errors as one line with exit code 1.
 */
import { ConfigError } from "@/lib/config";
import { disconnect } from "@/lib/db";
import { ServiceError } from "@/lib/services/errors";
import { logToStderr } from "@/lib/services/log";

export class UsageError extends Error {
  override name = "UsageError";
}

export function runCommand(usage: string, main: () => Promise<void>): void {
  logToStderr();
  main()
    .then(
      () => 0,
      (error: unknown) => {
        if (error instanceof UsageError) console.error(`${error.message}\n\n${usage}`);
        else if (error instanceof ServiceError || error instanceof ConfigError) console.error(error.message);
        else if (error instanceof TypeError && (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
          console.error(`${error.message}\n\n${usage}`);
        } else console.error(error);
        return error instanceof UsageError || error instanceof TypeError ? 2 : 1;
      },
    )
    .then(async (code) => {
      await disconnect().catch(() => undefined);
      process.exit(code);
    });
}

/** `30d`, `12h`, `15m`, `90s` or a number of seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!match) throw new UsageError(`Not a duration: ${JSON.stringify(text)} (use e.g. 30d, 12h, 15m, 90s)`);
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2]] ?? 1;
  return Number(match[1]) * unit;
}
