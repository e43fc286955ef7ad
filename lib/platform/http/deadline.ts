import { loadConfig } from "@/lib/base/config";
import { DatabaseUnavailableError } from "@/lib/kernel/db";
import { log } from "@/lib/kernel/log";

/**
 * The last guard against a request that never ends: each database operation is bounded
 * (DATABASE_TIMEOUT_MS), so a handler still running after twice that is stuck somewhere no bound
 * reaches. It answers 503 and logs the request, while the work itself may still finish
 * (docs/security.md#availability).
 */
export function withinDeadline<T>(work: Promise<T>, requestId: string): Promise<T> {
  const ms = 2 * loadConfig().databaseTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      log().error({ requestId, ms }, "request outlived its deadline");
      reject(new DatabaseUnavailableError(`The request did not finish within ${ms} ms.`));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
