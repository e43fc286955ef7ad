/**
 * The process's Prometheus metrics (docs/deployment.md#metrics): one registry per process, with
 * the process's own metrics, and the few series the code records where it knows them: requests
 * (lib/platform/http/route.ts), database commands (lib/kernel/db), webhook delivery lag (lib/resources/webhooks/delivery.ts).
 * Gauges read from the database at scrape time are added by lib/resources/spanning/metrics.ts.
 *
 * Every label has a bounded set of values (an operation's path template, a method, a status code,
 * a driver command name), never a raw path or an id, so the number of series stays bounded
 * whatever the clients send.
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

/** Seconds; the embedded database answers most requests within a few milliseconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; the driver measures a command in whole milliseconds, so `0` is "under a millisecond". */
const COMMAND_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Seconds, from a fraction of a second (the nudged first attempt) to the last retries' hours. */
const LAG_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600];

export interface Metrics {
  registry: Registry;
  requests: Counter<"operation" | "method" | "status">;
  requestDuration: Histogram<"operation" | "method" | "status">;
  commandDuration: Histogram<"command">;
  commandFailures: Counter<"command">;
  deliveryLag: Histogram;
}

function create(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    requests: new Counter({
      name: "http_requests_total",
      help: "Requests answered by the API wrapper, by operation (its path template), method and status.",
      labelNames: ["operation", "method", "status"] as const,
      registers,
    }),
    requestDuration: new Histogram({
      name: "http_request_duration_seconds",
      help: "Time from a request reaching the API wrapper to its answer, by operation, method and status.",
      labelNames: ["operation", "method", "status"] as const,
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    commandDuration: new Histogram({
      name: "db_command_duration_seconds",
      help: "Database commands of this process's connection, by command name (failed ones included), as the driver times them.",
      labelNames: ["command"] as const,
      buckets: COMMAND_BUCKETS,
      registers,
    }),
    commandFailures: new Counter({
      name: "db_command_failures_total",
      help: "Database commands that failed (an error answer or no answer), by command name.",
      labelNames: ["command"] as const,
      registers,
    }),
    deliveryLag: new Histogram({
      name: "webhook_delivery_lag_seconds",
      help: "Time from an event's creation to its successful delivery to a webhook (retries included).",
      buckets: LAG_BUCKETS,
      registers,
    }),
  };
}

// On globalThis, so that every bundle of Next's server (and its dev reloads) records into the one
// registry of the process.
const holder = globalThis as typeof globalThis & { __usersurveysMetrics?: Metrics };

/** The process's metrics, created with the first call. */
export function metrics(): Metrics {
  holder.__usersurveysMetrics ??= create();
  return holder.__usersurveysMetrics;
}

/** Unbound routes' labels seen so far; past {@link MAX_ROUTE_LABELS}, further ones are `other`. */
const routeLabels = new Set<string>();
const MAX_ROUTE_LABELS = 32;

/**
 * The `operation` label of a request: the operation's path template when the route is bound to
 * one, else the route's path, which is fixed for the few unbound routes (`/api/auth/*`,
 * `/metrics`); capped all the same, since a path is what a client sends.
 */
export function operationLabel(template: string | undefined, pathname: string): string {
  if (template) return template;
  if (routeLabels.has(pathname)) return pathname;
  if (routeLabels.size >= MAX_ROUTE_LABELS || !/^[\w/.-]{1,64}$/.test(pathname)) return "other";
  routeLabels.add(pathname);
  return pathname;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Records one answered request. */
export function recordRequest(operation: string, method: string, status: number, seconds: number): void {
  const { requests, requestDuration } = metrics();
  const labels = { operation, method: METHODS.has(method) ? method : "other", status: String(status) };
  requests.inc(labels);
  requestDuration.observe(labels, seconds);
}

/** What the driver's command monitoring says of a command that ended (lib/kernel/db). */
export interface CommandOutcome {
  commandName: string;
  /** Milliseconds, as the driver measures them. */
  duration: number;
}

const COMMAND_NAME = /^[A-Za-z]{1,40}$/;

export function recordCommand(event: CommandOutcome, failed: boolean): void {
  const { commandDuration, commandFailures } = metrics();
  // Command names come from the driver, not from clients; checked anyway, as a label must stay bounded.
  const command = COMMAND_NAME.test(event.commandName) ? event.commandName : "other";
  if (event.duration >= 0) commandDuration.observe({ command }, event.duration / 1000);
  if (failed) commandFailures.inc({ command });
}

/** Records the delivery of an event created at `eventCreatedAt`, succeeded at `deliveredAt`. */
export function recordDeliveryLag(eventCreatedAt: Date, deliveredAt: Date): void {
  metrics().deliveryLag.observe(Math.max(0, (deliveredAt.getTime() - eventCreatedAt.getTime()) / 1000));
}
