/**
 * The command line of every script (`npm start`, `npm run db`, `token`, `bench:api`...): `--help`
 * prints the usage on stdout and exits 0; an unknown option or a bad value is one line on stderr
 * and exit code 2, never a stack trace. Depends on nothing but Node, so any entry script may use it.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Exit code of a command line the script cannot run (as most Unix tools use). */
export const USAGE_EXIT_CODE = 2;

/** A bad command line found after parsing (a missing or malformed value): one line, exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The one line a usage error prints: the problem and where to read the usage. */
export function usageLine(message: string): string {
  return `${message.replace(/\s*\n\s*/g, " ")} (see --help)`;
}

/** Prints the usage error and exits with {@link USAGE_EXIT_CODE}. */
export function exitWithUsageError(message: string): never {
  process.stderr.write(`${usageLine(message)}\n`);
  process.exit(USAGE_EXIT_CODE);
}

/** `--help` or `-h` before any `--`. */
function asksForHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

/**
 * `parseArgs` in strict mode on `process.argv` (or `config.args`): prints `usage` and exits 0 on
 * `--help`; exits 2 with one line on an unknown option, a missing value or an unexpected argument.
 */
export function parseCommandLine<T extends ParseArgsConfig>(usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  const args = config.args ?? process.argv.slice(2);
  if (asksForHelp(args)) {
    process.stdout.write(`${usage.trimEnd()}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ ...config, args, strict: true }) as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    if ((error as { code?: unknown }).code?.toString().startsWith("ERR_PARSE_ARGS"))
      exitWithUsageError((error as Error).message);
    throw error;
  }
}
