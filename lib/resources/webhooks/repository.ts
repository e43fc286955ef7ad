/**
 * Webhooks and their deliveries: the only code that reads or writes their collections. One way
 * to the database: Mongoose models with typed lean results. The secret is stored as it is, because
 * every delivery is signed with it (docs/security.md#webhook-secrets); it never leaves through the API.
 *
 * A webhook keeps `afterSeq`, the number (lib/resources/events/repository.ts) of the last event of its
 * company it has queued: the dispatcher moves it forward in the same transaction that inserts the
 * deliveries, so each event is queued once however many processes follow the feed.
 */
import type { ObjectId as Id } from "@/lib/kernel/ids";
import { defineModel, ObjectId, schemaOptions } from "@/lib/kernel/models/define";
import mongoose, { Schema } from "mongoose";

const webhookSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    description: { type: String, default: null },
    isActive: { type: Boolean, required: true },
    secret: { type: String, required: true },
    /** The number of the company's last event queued for it (or passed over before it existed). */
    afterSeq: { type: Number, required: true },
    /** Since when every delivery has failed; `null` after a success. */
    failingSince: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    modifiedAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "webhooks" },
);
webhookSchema.index({ company: 1, createdAt: -1, _id: -1 });
webhookSchema.index({ isActive: 1, company: 1 });
export const Webhook = defineModel("Webhook", webhookSchema);

export type WebhookDoc = mongoose.InferSchemaType<typeof webhookSchema> & { _id: mongoose.Types.ObjectId };

/** Deliveries are kept this long, then the database removes them. */
const DELIVERY_RETENTION_DAYS = 30;

const deliverySchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    webhook: { type: ObjectId, required: true },
    eventId: { type: ObjectId, required: true },
    /** The exact JSON sent: kept so that a retry sends the same bytes after the event has expired. */
    body: { type: String, required: true },
    attempt: { type: Number, required: true },
    /** A retry or test asked for by an admin: one attempt, never followed by another. */
    manual: { type: Boolean, required: true },
    status: { type: String, required: true, enum: ["pending", "succeeded", "failed"] },
    /** When a pending attempt is due. */
    dueAt: { type: Date, required: true },
    /** Until when the worker `leaseOwner` holds a pending attempt; past it, another may take it. */
    leaseUntil: { type: Date, default: null },
    leaseOwner: { type: String, default: null },
    responseStatus: { type: Number, default: null },
    durationMs: { type: Number, default: null },
    error: { type: String, default: null },
    nextAttemptAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "webhookDeliveries" },
);
deliverySchema.index({ webhook: 1, createdAt: -1, _id: -1 });
deliverySchema.index({ status: 1, dueAt: 1 });
deliverySchema.index({ createdAt: 1 }, { expireAfterSeconds: DELIVERY_RETENTION_DAYS * 24 * 3600 });
export const Delivery = defineModel("WebhookDelivery", deliverySchema);

export type DeliveryDoc = mongoose.InferSchemaType<typeof deliverySchema> & { _id: mongoose.Types.ObjectId };

/** The one builder of a stored webhook. */
export function newWebhookDoc(
  fields: Pick<WebhookDoc, "company" | "url" | "events" | "description" | "secret" | "afterSeq" | "createdAt">,
): WebhookDoc {
  return {
    _id: new mongoose.Types.ObjectId(),
    isActive: true,
    failingSince: null,
    modifiedAt: fields.createdAt,
    ...fields,
  };
}

/** The one builder of a stored delivery attempt, pending until `dueAt`. */
export function newDeliveryDoc(
  fields: Pick<DeliveryDoc, "company" | "webhook" | "eventId" | "body" | "attempt" | "manual" | "dueAt">,
  now: Date,
): DeliveryDoc {
  return {
    _id: new mongoose.Types.ObjectId(),
    status: "pending",
    leaseUntil: null,
    leaseOwner: null,
    responseStatus: null,
    durationMs: null,
    error: null,
    nextAttemptAt: null,
    createdAt: now,
    ...fields,
  };
}

interface Window {
  sort: Record<string, 1 | -1>;
  skip: number;
  limit: number;
  after?: Record<string, unknown>;
}

export async function insertWebhook(doc: WebhookDoc): Promise<void> {
  await Webhook.create([doc]);
}

export const findWebhook = (company: Id, id: Id) => Webhook.findOne({ _id: id, company }).lean<WebhookDoc>();

