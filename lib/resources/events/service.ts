/**
 * Events (docs/api.md#events): the one helper every service calls to record a change of its
 * records in the transaction of that change, and the list `GET /v2/events` reads. The event's
 * actor and request id come from the request's context, so services pass only what changed.
 */
import type { EventAction, EventResource } from "@/lib/base/schemas/event-types";
import { ServiceError } from "@/lib/kernel/errors";
import { type ObjectId, oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { actorOf, requestContext } from "@/lib/kernel/request-context";
import { type AuditDoc, insertAuditEntries } from "@/lib/resources/audit/repository";
import { auditEntryOf } from "@/lib/resources/audit/service";
import type { EventList, EventRecord, ListEventsQuery } from "./contract";
import { appendEvent, type EventDoc, eventSeq, findEventsAfter, type NewEvent } from "./repository";

/** Fields that move with every write and say nothing of what changed. */
const BOOKKEEPING = ["modifiedAt", "__v"];

export interface Change {
  company: ObjectId;
  resource: EventResource;
  id: ObjectId | string;
  action: EventAction;
  /** The record as the API showed it before the change (absent for a create). */
  before?: object | null;
  /** The record as the API shows it after the change (absent for a delete). */
  after?: object | null;
  /** Top-level fields of the records that are bookkeeping, not the record (a user's `search`). */
  ignore?: readonly string[];
  /** Paths changed that neither record shows (a password). */
  also?: readonly string[];
  /** When it happened; default: now. */
  at?: Date;
}

/**
 * Writes the event of a change and its audit entry, inside the transaction of that change
 * (`inTransaction`): the changed field paths are those where `before` and `after` differ. An update that changed nothing
 * writes no event; answers whether one was written.
 */
export async function recordChange(change: Change): Promise<boolean> {
  const described = describeChange(change);
  if (!described) return false;
  await writeChange(described);
  return true;
}

/** What a change writes: its event and its audit entry. */
export interface DescribedChange {
  event: NewEvent;
  audit: AuditDoc;
}

/**
 * The event and audit entry of a change, built without writing them (undefined for an update
 * that changed nothing): an import builds a batch's while the batch before it commits
 * (docs/architecture.md#jobs).
 */
export function describeChange(change: Change): DescribedChange | undefined {
  const ignored = new Set([...BOOKKEEPING, ...(change.ignore ?? [])]);
  const compared = changedPaths(change.before ?? {}, change.after ?? {}).filter(
    (path) => !ignored.has(path.split(".")[0]),
  );
  const changes = [...new Set([...compared, ...(change.also ?? [])])];
  if (change.action === "updated" && changes.length === 0) return undefined;
  const context = requestContext();
  const type = `${change.resource}.${change.action}` as const;
  const resource = { type: change.resource, id: String(change.id) };
  // A deleted record's event lists no fields (docs/api.md#events); its audit entry keeps each
  // field's last value, so the log still says what was removed (docs/api.md#audit-log).
  const paths = change.action === "deleted" ? [] : changes;
  const at = change.at ?? new Date();
  return {
    event: {
      company: change.company,
      type,
      resource,
      changes: paths,
      actor: actorOf(context?.principal),
      requestId: context?.requestId ?? null,
      createdAt: at,
    },
    // Its audit entry, with the values before and after, commits with it (docs/api.md#audit-log).
    audit: auditEntryOf({
      company: change.company,
      action: type,
      resource,
      before: change.before,
      after: change.after,
      paths: changes,
      hidden: change.also ?? [],
      at,
    }),
  };
}

/** Writes a described change inside the transaction of that change (`inTransaction`). */
export async function writeChange(described: DescribedChange): Promise<void> {
  await appendEvent(described.event);
  await insertAuditEntries([described.audit]);
}

/**
 * The dotted paths of the leaves that differ between two records: objects are compared field by
 * field, an array of objects of the same length element by element, any other value (an array of
 * ids, a date) whole. A field absent, `null` or an empty list on one side and set on the other is
 * a change; absent and `null` are the same.
 */
function changedPaths(before: unknown, after: unknown, path = ""): string[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => changedPaths(before[key], after[key], path ? `${path}.${key}` : key));
  }
  if (
    Array.isArray(before) &&
    Array.isArray(after) &&
    before.length === after.length &&
    before.every(isRecord) &&
    after.every(isRecord)
  ) {
    return before.flatMap((item, index) => changedPaths(item, after[index], `${path}.${index}`));
  }
  if (isRecord(after) && (before === undefined || before === null)) return changedPaths({}, after, path);
  return same(before, after) ? [] : [path];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null &&
  typeof value === "object" &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype;

// Ids and dates compare by their JSON (hex, ISO), as the API shows them.
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

// ---------------------------------------------------------------------------------------------
// Reading

/**
 * The company's events after the one `after` names, oldest first. An `after` of no event of the
 * company (another company's, one expired, one never written) is `400`: a reader must not take
 * silence for "nothing new" when its place in the sequence is lost (docs/api.md#events).
 */
export async function listEvents(auth: Principal, query: ListEventsQuery): Promise<EventList> {
  const company = oid(auth.companyId);
  let afterSeq = 0;
  if (query.after !== undefined) {
    const seq = await eventSeq(company, oid(query.after));
    if (seq === null) {
      throw new ServiceError("invalid_request", "The request is not valid.", [
        { path: "after", message: "names no event of this company (it may have expired): start again without after" },
      ]);
    }
    afterSeq = seq;
  }
  // One more than asked: whether another page follows now.
  const docs = await findEventsAfter(company, afterSeq, query.type ?? [], query.limit + 1);
  const events = docs.slice(0, query.limit).map(toEventRecord);
  return { data: { events, next: docs.length > query.limit ? events[events.length - 1]._id : null } };
}

function toEventRecord(doc: EventDoc): EventRecord {
  return {
    _id: doc._id.toHexString(),
    type: doc.type as EventRecord["type"],
    resource: { type: doc.resource.type as EventRecord["resource"]["type"], id: doc.resource.id },
    changes: doc.changes,
    actor: doc.actor ? { type: doc.actor.type as "user" | "apiKey", id: doc.actor.id } : null,
    requestId: doc.requestId ?? null,
    createdAt: doc.createdAt.toISOString(),
  };
}
