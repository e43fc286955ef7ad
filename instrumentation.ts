/**
 * Runs once when the server starts, before it handles a request: from then on every request
 * carries the socket's address in `X-Forwarded-For` (lib/http/socket-address.ts), and this process
 * delivers webhooks and runs jobs (imports) beside its requests (docs/architecture.md#webhook-delivery, #jobs),
 * and keeps its metrics (docs/deployment.md#metrics).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  (await import("./lib/http/socket-address")).installSocketAddress();
  const [{ ready }, { startWebhookDelivery }, { startJobRunner }, { startMetrics }] = await Promise.all([
    import("./lib/startup/ready"),
    import("./lib/webhooks/delivery"),
    import("./lib/jobs/runner"),
    import("./lib/services/metrics"),
  ]);
  // Before the first request: a cluster's primary may ask this worker for its metrics at any time.
  startMetrics();
  startWebhookDelivery({ before: ready });
  startJobRunner({ before: ready });
}
