/**
 * Webhooks (docs/api.md#webhooks): URLs of a company to which the service POSTs its events, signed
 * as Standard Webhooks says, and the log of every delivery attempt. The secret that signs appears
 * only in the answers of a create and of `rotate-secret`.
 */
import { isoDateTime, listEnvelope, multiLineText, objectId, pagingQuery } from "@/lib/base/schemas/common";
import { EVENT_RESOURCES, EVENT_TYPES } from "@/lib/base/schemas/event-types";
import { type ComponentNames, operation, pagingParameters } from "@/lib/base/schemas/operation";
import { z } from "zod";

/** Every secret starts with this, as Standard Webhooks libraries expect. */
export const SECRET_PREFIX = "whsec_";

/** The type of the synthetic event `POST /v2/webhooks/{id}/test` delivers. */
export const TEST_EVENT_TYPE = "webhook.test";

/** What a webhook's `events` may hold: an event type, or `<resource>.*` for all of a resource's. */
export const EVENT_FILTERS = [...EVENT_TYPES, ...EVENT_RESOURCES.map((resource) => `${resource}.*` as const)] as const;
export const EventFilter = z.enum(EVENT_FILTERS, {
  error: `must be an event type (such as user.updated) or <resource>.* (such as survey.*)`,
});
export type EventFilter = z.infer<typeof EventFilter>;

/** Whether an event of `type` matches a webhook's filters. */
export const matchesFilters = (filters: readonly string[], type: string): boolean =>
  filters.includes(type) || filters.includes(`${type.slice(0, type.indexOf("."))}.*`);

const WebhookUrl = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .max(2048, { error: "must be at most 2048 characters" });

const Events = z
  .array(EventFilter)
  .min(1, { error: "must name at least one event type" })
  .max(EVENT_FILTERS.length)
  .transform((filters) => [...new Set(filters)]);

const Description = multiLineText({ max: 500 }).nullable();

