/**
 * Metrics of a cluster of server processes (Node's `cluster`, `WEB_CONCURRENCY`): a scrape reaches
 * one worker, but must see them all (docs/deployment.md#metrics). The worker serving `/metrics`
 * asks the primary over IPC; the primary asks every worker that has joined for its registry,
 * aggregates them as prom-client's `AggregatorRegistry` does and sends the text back. Without a
 * cluster, the process's own registry is the answer.
 *
 * Only workers that have joined (at their start, instrumentation.ts) are asked, so a worker still
 * starting, as in a rolling restart, does not hold up a scrape.
 */
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";
import { metrics } from "./index";

/** A registry's metrics as it sends them over IPC. */
type RegistryJson = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;

const JOIN = "usersurveys:metrics-join";
/** A worker asks the primary for every worker's metrics. */
const SCRAPE = "usersurveys:metrics-scrape";
const SCRAPED = "usersurveys:metrics-scraped";
/** The primary asks a worker for its own registry. */
const COLLECT = "usersurveys:metrics-collect";
const COLLECTED = "usersurveys:metrics-collected";

/** How long the primary waits for every worker's registry. */
const COLLECT_TIMEOUT_MS = 5_000;
/** How long a worker waits for the primary's answer: longer than the primary waits for the workers. */
const SCRAPE_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 2_000;

type Message =
  | { type: typeof JOIN }
  | { type: typeof SCRAPE; id: number }
  | { type: typeof SCRAPED; id: number; text?: string; error?: string }
  | { type: typeof COLLECT; id: number }
  | { type: typeof COLLECTED; id: number; metrics?: RegistryJson; error?: string };

const MESSAGE_TYPES = new Set([JOIN, SCRAPE, SCRAPED, COLLECT, COLLECTED]);
const isMessage = (message: unknown): message is Message =>
  typeof message === "object" && message !== null && MESSAGE_TYPES.has((message as { type?: unknown }).type as string);

/** One scrape's collection: the registries received, and the workers still to answer. */
interface Collection {
  waitingFor: Set<number>;
  results: RegistryJson[];
  done: (error?: Error) => void;
}

let serving = false;

/**
 * Called once by the cluster's primary (lib/platform/cli/serve.ts), before it forks the workers: from then
 * on it answers a worker's request for the metrics of every worker, aggregated (counters and
 * histograms summed, the database gauges their maximum, see lib/resources/spanning/metrics.ts).
 */
export function serveClusterMetrics(): void {
  if (!cluster.isPrimary) throw new Error("serveClusterMetrics() runs in the cluster's primary.");
  if (serving) return;
  serving = true;
  const joined = new Set<Worker>();
  const collections = new Map<number, Collection>();
  let nextId = 0;

  const collect = (): Promise<string> => {
    const id = nextId++;
    const workers = [...joined].filter((worker) => worker.isConnected());
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          done(
            new Error(
              `${collection.waitingFor.size} of ${workers.length} server processes did not answer within ${COLLECT_TIMEOUT_MS / 1000} s`,
            ),
          ),
        COLLECT_TIMEOUT_MS,
      );
      const done = (error?: Error) => {
        if (!collections.delete(id)) return;
        clearTimeout(timer);
        if (error) reject(error);
        else AggregatorRegistry.aggregate(collection.results).metrics().then(resolve, reject);
      };
      const collection: Collection = { waitingFor: new Set(workers.map((worker) => worker.id)), results: [], done };
      collections.set(id, collection);
      for (const worker of workers) worker.send({ type: COLLECT, id } satisfies Message);
      if (workers.length === 0) done();
    });
  };

  cluster.on("message", (worker, message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === JOIN) {
      joined.add(worker);
    } else if (message.type === COLLECTED) {
      const collection = collections.get(message.id);
      if (!collection || !collection.waitingFor.delete(worker.id)) return;
      if (message.error !== undefined)
        return collection.done(new Error(`a server process could not collect its metrics: ${message.error}`));
      collection.results.push(message.metrics ?? []);
      if (collection.waitingFor.size === 0) collection.done();
    } else if (message.type === SCRAPE) {
      const reply = (answer: Message) => {
        if (worker.isConnected()) worker.send(answer);
      };
      collect().then(
        (text) => reply({ type: SCRAPED, id: message.id, text }),
        (error: unknown) =>
          reply({ type: SCRAPED, id: message.id, error: error instanceof Error ? error.message : String(error) }),
      );
    }
  });
  // A worker that ends is no longer waited for: the scrape answers without it.
  cluster.on("exit", (worker) => {
    joined.delete(worker);
    for (const collection of collections.values()) {
      if (collection.waitingFor.delete(worker.id) && collection.waitingFor.size === 0) collection.done();
    }
  });
}

const scrapes = new Map<
  number,
  { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }
>();
let nextScrape = 0;
let joined = false;

/**
 * Called once by each worker as it starts (instrumentation.ts): it tells the primary that it keeps
 * metrics, answers the primary's requests for them, and reads the primary's answers to its own.
 * Nothing outside a cluster worker.
 */
export function joinClusterMetrics(): void {
  if (!cluster.isWorker || !process.send || joined) return;
  joined = true;
  process.on("message", (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === COLLECT) {
      metrics()
        .registry.getMetricsAsJSON()
        .then(
          (json) => process.send!({ type: COLLECTED, id: message.id, metrics: json } satisfies Message),
          (error: unknown) =>
            process.send!({
              type: COLLECTED,
              id: message.id,
              error: error instanceof Error ? error.message : String(error),
            } satisfies Message),
        );
    } else if (message.type === SCRAPED) {
      const pending = scrapes.get(message.id);
      if (!pending) return;
      scrapes.delete(message.id);
      clearTimeout(pending.timer);
      if (message.text !== undefined) pending.resolve(message.text);
      else pending.reject(new Error(`the cluster's primary could not collect the metrics: ${message.error}`));
    }
  });
  process.send({ type: JOIN } satisfies Message);
}

/** The metrics in Prometheus' text format: every worker's, aggregated, in a cluster; else this process's. */
export async function metricsText(): Promise<string> {
  if (!cluster.isWorker || !process.send) return metrics().registry.metrics();
  joinClusterMetrics();
  const id = nextScrape++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      scrapes.delete(id);
      reject(
        new Error(
          `the cluster's primary did not answer the metrics request within ${SCRAPE_TIMEOUT_MS / 1000} s (does it call serveClusterMetrics()?)`,
        ),
      );
    }, SCRAPE_TIMEOUT_MS);
    scrapes.set(id, { resolve, reject, timer });
    process.send!({ type: SCRAPE, id } satisfies Message);
  });
}

/** The content type of {@link metricsText}: Prometheus' text format 0.0.4. */
export const METRICS_CONTENT_TYPE = AggregatorRegistry.PROMETHEUS_CONTENT_TYPE;
