/**
 * The audit log (docs/api.md#audit-log): the entry of every change, written by `recordChange`
 * (lib/resources/events/service.ts) in the change's transaction, the entries of sign-ins and sign-outs, and
 * the list `GET /v2/audit-log` reads. Who acted, the request id, the client address and the user
 * agent come from the request's context, so services pass only the records before and after.
 */
import { maskUrl } from "@/lib/base/shared/masked-url";
import { type ListOrder, listScope, pageFields, pageOf, pageRead } from "@/lib/kernel/cursor";
import { type ObjectId, oid } from "@/lib/kernel/ids";
import { log } from "@/lib/kernel/log";
import type { Principal } from "@/lib/kernel/principal";
import { requestContext } from "@/lib/kernel/request-context";
import { requireScope } from "@/lib/kernel/scopes";
import { type AuditAction, type AuditEntry, type AuditList, type ListAuditQuery, REDACTED } from "./contract";
import {
  type AuditDoc,
  auditEntriesMatching,
  countAuditEntries,
  findAuditEntries,
  insertAuditEntries,
  newAuditDoc,
} from "./repository";

type Actor = AuditEntry["actor"];

/** The service itself: a job, the command line, a webhook turned off after days of failures. */
const SYSTEM: Actor = { type: "system", id: null, name: "System" };

/**
 * Fields whose values are secrets wherever they appear (a path's segment or a key inside a
 * value): shown only as "[redacted]" (docs/security.md#passwords-and-tokens).
 */
const SECRET_FIELD = /^(password\w*|\w*hash|\w*secret|\w*token|key|apiKey)$/i;

/** More changed fields than this in one change are not listed one by one (the event still names them all). */
const MAX_CHANGES = 200;
/** A value whose JSON is longer than this is stored as a note of its size, not whole. */
const MAX_VALUE_CHARS = 4000;
const MAX_USER_AGENT = 512;
/** What a create "sets" that names the record rather than describes it: the entry's resource and date say it. */
const IDENTITY = new Set(["_id", "createdAt"]);

export interface AuditedChange {
  company: ObjectId;
  action: AuditAction;
  resource: { type: AuditEntry["resource"]["type"]; id: string };
  before?: object | null;
  after?: object | null;
  /** The changed paths, as the event lists them. */
  paths: readonly string[];
  /** Paths neither record shows (a password, a secret): their values are redacted. */
  hidden: readonly string[];
  at: Date;
}

/** The entry of a change, for `recordChange` (lib/resources/events/service.ts) to write in the change's transaction. */
export function auditEntryOf(change: AuditedChange): AuditDoc {
  const hidden = new Set(change.hidden);
  const changes = change.paths
    .filter((path) => !IDENTITY.has(path))
    .slice(0, MAX_CHANGES)
    .map((path) => {
      const secret = hidden.has(path) || path.split(".").some((segment) => SECRET_FIELD.test(segment));
      const before = change.before ? valueAt(change.before, path) : undefined;
      const after = change.after ? valueAt(change.after, path) : undefined;
      if (secret)
        return {
          path,
          before: change.action.endsWith(".created") ? null : REDACTED,
          after: change.action.endsWith(".deleted") ? null : REDACTED,
        };
      return { path, before: storable(before), after: storable(after) };
    });
  return entry(change.company, change.action, change.resource, currentActor(), changes, change.at);
}

function entry(
  company: ObjectId,
  action: AuditAction,
  resource: AuditDoc["resource"],
  actor: Actor,
  changes: AuditDoc["changes"],
  at = new Date(),
): AuditDoc {
  const context = requestContext();
  return newAuditDoc({
    company,
    action,
    resource,
    actor,
    changes,
    requestId: context?.requestId ?? null,
    ip: context?.ip ?? null,
    userAgent: context?.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    createdAt: at,
  });
}

/** Who acts in the current request, with the name its principal carries. */
function currentActor(): Actor {
  const principal = requestContext()?.principal;
  if (!principal) return SYSTEM;
  if (principal.apiKey) return { type: "apiKey", id: principal.apiKey.id, name: principal.name ?? "API key" };
  // Every principal the service builds carries its name (lib/resources/auth/service.ts, lib/resources/jobs/service.ts).
  const name = principal.name ?? "Unknown user";
  return { type: "user", id: principal.userId, name };
}

