/**
 * Webhook delivery, beside the requests (docs/architecture.md#webhook-delivery): a dispatcher that
 * follows each company's event feed and queues a pending attempt per matching active webhook, and
 * a worker that takes due attempts under a lease and POSTs them, signed as Standard Webhooks says.
 * All state is in the database, so several processes share the work, each attempt is made once,
 * and an attempt whose worker died is taken again once its lease expires.
 */
import { loadConfig } from "@/lib/base/config";
import { recordDeliveryLag } from "@/lib/base/metrics";
import { maskUrl } from "@/lib/base/shared/masked-url";
import { BackgroundLoop, type LoopOptions } from "@/lib/kernel/background-loop";
import { inTransaction } from "@/lib/kernel/db/transaction";
import { log } from "@/lib/kernel/log";
import { type EventDoc, findEventsAfter } from "@/lib/resources/events/repository";
import { sendMail } from "@/lib/resources/mail/service";
import { adminRoleIds } from "@/lib/resources/reference/repository";
import { activeHolderEmails } from "@/lib/resources/users/repository";
import http from "node:http";
import https from "node:https";
import { Webhook as Signer } from "standardwebhooks";
import { matchesFilters } from "./contract";
import { webhookNudges } from "./nudge";
import {
  advanceWebhook,
  claimDueDelivery,
  completeDelivery,
  type DeliveryDoc,
  disableFailingWebhook,
  findActiveWebhooks,
  findWebhookOfDelivery,
  insertDeliveries,
  newDeliveryDoc,
  recordOutcome,
  type WebhookDoc,
} from "./repository";
import { recordWebhookEvent } from "./service";
import { checkDestination, type Destination } from "./url-guard";

/** Attempts at one event, the first included (docs/api.md#webhooks). */
const MAX_ATTEMPTS = 8;
/** Each retry waits this many times longer than the one before. */
const BACKOFF_FACTOR = 3;
/** A receiver has this long to answer. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** Events read from a company's feed at a time. */
const FEED_BATCH = 100;

export interface DeliveryOptions extends LoopOptions {
  /** How long a taken attempt is held before another worker may take it: above the timeout. */
  leaseMs?: number;
  timeoutMs?: number;
  /** Default: `WEBHOOK_RETRY_BASE_MS`. */
  retryBaseMs?: number;
  maxAttempts?: number;
  /** Default: `WEBHOOK_DISABLE_AFTER_DAYS`. */
  disableAfterMs?: number;
  /** Attempts made at the same time. */
  concurrency?: number;
}

/** The delay after failed attempt `attempt` (1-based): base × 3^(attempt−1), ±20 % so retries spread. */
export function retryDelayMs(attempt: number, baseMs: number, random = Math.random): number {
  return Math.round(baseMs * BACKOFF_FACTOR ** (attempt - 1) * (0.8 + 0.4 * random()));
}

/** The event as delivered: the record `GET /v2/events` shows. */
function eventBody(event: EventDoc): string {
  return JSON.stringify({
    _id: event._id.toHexString(),
    type: event.type,
    resource: { type: event.resource.type, id: event.resource.id },
    changes: event.changes,
    actor: event.actor ? { type: event.actor.type, id: event.actor.id } : null,
    requestId: event.requestId ?? null,
    createdAt: event.createdAt.toISOString(),
  });
}

/**
 * When a delivery's event was created: its body says so to the millisecond ({@link eventBody});
 * the event's id, to the second, for a body that does not.
 */
function eventCreatedAt(delivery: Pick<DeliveryDoc, "body" | "eventId">): Date {
  try {
    const { createdAt } = JSON.parse(delivery.body) as { createdAt?: unknown };
    const date = typeof createdAt === "string" ? new Date(createdAt) : undefined;
    if (date && !Number.isNaN(date.getTime())) return date;
  } catch {
    // Not JSON: the id's time below.
  }
  return delivery.eventId.getTimestamp();
}

export class WebhookDelivery extends BackgroundLoop {
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly maxAttempts: number;
  private readonly disableAfterMs: number;
  private readonly concurrency: number;