/** The webhook a delivery belongs to, whatever its company (the worker serves every company). */
export const findWebhookOfDelivery = (delivery: Pick<DeliveryDoc, "webhook" | "company">) =>
  Webhook.findOne({ _id: delivery.webhook, company: delivery.company }).lean<WebhookDoc>();

export const findWebhooks = (company: Id, window: Window) =>
  Webhook.find({ company, ...(window.after ? { $and: [window.after] } : {}) })
    .sort(window.sort)
    .skip(window.skip)
    .limit(window.limit)
    .lean<WebhookDoc[]>();

export const countWebhooks = (company: Id) => Webhook.countDocuments({ company }).exec();

/** Sets fields of the company's webhook; the webhook after, or `null` when it has none of that id. */
export const updateWebhookDoc = (company: Id, id: Id, fields: Partial<WebhookDoc>) =>
  Webhook.findOneAndUpdate({ _id: id, company }, { $set: fields }, { returnDocument: "after" }).lean<WebhookDoc>();

/** Deletes the company's webhook; whether there was one. Its deliveries go with {@link deleteDeliveriesOf}. */
export const deleteWebhookDoc = async (company: Id, id: Id): Promise<boolean> =>
  (await Webhook.deleteOne({ _id: id, company })).deletedCount > 0;

export async function deleteDeliveriesOf(webhook: Id): Promise<void> {
  await Delivery.deleteMany({ webhook });
}

/** Every active webhook, grouped by the dispatcher per company. */
export const findActiveWebhooks = () =>
  Webhook.find({ isActive: true }, { company: 1, events: 1, afterSeq: 1 }).lean<
    Pick<WebhookDoc, "_id" | "company" | "events" | "afterSeq">[]
  >();

/** Moves the webhook's feed position from `from` to `to`; whether it was still at `from`. */
export const advanceWebhook = async (id: Id, from: number, to: number): Promise<boolean> =>
  (await Webhook.updateOne({ _id: id, afterSeq: from, isActive: true }, { $set: { afterSeq: to } })).modifiedCount > 0;

/** Records a success (`failingSince` back to `null`) or the start of a run of failures. */
export async function recordOutcome(id: Id, succeeded: boolean, now: Date): Promise<WebhookDoc | null> {
  if (succeeded)
    return Webhook.findOneAndUpdate(
      { _id: id },
      { $set: { failingSince: null } },
      { returnDocument: "after" },
    ).lean<WebhookDoc>();
  await Webhook.updateOne({ _id: id, failingSince: null }, { $set: { failingSince: now } });
  return Webhook.findById(id).lean<WebhookDoc>();
}

/** Turns the webhook off if it is still on and failing since `failingSince`; whether this call did. */
export const disableFailingWebhook = async (id: Id, failingSince: Date, now: Date): Promise<boolean> =>
  (await Webhook.updateOne({ _id: id, isActive: true, failingSince }, { $set: { isActive: false, modifiedAt: now } }))
    .modifiedCount > 0;

export async function insertDeliveries(docs: DeliveryDoc[]): Promise<void> {
  if (docs.length > 0) await Delivery.insertMany(docs);
}

export const findDelivery = (webhook: Id, id: Id) => Delivery.findOne({ _id: id, webhook }).lean<DeliveryDoc>();

export const findDeliveries = (webhook: Id, window: Window) =>
  Delivery.find({ webhook, ...(window.after ? { $and: [window.after] } : {}) })
    .sort(window.sort)
    .skip(window.skip)
    .limit(window.limit)
    .lean<DeliveryDoc[]>();

export const countDeliveries = (webhook: Id) => Delivery.countDocuments({ webhook }).exec();

/**
 * Takes one due pending attempt for `owner` until `leaseUntil`: one whose lease is free or has
 * expired (its worker died). findOneAndUpdate is atomic, so two workers never hold the same one.
 */
export const claimDueDelivery = (owner: string, now: Date, leaseUntil: Date) =>
  Delivery.findOneAndUpdate(
    { status: "pending", dueAt: { $lte: now }, $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] },
    { $set: { leaseUntil, leaseOwner: owner } },
    { sort: { dueAt: 1 }, returnDocument: "after" },
  ).lean<DeliveryDoc>();

/** Ends an attempt `owner` still holds; whether it did (a worker whose lease expired may not). */
export const completeDelivery = async (
  id: Id,
  owner: string,
  now: Date,
  outcome: Pick<DeliveryDoc, "status" | "responseStatus" | "durationMs" | "error" | "nextAttemptAt">,
): Promise<boolean> =>
  (
    await Delivery.updateOne(
      { _id: id, status: "pending", leaseOwner: owner, leaseUntil: { $gt: now } },
      { $set: { ...outcome, leaseUntil: null } },
    )
  ).modifiedCount > 0;

