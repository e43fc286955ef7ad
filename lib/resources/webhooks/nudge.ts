/**
 * Wakes this process's webhook delivery loop (./delivery.ts) at once when a request queued an
 * attempt due now, instead of at its next poll; a module of its own so the service needs no import
 * of the loop.
 */
import { nudgeChannel } from "@/lib/kernel/background-loop";

export const webhookNudges = nudgeChannel("webhooks");

export const nudgeWebhookDelivery = (): void => webhookNudges.nudge();
