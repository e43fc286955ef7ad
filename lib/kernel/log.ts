import { loadConfig } from "@/lib/base/config";
import pino, { type Logger } from "pino";

let logger: Logger | undefined;
let destination: 1 | 2 = 1;

/**
 * The process's structured logger (JSON lines, `LOG_LEVEL`). Servers log to stdout; CLIs call
 * {@link logToStderr} first so that their stdout carries only their answer (and their lines are
 * written before they exit).
 */
export function log(): Logger {
  logger ??= pino(
    { level: loadConfig().logLevel, base: undefined },
    pino.destination({ dest: destination, sync: destination === 2 }),
  );
  return logger;
}

export function logToStderr(): void {
  destination = 2;
  logger = undefined;
}
