/**
 * What the users CLIs (token, company, seed) share: the configuration the server reads (`.env*`
 * files included), the first admin left to the server (lib/platform/startup/ready.ts), logs on stderr so
 * stdout carries only the answer, the database connection closed at the end, and errors as one
 * line: exit code 2 for a bad command line, 1 for anything else.
 */
import { ConfigError } from "@/lib/base/config";
import { USAGE_EXIT_CODE, UsageError, usageLine } from "@/lib/base/shared/command-line";
import { disconnect } from "@/lib/kernel/db";
import { ServiceError } from "@/lib/kernel/errors";
import { logToStderr } from "@/lib/kernel/log";
import { runAsCli } from "@/lib/platform/startup/ready";
import { loadEnvFiles } from "./env";

export { UsageError } from "@/lib/base/shared/command-line";

export function runCommand(main: () => Promise<void>): void {
  loadEnvFiles();
  runAsCli();
  logToStderr();
  main()
    .then(
      () => 0,
      (error: unknown) => {
        if (error instanceof UsageError) {
          console.error(usageLine(error.message));
          return USAGE_EXIT_CODE;
        }
        if (error instanceof ServiceError || error instanceof ConfigError) console.error(error.message);
        else console.error(error);
        return 1;
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