export const WebhookRecord = z.object({
  _id: objectId,
  /** Shown with its userinfo, query values and fragment masked as `•••` (docs/security.md#secrets-in-urls). */
  url: z.string(),
  events: z.array(EventFilter),
  description: z.string().nullable(),
  /** `false` once turned off by a PATCH, or by the service after days of failed deliveries. */
  isActive: z.boolean(),
  createdAt: isoDateTime,
  modifiedAt: isoDateTime,
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

export const WebhookWithSecret = WebhookRecord.extend({
  /** The signing secret: in this answer only (and left out of its replay for a repeated `Idempotency-Key`). */
  secret: z
    .string()
    .regex(new RegExp(`^${SECRET_PREFIX}`))
    .optional(),
});
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

export const CreateWebhookBody = z.strictObject({
  url: WebhookUrl,
  events: Events,
  description: Description.optional(),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;
export type CreateWebhookInput = z.input<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z.strictObject({
  url: WebhookUrl.optional(),
  events: Events.optional(),
  description: Description.optional(),
  isActive: z.boolean({ error: "must be true or false" }).optional(),
});
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;
export type UpdateWebhookInput = z.input<typeof UpdateWebhookBody>;

export const DELIVERY_STATUSES = ["succeeded", "failed", "pending"] as const;

export const DeliveryRecord = z.object({
  _id: objectId,
  /** The `_id` of the event delivered, sent as `webhook-id`. */
  eventId: objectId,
  /** 1 for the first attempt at an event, 2 for its first retry...; 1 for a manual retry or test. */
  attempt: z.number().int(),
  status: z.enum(DELIVERY_STATUSES),
  /** The receiver's HTTP status; `null` when none came (not yet made, refused, timed out). */
  responseStatus: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  /** Why it failed, in a few words; `null` on success and while pending. */
  error: z.string().nullable(),
  /** Pending: when it is due. Failed: when the next attempt is due, `null` when none follows. */
  nextAttemptAt: isoDateTime.nullable(),
  createdAt: isoDateTime,
});
export type DeliveryRecord = z.infer<typeof DeliveryRecord>;

export const ListWebhooksQuery = z.object({ ...pagingQuery(20, 100) });
export type ListWebhooksQuery = z.infer<typeof ListWebhooksQuery>;
export const ListDeliveriesQuery = z.object({ ...pagingQuery(20, 100) });
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuery>;

export const WebhookList = listEnvelope("webhooks", WebhookRecord);
export type WebhookList = z.infer<typeof WebhookList>;
export const DeliveryList = listEnvelope("deliveries", DeliveryRecord);
export type DeliveryList = z.infer<typeof DeliveryList>;

export const WebhookIdParams = z.object({ id: objectId });
export const DeliveryIdParams = z.object({ id: objectId, deliveryId: objectId });

const TAG = "Webhooks";
const common = { scope: "webhooks:write", admin: true } as const;

export const list = operation({
  ...common,
  method: "get",
  path: "/v2/webhooks",
  query: ListWebhooksQuery,
  doc: {
    tag: TAG,
    summary: "List webhooks",
    description:
      "The company's webhooks, newest first, never their secrets; each `url` with its userinfo, query values and fragment masked as `•••`.",
    status: 200,
    response: WebhookList,
    parameters: pagingParameters,
  },
});

export const create = operation({
  ...common,
  method: "post",
  path: "/v2/webhooks",
  body: CreateWebhookBody,
  secretFields: ["secret"],
  doc: {
    tag: TAG,
    summary: "Create a webhook",
    description:
      "Events of the types in `events` (`user.updated`, or `survey.*` for every survey event) that happen from now on are POSTed to `url` (shown from now on with its userinfo, query values and fragment masked as `•••`), signed with `secret` (in this answer only). `url` must be `http` or `https` on a port other than 0, and every address of its host must be public unicast (no loopback, private, link-local, reserved or special-purpose range, nor an IPv6 range that carries an IPv4 address) unless the host is listed in `WEBHOOK_ALLOWED_HOSTS` or the URL is one of the product's own test receivers (`GET /v2/webhooks/receiver`) (`400 invalid_request` naming `url`).",
    status: 201,
    response: WebhookWithSecret,
  },
});

export const read = operation({
  ...common,
  method: "get",
  path: "/v2/webhooks/{id}",
  params: WebhookIdParams,
  doc: {
    tag: TAG,
    summary: "Read a webhook",
    description: "Never with its secret; `url` with its userinfo, query values and fragment masked as `•••`.",
    status: 200,
    response: WebhookRecord,
  },
});

export const update = operation({
  ...common,
  method: "patch",
  path: "/v2/webhooks/{id}",
  params: WebhookIdParams,
  body: UpdateWebhookBody,
  doc: {
    tag: TAG,
    summary: "Change a webhook",
    description:
      "`url`, `events`, `description`, `isActive`. A webhook turned active again receives the events that happen from then on, not those it missed. A `url` equal to the masked form the API shows keeps the stored URL; any other `url` holding `•••` is `400 invalid_request`: send the whole URL.",
    status: 200,
    response: WebhookRecord,
  },
});

export const remove = operation({
  ...common,
  method: "delete",
  path: "/v2/webhooks/{id}",
  params: WebhookIdParams,
  doc: { tag: TAG, summary: "Delete a webhook", description: "With its deliveries, pending ones too.", status: 204 },
});

export const rotateSecret = operation({
  ...common,
  method: "post",
  path: "/v2/webhooks/{id}/rotate-secret",
  params: WebhookIdParams,
  secretFields: ["secret"],
  doc: {
    tag: TAG,
    summary: "Rotate a webhook's secret",
    description: "A new `secret` (in this answer only) signs every delivery from now on; the old one stops at once.",
    status: 200,
    response: WebhookWithSecret,
  },
});

export const deliveries = operation({
  ...common,
  method: "get",
  path: "/v2/webhooks/{id}/deliveries",
  params: WebhookIdParams,
  query: ListDeliveriesQuery,
  doc: {
    tag: TAG,
    summary: "List a webhook's deliveries",
    description:
      "Each attempt at delivering an event, newest first: `pending` (not yet made), `succeeded` (a 2xx within 10 s) or `failed`.",
    status: 200,
    response: DeliveryList,
    parameters: pagingParameters,
  },
});

export const retry = operation({
  ...common,
  method: "post",
  path: "/v2/webhooks/{id}/deliveries/{deliveryId}/retry",
  params: DeliveryIdParams,
  doc: {
    tag: TAG,
    summary: "Deliver an event again",
    description:
      "Queues one more attempt at the delivery's event, due now, and answers it (`pending`); its outcome is listed in the deliveries. It is not retried on failure.",
    status: 200,
    response: DeliveryRecord,
  },
});

export const test = operation({
  ...common,
  method: "post",
  path: "/v2/webhooks/{id}/test",
  params: WebhookIdParams,
  doc: {
    tag: TAG,
    summary: "Send a test delivery",
    description:
      "Queues a delivery, due now, of a synthetic event of type `webhook.test` naming the webhook (also to an inactive webhook, and whatever its `events`), and answers it (`pending`); its outcome is listed in the deliveries. It is not retried on failure.",
    status: 200,
    response: DeliveryRecord,
  },
});

/** What the built-in test receiver made of a request's signature (docs/api.md#test-receiver). */
export const RECEIPT_SIGNATURES = ["valid", "invalid", "unsigned"] as const;

export const ReceiptRecord = z.object({
  _id: objectId,
  receivedAt: isoDateTime,
  /** The webhook whose secret the signature matched, else `null`. */
  webhook: objectId.nullable(),
  /** The `type` of the JSON body, when it has one. */
  eventType: z.string().nullable(),
  signature: z.enum(RECEIPT_SIGNATURES),
  /** Why, in a sentence: which webhook's secret matched, or why none did. */
  signatureNote: z.string(),
  /** The request's headers, lower-cased; a credential (`authorization`) masked as `•••`. */
  headers: z.record(z.string(), z.string()),
  /** The body as received, cut at 64 KiB (`truncated`). */
  body: z.string(),
  truncated: z.boolean(),
});
export type ReceiptRecord = z.infer<typeof ReceiptRecord>;

export const ReceiverAnswer = z.object({
  /** Where to point a webhook: the company's own receiver under `PUBLIC_URL`. */
  url: z.string(),
  /** The latest requests it received, newest first (at most 50, for 7 days). */
  received: z.array(ReceiptRecord),
});
export type ReceiverAnswer = z.infer<typeof ReceiverAnswer>;

export const receiver = operation({
  ...common,
  method: "get",
  path: "/v2/webhooks/receiver",
  doc: {
    tag: TAG,
    summary: "Read the test receiver",
    description:
      "The company's built-in test receiver (docs/api.md#test-receiver): its `url`, which a webhook may point to without `WEBHOOK_ALLOWED_HOSTS`, and the latest 50 requests it received (kept 7 days), newest first, each with its headers, its body and whether its signature matches the secret of a webhook of the company that points to it.",
    status: 200,
    response: ReceiverAnswer,
  },
});

export const clearReceiver = operation({
  ...common,
  method: "delete",
  path: "/v2/webhooks/receiver",
  doc: {
    tag: TAG,
    summary: "Empty the test receiver",
    description: "Forgets every request the company's test receiver kept; its `url` stays.",
    status: 204,
  },
});

/** The names of this resource's schemas in the OpenAPI document. */
export const components: ComponentNames = {
  records: { Webhook: WebhookRecord, WebhookDelivery: DeliveryRecord, WebhookReceipt: ReceiptRecord },
  answers: {
    WebhookAnswer: WebhookRecord,
    WebhookList,
    WebhookWithSecret,
    WebhookDeliveryAnswer: DeliveryRecord,
    WebhookDeliveryList: DeliveryList,
    WebhookReceiverAnswer: ReceiverAnswer,
  },
};
