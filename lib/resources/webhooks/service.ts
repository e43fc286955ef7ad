/**
 * Webhooks (docs/api.md#webhooks): managing them, listing their deliveries, and queueing a retry
 * or a test. Nothing here delivers: that is the dispatcher and worker of ./delivery.ts, beside the
 * requests. Every change of a webhook writes its event in the same transaction (docs/api.md#events).
 */
import type { EventAction } from "@/lib/base/schemas/event-types";
import { holdsMask, maskUrl } from "@/lib/base/shared/masked-url";
import { type ListOrder, listScope, pageFields, pageOf, pageRead } from "@/lib/kernel/cursor";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { notFound, ServiceError } from "@/lib/kernel/errors";
import { newId, type ObjectId, oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { actorOf, requestContext } from "@/lib/kernel/request-context";
import { lastSeq } from "@/lib/resources/events/repository";
import { recordChange } from "@/lib/resources/events/service";
import { randomBytes } from "node:crypto";
import {
  type CreateWebhookBody,
  type DeliveryList,
  type DeliveryRecord,
  type ListDeliveriesQuery,
  type ListWebhooksQuery,
  SECRET_PREFIX,
  TEST_EVENT_TYPE,
  type UpdateWebhookBody,
  type WebhookList,
  type WebhookRecord,
  type WebhookWithSecret,
} from "./contract";
import { nudgeWebhookDelivery } from "./nudge";
import {
  countDeliveries,
  countWebhooks,
  deleteDeliveriesOf,
  deleteWebhookDoc,
  type DeliveryDoc,
  findDeliveries,
  findDelivery,
  findWebhook,
  findWebhooks,
  insertDeliveries,
  insertWebhook,
  newDeliveryDoc,
  newWebhookDoc,
  updateWebhookDoc,
  type WebhookDoc,
} from "./repository";
import { checkDestination, RefusedUrl } from "./url-guard";

/** Newest first, `_id` breaking ties: the order of both lists. */
const NEWEST_FIRST: ListOrder = {
  fields: [
    { name: "createdAt", type: "date" },
    { name: "_id", type: "objectId" },
  ],
  direction: -1,
};

/** 24 random bytes in base64, after `whsec_`, as Standard Webhooks secrets are written. */
const newSecret = () => SECRET_PREFIX + randomBytes(24).toString("base64");

export async function listWebhooks(auth: Principal, query: ListWebhooksQuery): Promise<WebhookList> {
  const company = oid(auth.companyId);
  const scope = listScope(auth.companyId, "/v2/webhooks", query);
  const read = await pageRead(query, NEWEST_FIRST, scope);
  const [docs, counter] = await Promise.all([
    findWebhooks(company, {
      sort: read.sort as Record<string, 1 | -1>,
      skip: read.skip,
      limit: read.limit,
      after: read.after,
    }),
    query.count ? countWebhooks(company) : undefined,
  ]);
  const page = await pageOf(docs, query, NEWEST_FIRST, scope, (doc) => [doc.createdAt, doc._id]);
  return { data: { webhooks: page.items.map(toWebhookRecord), ...pageFields(query, page, counter) } };
}

export async function createWebhook(
  auth: Principal,
  body: CreateWebhookBody,
  now = new Date(),
): Promise<WebhookWithSecret> {
  if (holdsMask(body.url))
    throw urlRefused("must not hold ••• (how the API shows a hidden secret of a URL): send the whole URL");
  await checkUrl(body.url);
  const company = oid(auth.companyId);
  const id = newId();
  // The webhook follows the feed from its end: it receives what happens from now on.
  const afterSeq = await lastSeq(company);
  const doc = await inTransaction(async () => {
    const stored = {
      ...newWebhookDoc({
        company,
        url: body.url,
        events: body.events,
        description: body.description ?? null,
        secret: newSecret(),
        afterSeq,
        createdAt: now,
      }),
      _id: id,
    };
    await recordWebhookEvent(company, id, "created", now, { after: toWebhookRecord(stored) });
    await insertWebhook(stored);
    return stored;
  });
  return { ...toWebhookRecord(doc), secret: doc.secret };
}

export async function getWebhook(auth: Principal, id: string): Promise<WebhookRecord> {
  return toWebhookRecord(await ownWebhook(auth, id));
}

export async function updateWebhook(
  auth: Principal,
  id: string,
  body: UpdateWebhookBody,
  now = new Date(),
): Promise<WebhookRecord> {
  const current = await ownWebhook(auth, id);
  const fields: Partial<WebhookDoc> = {};
  // The URL as the API shows it (its secrets masked) sent back is the stored one unchanged; any
  // other URL holding the mask would store the mask itself (docs/api.md#webhooks).
  const url = body.url !== undefined && isShownForm(body.url, current.url) ? undefined : body.url;
  if (url !== undefined && holdsMask(url))
    throw urlRefused(
      "holds ••• where the API hid a secret: send the whole URL, or leave url out to keep the stored one",
    );
  if (url !== undefined && url !== current.url) fields.url = url;
  if (body.events !== undefined && !sameList(body.events, current.events)) fields.events = body.events;
  if (body.description !== undefined && body.description !== current.description) fields.description = body.description;
  if (body.isActive !== undefined && body.isActive !== current.isActive) fields.isActive = body.isActive;
  const changes = Object.keys(fields);
  if (changes.length === 0) return toWebhookRecord(current);
  if (fields.url) await checkUrl(fields.url);
  // Turned on again, it receives what happens from now on, not what it missed while off.
  const restart = fields.isActive === true ? { afterSeq: await lastSeq(current.company), failingSince: null } : {};
  const updated = await inTransaction(async () => {
    const doc = await updateWebhookDoc(current.company, current._id, { ...fields, ...restart, modifiedAt: now });
    // A change of a hidden part only (a new token) shows the same masked URL before and after:
    // the event still names `url`, and its audit entry says the values are redacted.
    const hiddenChange =
      fields.url !== undefined && maskUrl(fields.url) === maskUrl(current.url) ? { also: ["url"] } : {};
    if (doc)
      await recordWebhookEvent(current.company, current._id, "updated", now, {
        before: toWebhookRecord(current),
        after: toWebhookRecord(doc),
        ...hiddenChange,
      });
    return doc;
  });
  if (!updated) throw notFound("webhook");
  return toWebhookRecord(updated);
}

export async function deleteWebhook(auth: Principal, id: string, now = new Date()): Promise<void> {
  const current = await ownWebhook(auth, id);
  const deleted = await inTransaction(async () => {
    const gone = await deleteWebhookDoc(current.company, current._id);
    if (gone)
      await recordWebhookEvent(current.company, current._id, "deleted", now, { before: toWebhookRecord(current) });
    return gone;
  });
  if (!deleted) throw notFound("webhook");
  await deleteDeliveriesOf(current._id);
}

export async function rotateWebhookSecret(auth: Principal, id: string, now = new Date()): Promise<WebhookWithSecret> {
  const current = await ownWebhook(auth, id);
  const secret = newSecret();
  const updated = await inTransaction(async () => {
    // The secret is shown by neither record: the event names it, the audit entry redacts it.
    await recordWebhookEvent(current.company, current._id, "updated", now, { also: ["secret"] });
    return updateWebhookDoc(current.company, current._id, { secret, modifiedAt: now });
  });
  if (!updated) throw notFound("webhook");
  return { ...toWebhookRecord(updated), secret };
}

export async function listDeliveries(auth: Principal, id: string, query: ListDeliveriesQuery): Promise<DeliveryList> {
  const webhook = await ownWebhook(auth, id);
  const scope = listScope(auth.companyId, `/v2/webhooks/${id}/deliveries`, query);
  const read = await pageRead(query, NEWEST_FIRST, scope);
  const [docs, counter] = await Promise.all([
    findDeliveries(webhook._id, {
      sort: read.sort as Record<string, 1 | -1>,
      skip: read.skip,
      limit: read.limit,
      after: read.after,
    }),
    query.count ? countDeliveries(webhook._id) : undefined,
  ]);
  const page = await pageOf(docs, query, NEWEST_FIRST, scope, (doc) => [doc.createdAt, doc._id]);
  return { data: { deliveries: page.items.map(toDeliveryRecord), ...pageFields(query, page, counter) } };
}

/** Queues one more attempt at a delivery's event, due now, with the very body it sent. */
export async function retryDelivery(
  auth: Principal,
  id: string,
  deliveryId: string,
  now = new Date(),
): Promise<DeliveryRecord> {
  const webhook = await ownWebhook(auth, id);
  const delivery = await findDelivery(webhook._id, oid(deliveryId));
  if (!delivery) throw notFound("delivery");
  return queueManual(webhook, delivery.eventId, delivery.body, now);
}

/** Queues a delivery, due now, of a synthetic `webhook.test` event naming the webhook. */
export async function testWebhook(auth: Principal, id: string, now = new Date()): Promise<DeliveryRecord> {
  const webhook = await ownWebhook(auth, id);
  const context = requestContext();
  const event = {
    _id: newId().toHexString(),
    type: TEST_EVENT_TYPE,
    resource: { type: "webhook", id: webhook._id.toHexString() },
    changes: [],
    actor: actorOf(context?.principal ?? auth),
    requestId: context?.requestId ?? null,
    createdAt: now.toISOString(),
  };
  return queueManual(webhook, oid(event._id), JSON.stringify(event), now);
}

async function queueManual(webhook: WebhookDoc, eventId: ObjectId, body: string, now: Date): Promise<DeliveryRecord> {
  const doc = newDeliveryDoc(
    { company: webhook.company, webhook: webhook._id, eventId, body, attempt: 1, manual: true, dueAt: now },
    now,
  );
  await insertDeliveries([doc]);
  nudgeWebhookDelivery();
  return toDeliveryRecord(doc);
}

/**
 * Appends the event of a change of a webhook (docs/api.md#events), inside the caller's
 * transaction, naming who acted and the request when there is one (none for the service's own).
 */
export async function recordWebhookEvent(
  company: ObjectId,
  webhook: ObjectId,
  action: EventAction,
  now: Date,
  states: { before?: Partial<WebhookRecord>; after?: Partial<WebhookRecord>; also?: string[] } = {},
): Promise<void> {
  await recordChange({ company, resource: "webhook", id: webhook, action, ...states, at: now });
}

async function ownWebhook(auth: Principal, id: string): Promise<WebhookDoc> {
  const doc = await findWebhook(oid(auth.companyId), oid(id));
  if (!doc) throw notFound("webhook");
  return doc;
}

async function checkUrl(url: string): Promise<void> {
  try {
    await checkDestination(url);
  } catch (error) {
    if (error instanceof RefusedUrl) throw urlRefused(error.message);
    throw error;
  }
}

const urlRefused = (message: string) =>
  new ServiceError("invalid_request", "The request is not valid.", [{ path: "url", message }]);

/** Whether `sent` is the stored URL as the API shows it, as sent or as a URL parser writes it (`•` percent-encoded). */
function isShownForm(sent: string, stored: string): boolean {
  const shown = maskUrl(stored);
  if (sent === shown) return true;
  try {
    return new URL(sent).href === new URL(shown).href;
  } catch {
    return false;
  }
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((item, index) => item === b[index]);

function toWebhookRecord(doc: WebhookDoc): WebhookRecord {
  return {
    _id: doc._id.toHexString(),
    // Shown, never used: its secrets masked (docs/security.md#secrets-in-urls). Deliveries read the stored URL.
    url: maskUrl(doc.url),
    events: doc.events as WebhookRecord["events"],
    description: doc.description ?? null,
    isActive: doc.isActive,
    createdAt: doc.createdAt.toISOString(),
    modifiedAt: doc.modifiedAt.toISOString(),
  };
}

function toDeliveryRecord(doc: DeliveryDoc): DeliveryRecord {
  return {
    _id: doc._id.toHexString(),
    eventId: doc.eventId.toHexString(),
    attempt: doc.attempt,
    status: doc.status as DeliveryRecord["status"],
    responseStatus: doc.responseStatus ?? null,
    durationMs: doc.durationMs ?? null,
    error: doc.error ?? null,
    nextAttemptAt: (doc.status === "pending" ? doc.dueAt : doc.nextAttemptAt)?.toISOString() ?? null,
    createdAt: doc.createdAt.toISOString(),
  };
}
