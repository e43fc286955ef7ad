/**
 * Runs once when the server starts, before it handles a request: from then on every request
 * carries the socket's address in `X-Forwarded-For` (lib/platform/http/socket-address.ts), and this process
 * delivers webhooks and runs jobs (imports) beside its requests (docs/architecture.md#webhook-delivery, #jobs),
 * and keeps its metrics (docs/deployment.md#metrics).
 * When the process drains, both loops stop first and give their leases back (lib/base/shared/shutdown.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  (await import("./lib/platform/http/socket-address")).installSocketAddress();
  const [{ ready }, { startWebhookDelivery }, { startJobRunner }, { startMetrics }, { onShutdown }] = await Promise.all(
    [
      import("./lib/platform/startup/ready"),
      import("./lib/resources/webhooks/delivery"),
      import("./lib/resources/jobs/runner"),
      import("./lib/resources/spanning/metrics"),
      import("./lib/base/shared/shutdown"),
    ],
  );
  // At the start: from then on a cluster's primary asks this worker for its metrics at each scrape.
  startMetrics();
  const delivery = startWebhookDelivery({ before: ready });
  const jobs = startJobRunner({ before: ready });
  onShutdown("loops", () => delivery.stop());
  onShutdown("loops", () => jobs.stop());
}
