/**
 * The metrics that span resources (docs/deployment.md#metrics): gauges of the work queued in the
 * database (webhook delivery attempts, import jobs), read when Prometheus scrapes, and the text of
 * a scrape. The database is shared by every server process, so these are the service's queues, not
 * one process's: a cluster aggregates them by their maximum, never by their sum.
 */
import { metrics } from "@/lib/base/metrics";
import { joinClusterMetrics, METRICS_CONTENT_TYPE, metricsText } from "@/lib/base/metrics/cluster";
import { newCache } from "@/lib/kernel/cache";
import { log } from "@/lib/kernel/log";
import { countUnfinishedJobs } from "@/lib/resources/jobs/repository";
import { countPendingDeliveries } from "@/lib/resources/webhooks/repository";
import { Gauge } from "prom-client";

/**
 * The counts are read at most this often per process: a scrape every few seconds, or several
 * workers each asked for their metrics at one scrape, costs the database a few counts at most.
 */
export const QUEUE_COUNTS_TTL_MS = 5_000;

interface QueueCounts {
  deliveriesPending: number;
  deliveriesDue: number;
  jobsQueued: number;
  jobsRunning: number;
}

const counts = newCache<QueueCounts>({ ttlMs: QUEUE_COUNTS_TTL_MS, maxEntries: 1, load: () => readCounts() });

async function readCounts(): Promise<QueueCounts> {
  const [deliveries, jobs] = await Promise.all([countPendingDeliveries(new Date()), countUnfinishedJobs()]);
  return {
    deliveriesPending: deliveries.pending,
    deliveriesDue: deliveries.due,
    jobsQueued: jobs.queued,
    jobsRunning: jobs.running,
  };
}

const GAUGES: { name: string; help: string; of: keyof QueueCounts }[] = [
  {
    name: "webhook_deliveries_pending",
    help: "Webhook delivery attempts pending: due now or scheduled as a retry.",
    of: "deliveriesPending",
  },
  {
    name: "webhook_deliveries_due",
    help: "Pending webhook delivery attempts already due: the backlog the delivery workers have not reached.",
    of: "deliveriesDue",
  },
  { name: "jobs_queued", help: "Jobs (imports) waiting for a worker.", of: "jobsQueued" },
  { name: "jobs_running", help: "Jobs (imports) a worker holds.", of: "jobsRunning" },
];

/**
 * Registers the database gauges in the process's registry (once). A count the database does not
 * answer leaves the gauge at its last value and logs a warning: the scrape itself still answers.
 */
function installQueueGauges(): void {
  const { registry } = metrics();
  for (const { name, help, of } of GAUGES) {
    if (registry.getSingleMetric(name)) continue;
    new Gauge({
      name,
      help: `${help} Read from the database, at most every ${QUEUE_COUNTS_TTL_MS / 1000} s.`,
      registers: [registry],
      aggregator: "max",
      async collect() {
        try {
          this.set((await counts.fetch("queues", undefined))[of]);
        } catch (error) {
          log().warn({ err: error, metric: name }, "could not count for a metrics gauge");
        }
      },
    });
  }
}

/** At a server process's start (instrumentation.ts): the gauges, and its part in a cluster's metrics. */
export function startMetrics(): void {
  installQueueGauges();
  joinClusterMetrics();
}

/** A scrape's answer: the text and its content type. */
export async function scrape(): Promise<{ text: string; contentType: string }> {
  installQueueGauges();
  return { text: await metricsText(), contentType: METRICS_CONTENT_TYPE };
}