  constructor(options: DeliveryOptions = {}) {
    super("webhook delivery", webhookNudges, options);
    const config = loadConfig();
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.leaseMs = options.leaseMs ?? this.timeoutMs + 50_000;
    this.retryBaseMs = options.retryBaseMs ?? config.webhookRetryBaseMs;
    this.maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
    this.disableAfterMs = options.disableAfterMs ?? config.webhookDisableAfterDays * 86_400_000;
    this.concurrency = options.concurrency ?? 4;
  }

  /** One round: queue what the feeds hold, then make every attempt due. */
  async runOnce(): Promise<void> {
    await this.dispatch();
    await Promise.all(Array.from({ length: this.concurrency }, () => this.work()));
  }

  /**
   * Follows each company's feed from the lowest position of its active webhooks, and for each
   * webhook queues the matching events after its own position, moving the position in the same
   * transaction; another dispatcher that read the same events finds the position moved and queues
   * nothing (docs/architecture.md#webhook-delivery).
   */
  async dispatch(): Promise<void> {
    const byCompany = new Map<string, Awaited<ReturnType<typeof findActiveWebhooks>>>();
    for (const hook of await findActiveWebhooks()) {
      const key = hook.company.toHexString();
      byCompany.set(key, [...(byCompany.get(key) ?? []), hook]);
    }
    for (const hooks of byCompany.values()) {
      const positions = new Map(hooks.map((hook) => [hook._id.toHexString(), hook.afterSeq]));
      for (;;) {
        const from = Math.min(...positions.values());
        const events = await findEventsAfter(hooks[0].company, from, [], FEED_BATCH);
        if (events.length === 0) break;
        const last = events[events.length - 1].seq;
        const now = new Date();
        for (const hook of hooks) {
          const at = positions.get(hook._id.toHexString())!;
          if (last <= at) continue;
          const matching = events.filter((event) => event.seq > at && matchesFilters(hook.events, event.type));
          await inTransaction(async () => {
            if (!(await advanceWebhook(hook._id, at, last))) return;
            await insertDeliveries(
              matching.map((event) =>
                newDeliveryDoc(
                  {
                    company: hook.company,
                    webhook: hook._id,
                    eventId: event._id,
                    body: eventBody(event),
                    attempt: 1,
                    manual: false,
                    dueAt: now,
                  },
                  now,
                ),
              ),
            );
          });
          positions.set(hook._id.toHexString(), last);
        }
        if (events.length < FEED_BATCH) break;
      }
    }
  }

  /** Takes and makes due attempts until none is left. */
  async work(): Promise<void> {
    while (this.running || this.loop === undefined) {
      const now = new Date();
      const claimed = await claimDueDelivery(this.owner, now, new Date(now.getTime() + this.leaseMs));
      if (!claimed) return;
      await this.deliver(claimed);
    }
  }

  private async deliver(delivery: DeliveryDoc): Promise<void> {
    const webhook = await findWebhookOfDelivery(delivery);
    const started = performance.now();
    let outcome: { responseStatus: number | null; error: string | null };
    if (!webhook) outcome = { responseStatus: null, error: "the webhook was deleted" };
    else if (!webhook.isActive && !delivery.manual)
      outcome = { responseStatus: null, error: "the webhook is inactive" };
    else outcome = await this.post(webhook, delivery);
    const durationMs = Math.round(performance.now() - started);
    const succeeded = outcome.responseStatus !== null && outcome.responseStatus >= 200 && outcome.responseStatus < 300;
    const now = new Date();
    const retries = !succeeded && !delivery.manual && webhook?.isActive === true && delivery.attempt < this.maxAttempts;
    const nextAttemptAt = retries ? new Date(now.getTime() + retryDelayMs(delivery.attempt, this.retryBaseMs)) : null;
    const completed = await inTransaction(async () => {
      const done = await completeDelivery(delivery._id, this.owner, now, {
        status: succeeded ? "succeeded" : "failed",
        ...outcome,
        durationMs,
        nextAttemptAt,
      });
      if (done && nextAttemptAt) {
        await insertDeliveries([
          newDeliveryDoc(
            {
              company: delivery.company,
              webhook: delivery.webhook,
              eventId: delivery.eventId,
              body: delivery.body,
              attempt: delivery.attempt + 1,
              manual: false,
              dueAt: nextAttemptAt,
            },
            now,
          ),
        ]);
      }
      return done;
    });
    if (!completed) {
      // Its lease ran out meanwhile: another worker owns the attempt now, and its outcome counts.
      log().warn({ delivery: delivery._id.toHexString(), owner: this.owner }, "webhook delivery outlived its lease");
      return;
    }
    // An admin's retry or test is not the event's way to its receiver: only automatic attempts count.
    if (succeeded && !delivery.manual) recordDeliveryLag(eventCreatedAt(delivery), now);
    if (webhook && !delivery.manual) await this.track(webhook, succeeded, now);
  }

