import { connect } from "@/lib/db";
import { AccessRole, Answer, Bot, Company, Credential, Invitation, JobTitle, Meta, OutboxMail, Property, Question, Session, Survey, SurveyChat, SurveyRevision, User } from "@/lib/models";
import { bootstrap } from "./companies";
import { backfillSurveySearch } from "./survey-search";
import { backfillMembershipActive } from "./users";

const MODELS = [Company, AccessRole, JobTitle, Property, Bot, User, Credential, Session, Invitation, OutboxMail, Meta, Survey, SurveyChat, Question, Answer, SurveyRevision];

let readying: Promise<void> | undefined;

/**
 * Everything the services need before their first query, once per process: the connection, the
 * indexes of every model, the bootstrap of an empty database, and the one-time fill of fields
 * that records of earlier versions lack. Concurrent callers share one
 * attempt; a failed attempt is forgotten so the next request retries.
 */
export function ready(): Promise<void> {
  readying ??= (async () => {
    await connect();
    await ensureIndexes();
    await bootstrap();
    await backfillSurveySearch();
    await backfillMembershipActive();
  })().catch((error: unknown) => {
    readying = undefined;
    throw error;
  });
  return readying;
}

/** Creates the indexes the models declare (a no-op for those that exist). */
export async function ensureIndexes(): Promise<void> {
  for (const model of MODELS) await model.createIndexes();
}
