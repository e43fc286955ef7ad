/**
 * A user's create as one task: the references checked, the user, its password, its event and
 * audit entry in one transaction, then the company's count mark raised. A task of the read
 * workers (lib/platform/startup/read-tasks.ts), so that on a process with a worker the HTTP
 * thread sends none of its commands (docs/architecture.md#read-workers); it runs the same in the
 * calling thread when there is none.
 */
import { inTransaction } from "@/lib/kernel/db/transaction";
import { isDuplicateKeyError, ServiceError } from "@/lib/kernel/errors";
import type { ObjectId } from "@/lib/kernel/ids";
import { checkReferences, listRefs } from "@/lib/kernel/references";
import { type RequestContext, requestContext, withRequestContext } from "@/lib/kernel/request-context";
import { storePasswordHash } from "@/lib/resources/credentials/repository";
import { recordChange } from "@/lib/resources/events/service";
import { existingIds } from "@/lib/resources/reference/repository";
import type { Hierarchy, UserRecord } from "./contract";
import { existingUserIds, insertUser, type LeanUser, toUserRecords, userCountsChanged } from "./repository";

/** What a body names of other records. */
export interface References {
  accessRoles?: string[];
  properties?: string[];
  job?: string | null;
  bot?: string | null;
  companies?: { hierarchy?: Partial<Hierarchy> }[];
}

/** Every id a body names must be a record of the caller's company (`400 unknown_reference`). */
export function checkBodyReferences(companyId: ObjectId, body: References): Promise<void> {
  const hierarchy = body.companies?.[0]?.hierarchy;
  const users = (ids: ObjectId[]) => existingUserIds(companyId, ids);
  return checkReferences([
    { refs: listRefs("accessRoles", body.accessRoles), find: (ids) => existingIds("accessRoles", companyId, ids) },
    { refs: listRefs("properties", body.properties), find: (ids) => existingIds("properties", companyId, ids) },
    { refs: body.job ? [["job", body.job]] : [], find: (ids) => existingIds("jobTitles", companyId, ids) },
    { refs: body.bot ? [["bot", body.bot]] : [], find: (ids) => existingIds("bots", companyId, ids) },
    ...(["boss", "peers", "subordinate"] as const).map((relation) => ({
      refs: listRefs(`companies.0.hierarchy.${relation}`, hierarchy?.[relation]),
      find: users,
    })),
  ]);
}

/** What a user's event leaves out of its changes (bookkeeping the record shows) and adds (a password). */
export const userEventFields = (passwordHash: string | undefined) => ({
  ignore: ["search", "lastRequestDate"],
  also: passwordHash ? ["password"] : [],
});

const duplicateEmail = () =>
  new ServiceError("conflict", "A user with this e-mail already exists.", [
    { path: "email", message: "is already in use" },
  ]);

/** A create, decided by the users service: the document to insert and what goes with it. */
export interface NewUserWrite {
  companyId: ObjectId;
  doc: LeanUser;
  passwordHash?: string;
  /** The body's references, when they are still to be checked (first, before anything is written). */
  references?: References;
  /** The request's context, which the event and the audit entry name (a worker has none of its own). */
  context?: RequestContext;
}

/**
 * Writes a new user: its record as the API shows it once committed. A duplicate e-mail is
 * `409 conflict`; the company's counts are no longer current when it answers (docs/api.md#counters).
 */
export function writeNewUser({ companyId, doc, passwordHash, references, context }: NewUserWrite): Promise<UserRecord> {
  const write = async () => {
    if (references) await checkBodyReferences(companyId, references);
    // The user, its password and its event commit together (docs/architecture.md#events).
    const record = await inTransaction(async () => {
      try {
        await insertUser(doc);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw duplicateEmail();
        throw error;
      }
      if (passwordHash) await storePasswordHash(doc._id, passwordHash);
      const [created] = await toUserRecords([doc], companyId);
      await recordChange({
        company: companyId,
        resource: "user",
        id: doc._id,
        action: "created",
        after: created,
        ...userEventFields(passwordHash),
      });
      return created;
    });
    await userCountsChanged([companyId]);
    return record;
  };
  return context && requestContext() !== context ? withRequestContext(context, write) : write();
}