/** The value at a dotted path of a record (`name.firstName`, `companies.0.isActive`). */
function valueAt(record: object, path: string): unknown {
  let value: unknown = record;
  for (const segment of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** A value as JSON shows it (ids as hex, dates as ISO), secrets inside it redacted, a huge one replaced by its size. */
function storable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  const json = JSON.stringify(value, (key, inner: unknown) =>
    key !== "" && SECRET_FIELD.test(key) ? REDACTED : inner,
  );
  if (json === undefined) return null;
  if (json.length > MAX_VALUE_CHARS) return `[too large to show: ${json.length} characters]`;
  return JSON.parse(json);
}

// ---------------------------------------------------------------------------------------------
// Sign-in and sign-out

/** A user as the sign-in service names them (the audit log reads no user record itself). */
interface SignedInUser {
  _id: ObjectId;
  /** Their display name, or their e-mail without one. */
  name: string;
}

/** A sign-in to a company: the user acted on their own account. */
export async function auditSignIn(user: SignedInUser, company: ObjectId): Promise<void> {
  const id = user._id.toHexString();
  await insertAuditEntries([
    entry(company, "auth.signedIn", { type: "user", id }, { type: "user", id, name: user.name }, []),
  ]);
}

/**
 * A failed sign-in of an existing account, under the company asked for when the user belongs to
 * it, else under every company of the user; the actor is anonymous, named by the e-mail tried.
 * Not awaited by the caller, so that a known e-mail answers as fast as an unknown one; never the
 * password.
 */
export function auditFailedSignIn(
  email: string,
  user: { _id: ObjectId; companies: { companyId: ObjectId }[] },
  companyId?: string,
): void {
  const asked = companyId ? user.companies.filter((entry) => entry.companyId.equals(companyId)) : [];
  const companies = (asked.length > 0 ? asked : user.companies).map((entry) => entry.companyId);
  const resource = { type: "user" as const, id: user._id.toHexString() };
  const actor: Actor = { type: "anonymous", id: null, name: email.slice(0, 254) };
  const docs = companies.map((company) => entry(company, "auth.signInFailed", resource, actor, []));
  insertAuditEntries(docs).catch((error: unknown) =>
    log().error({ err: error }, "could not write the audit entry of a failed sign-in"),
  );
}

/** The end of a sign-in session, by the user whose it was. */
export async function auditSignOut(user: SignedInUser, company: ObjectId): Promise<void> {
  const id = user._id.toHexString();
  await insertAuditEntries([
    entry(company, "auth.signedOut", { type: "user", id }, { type: "user", id, name: user.name }, []),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Reading

const NEWEST_FIRST: ListOrder = {
  fields: [
    { name: "createdAt", type: "date" },
    { name: "_id", type: "objectId" },
  ],
  direction: -1,
};

/** The company's entries matching the filters, newest first, by page or cursor. */
export async function listAuditLog(auth: Principal, query: ListAuditQuery): Promise<AuditList> {
  requireScope(auth, "audit:read", "reading the audit log");
  const filter = auditEntriesMatching(oid(auth.companyId), query);

  const scope = listScope(auth.companyId, "/v2/audit-log", query);
  const read = await pageRead(query, NEWEST_FIRST, scope);
  const [docs, counter] = await Promise.all([
    findAuditEntries(filter, {
      sort: read.sort as Record<string, 1 | -1>,
      skip: read.skip,
      limit: read.limit,
      after: read.after,
    }),
    query.count ? countAuditEntries(filter) : undefined,
  ]);
  const page = await pageOf(docs, query, NEWEST_FIRST, scope, (doc) => [doc.createdAt, doc._id]);
  return { data: { entries: page.items.map(toAuditEntry), ...pageFields(query, page, counter) } };
}

/**
 * A change as the log shows it: a webhook's URL with its secrets masked (docs/security.md#secrets-in-urls).
 * Entries are written masked; this also masks those written before the service masked them.
 */
function shown(resource: string, change: AuditEntry["changes"][number]): AuditEntry["changes"][number] {
  if (resource !== "webhook" || change.path !== "url") return change;
  const mask = (value: unknown) => (typeof value === "string" && value !== REDACTED ? maskUrl(value) : value);
  return { ...change, before: mask(change.before), after: mask(change.after) };
}

function toAuditEntry(doc: AuditDoc): AuditEntry {
  return {
    _id: doc._id.toHexString(),
    action: doc.action as AuditAction,
    resource: { type: doc.resource.type as AuditEntry["resource"]["type"], id: doc.resource.id },
    actor: { type: doc.actor.type as Actor["type"], id: doc.actor.id ?? null, name: doc.actor.name },
    changes: doc.changes.map((change) =>
      shown(doc.resource.type, { path: change.path ?? "", before: change.before ?? null, after: change.after ?? null }),
    ),
    requestId: doc.requestId ?? null,
    ip: doc.ip ?? null,
    userAgent: doc.userAgent ?? null,
    createdAt: doc.createdAt.toISOString(),
  };
}