  /** Disables a webhook whose automatic deliveries have all failed for `disableAfterMs`, and tells the admins. */
  private async track(webhook: WebhookDoc, succeeded: boolean, now: Date): Promise<void> {
    const current = await recordOutcome(webhook._id, succeeded, now);
    if (succeeded || !current?.isActive || !current.failingSince) return;
    if (now.getTime() - current.failingSince.getTime() < this.disableAfterMs) return;
    const failingSince = current.failingSince;
    const disabled = await inTransaction(async () => {
      if (!(await disableFailingWebhook(webhook._id, failingSince, now))) return false;
      await recordWebhookEvent(webhook.company, webhook._id, "updated", now, {
        before: { isActive: true },
        after: { isActive: false },
      });
      return true;
    });
    if (!disabled) return;
    log().warn(
      { webhook: webhook._id.toHexString(), company: webhook.company.toHexString() },
      "webhook disabled after failing deliveries",
    );
    const emails = await activeHolderEmails(webhook.company, await adminRoleIds(webhook.company));
    for (const to of emails) {
      await sendMail({
        to,
        company: webhook.company,
        subject: "A webhook was turned off after failing deliveries",
        text: `Every delivery to the webhook ${maskUrl(webhook.url)} (id ${webhook._id.toHexString()}) has failed since ${failingSince.toISOString()}, so it was turned off and receives no more events.\n\nFix the receiver, then turn the webhook on again (PATCH /v2/webhooks/${webhook._id.toHexString()} with {"isActive": true}); its deliveries list why they failed.`,
      }).catch((error: unknown) => log().warn({ err: error, to }, "could not send the webhook-disabled mail"));
    }
  }

  /** One signed POST to the checked address of the webhook's URL; the status, or why none came. */
  private async post(
    webhook: WebhookDoc,
    delivery: DeliveryDoc,
  ): Promise<{ responseStatus: number | null; error: string | null }> {
    let destination: Destination;
    try {
      destination = await checkDestination(webhook.url);
    } catch (error) {
      return { responseStatus: null, error: `the URL ${(error as Error).message}` };
    }
    const timestamp = new Date();
    const id = delivery.eventId.toHexString();
    const headers = {
      "content-type": "application/json",
      "user-agent": "usersurveys-webhooks/1",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": new Signer(webhook.secret).sign(id, timestamp, delivery.body),
    };
    try {
      const status = await send(destination, headers, delivery.body, this.timeoutMs);
      return {
        responseStatus: status,
        error: status >= 200 && status < 300 ? null : `the receiver answered ${status}`,
      };
    } catch (error) {
      return { responseStatus: null, error: (error as Error).message };
    }
  }
}

/**
 * POSTs `body` to the destination's checked address (never resolving the name again, so DNS
 * rebinding reaches nothing), with the URL's host in `Host` and in TLS's server name.
 */
function send(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<number> {
  const { url, address } = destination;
  const secure = url.protocol === "https:";
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request({
      host: address,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { ...headers, host: url.host, "content-length": String(Buffer.byteLength(body)) },
      // Userinfo in the URL is the receiver's HTTP Basic credentials (docs/api.md#webhooks).
      ...(url.username || url.password
        ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
        : {}),
      agent: false,
      ...(secure && hostname !== address ? { servername: hostname } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    request.on("response", (response) => {
      // Only the status counts; the body is not read.
      response.destroy();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.name === "AbortError" || error.name === "TimeoutError"
            ? `no answer within ${timeoutMs / 1000} s`
            : `could not connect (${error.code ?? error.message})`,
        ),
      );
    });
    request.end(body);
  });
}

let started: WebhookDelivery | undefined;

/** Starts this process's delivery loop once (instrumentation.ts, at server start). */
export function startWebhookDelivery(options?: DeliveryOptions): WebhookDelivery {
  started ??= new WebhookDelivery(options).start();
  return started;
}
