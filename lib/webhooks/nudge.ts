/**
 * Wakes this process's webhook delivery loop (./delivery.ts) at once when a request queued an
 * attempt due now, instead of at its next poll; a module of its own so the service needs no import
 * of the loop.
 */
const listeners = new Set<() => void>();

export function onWebhookNudge(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function nudgeWebhookDelivery(): void {
  for (const listener of listeners) listener();
}
