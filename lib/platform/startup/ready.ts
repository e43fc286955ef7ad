import { assertDatabaseReachable, connect } from "@/lib/kernel/db";
import { oncePerDatabase } from "@/lib/kernel/models/meta";
import { MODELS } from "@/lib/platform/startup/models";
import { bootstrap, type BootstrapResult } from "@/lib/resources/spanning/companies";
import { backfillSurveySearch } from "@/lib/resources/surveys/repository";
import { backfillMembershipActive, backfillNameSort } from "@/lib/resources/users/repository";

/** Who runs the bootstrap: the server may generate the first admin's password; a CLI may not. */
export type ProcessRole = "server" | "cli";

let role: ProcessRole = "server";
let readying: Promise<void> | undefined;
let firstAdminLeft = false;

/**
 * Makes this process a CLI for {@link ready}: when `ADMIN_PASSWORD` is unset it leaves the first
 * admin to the server instead of giving it a password the server's configuration never chose.
 */
export function runAsCli(): void {
  role = "cli";
}

/**
 * Everything the services need before their first query, once per process: the connection, the
 * indexes of every model, the bootstrap of an empty database, and the one-time fill of fields
 * that records of earlier versions lack. Concurrent callers share one attempt; a failed attempt is
 * forgotten so the next request retries. Once ready, it still fails fast with
 * `DatabaseUnavailableError` while the database is out of reach.
 */
export async function ready(): Promise<void> {
  readying ??= prepare(role).then(
    (first) => {
      firstAdminLeft = !first.complete;
      // A server started without `npm start` (next dev) shows the generated password here, once.
      if (first.generatedPassword) announceFirstAdmin(first);
    },
    (error: unknown) => {
      readying = undefined;
      throw error;
    },
  );
  await readying;
  assertDatabaseReachable();
}

/** True when {@link ready} left the first admin to the server (a CLI without ADMIN_PASSWORD). */
export function firstAdminLeftToServer(): boolean {
  return firstAdminLeft;
}

/** What {@link ready} does, for `npm start`, which shows the first admin itself. */
export async function prepare(as: ProcessRole): Promise<BootstrapResult> {
  await connect();
  await ensureIndexes();
  const first = await bootstrap({ generatePassword: as === "server" });
  await backfillSurveySearch();
  // Each scans every user: once per database, not at every start of every process.
  await oncePerDatabase("usersMembershipActive", backfillMembershipActive);
  await oncePerDatabase("usersNameSort", backfillNameSort);
  return first;
}

function announceFirstAdmin(first: BootstrapResult): void {
  // On stderr, so a CLI's output stays clean.
  process.stderr.write(
    `\nCreated the first admin: ${first.adminEmail}\nGenerated password (shown only now): ${first.generatedPassword}\n\n`,
  );
}

/** Creates the indexes the models of every resource declare (a no-op for those that exist). */
export async function ensureIndexes(): Promise<void> {
  for (const model of MODELS) await model.createIndexes();
}