/**
 * Pending attempts, and those of them due by `now` (the backlog the workers have not reached), for
 * the metrics' gauges (docs/deployment.md#metrics): two counts on the `{ status, dueAt }` index.
 */
export async function countPendingDeliveries(now: Date): Promise<{ pending: number; due: number }> {
  const [pending, due] = await Promise.all([
    Delivery.countDocuments({ status: "pending" }).exec(),
    Delivery.countDocuments({ status: "pending", dueAt: { $lte: now } }).exec(),
  ]);
  return { pending, due };
}

/** A company's built-in test receiver (docs/api.md#test-receiver): the random key its URL ends with. */
const receiverSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    key: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { ...schemaOptions, collection: "webhookReceivers" },
);
receiverSchema.index({ company: 1 }, { unique: true });
receiverSchema.index({ key: 1 }, { unique: true });
export const WebhookReceiver = defineModel("WebhookReceiver", receiverSchema);

/** Requests a test receiver keeps: the latest this many of a company, each for {@link RECEIPT_RETENTION_DAYS} days. */
const RECEIPTS_KEPT = 50;
const RECEIPT_RETENTION_DAYS = 7;

const receiptSchema = new Schema(
  {
    company: { type: ObjectId, required: true },
    receivedAt: { type: Date, required: true },
    webhook: { type: ObjectId, default: null },
    eventType: { type: String, default: null },
    signature: { type: String, required: true, enum: ["valid", "invalid", "unsigned"] },
    signatureNote: { type: String, required: true },
    headers: { type: Schema.Types.Mixed, required: true },
    body: { type: String, default: "" },
    truncated: { type: Boolean, required: true },
  },
  { ...schemaOptions, collection: "webhookReceipts", minimize: false },
);
receiptSchema.index({ company: 1, _id: -1 });
receiptSchema.index({ receivedAt: 1 }, { expireAfterSeconds: RECEIPT_RETENTION_DAYS * 24 * 3600 });
export const WebhookReceipt = defineModel("WebhookReceipt", receiptSchema);

export type ReceiptDoc = mongoose.InferSchemaType<typeof receiptSchema> & { _id: mongoose.Types.ObjectId };

/** The key of the company's receiver, made on first use (two first uses at once agree on one). */
export async function receiverKeyOf(company: Id, newKey: string, now: Date): Promise<string> {
  const doc = await WebhookReceiver.findOneAndUpdate(
    { company },
    { $setOnInsert: { company, key: newKey, createdAt: now } },
    { upsert: true, returnDocument: "after" },
  )
    .lean<{ key: string }>()
    .catch(async (error: unknown) => {
      // The other first use won the unique index: its key is the one.
      if ((error as { code?: number }).code === 11000)
        return WebhookReceiver.findOne({ company }).lean<{ key: string }>();
      throw error;
    });
  return doc!.key;
}

/** The company a receiver's key belongs to, if any. */
export const companyOfReceiver = async (key: string): Promise<Id | undefined> =>
  (await WebhookReceiver.findOne({ key }, { company: 1 }).lean<{ company: Id }>())?.company;

/** The company's webhooks, with their secrets, for checking what the receiver got. */
export const webhooksWithSecretsOf = (company: Id) =>
  Webhook.find({ company }, { url: 1, secret: 1 }).lean<Pick<WebhookDoc, "_id" | "url" | "secret">[]>();

/** Keeps one received request, and only the latest {@link RECEIPTS_KEPT} of its company. */
export async function keepReceipt(doc: ReceiptDoc): Promise<void> {
  await WebhookReceipt.create(doc);
  const oldest = await WebhookReceipt.findOne({ company: doc.company }, { _id: 1 })
    .sort({ _id: -1 })
    .skip(RECEIPTS_KEPT)
    .lean<{ _id: Id }>();
  if (oldest) await WebhookReceipt.deleteMany({ company: doc.company, _id: { $lte: oldest._id } });
}

export const latestReceipts = (company: Id) =>
  WebhookReceipt.find({ company }).sort({ _id: -1 }).limit(RECEIPTS_KEPT).lean<ReceiptDoc[]>();

export async function forgetReceipts(company: Id): Promise<void> {
  await WebhookReceipt.deleteMany({ company });
}
