/**
 * Metrics of a cluster of server processes (Node's `cluster`, `WEB_CONCURRENCY`): a scrape reaches
 * one worker, but must see them all (docs/deployment.md#metrics). The worker serving `/metrics`
 * asks the primary over IPC; the primary asks every worker for its registry (prom-client's
 * `AggregatorRegistry`), adds them up and sends the text back. Without a cluster, the process's
 * own registry is the answer.
 */
import cluster from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import { metrics } from "./index";

const REQUEST = "usersurveys:metrics-request";
const ANSWER = "usersurveys:metrics-answer";
/** Longer than the primary's own wait for every worker (prom-client's 5 s). */
const ANSWER_TIMEOUT_MS = 7_000;

interface Request {
  type: typeof REQUEST;
  id: number;
}
type Answer = { type: typeof ANSWER; id: number; text: string } | { type: typeof ANSWER; id: number; error: string };

const isRequest = (message: unknown): message is Request => typeof message === "object" && message !== null && (message as Request).type === REQUEST;
const isAnswer = (message: unknown): message is Answer => typeof message === "object" && message !== null && (message as Answer).type === ANSWER;

let serving = false;

/**
 * Called once by the cluster's primary, before it forks the workers: from then on it answers a
 * worker's request for the metrics of every worker, aggregated (counters and histograms summed,
 * the database gauges their maximum).
 */
export function serveClusterMetrics(): void {
  if (!cluster.isPrimary) throw new Error("serveClusterMetrics() runs in the cluster's primary.");
  if (serving) return;
  serving = true;
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: unknown) => {
    if (!isRequest(message)) return;
    const reply = (answer: Answer) => {
      if (worker.isConnected()) worker.send(answer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ type: ANSWER, id: message.id, text }),
      (error: unknown) => reply({ type: ANSWER, id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
let nextId = 0;
let joined = false;

/**
 * Called once by each worker as it starts (instrumentation.ts): it answers the primary's requests
 * with its registry, and reads the primary's answers to its own. Nothing outside a cluster worker.
 */
export function joinClusterMetrics(): void {
  if (!cluster.isWorker || joined) return;
  joined = true;
  AggregatorRegistry.setRegistries([metrics().registry]);
  // Constructing one installs prom-client's answer to the primary's requests in this worker.
  new AggregatorRegistry();
  process.on("message", (message: unknown) => {
    if (!isAnswer(message)) return;
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    clearTimeout(pending.timer);
    if ("text" in message) pending.resolve(message.text);
    else pending.reject(new Error(`the cluster's primary could not collect the workers' metrics: ${message.error}`));
  });
}

/** The metrics in Prometheus' text format: every worker's, aggregated, in a cluster; else this process's. */
export async function metricsText(): Promise<string> {
  if (!cluster.isWorker || !process.send) return metrics().registry.metrics();
  joinClusterMetrics();
  const id = nextId++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the cluster's primary did not answer the metrics request within ${ANSWER_TIMEOUT_MS / 1000} s (does it call serveClusterMetrics()?)`));
    }, ANSWER_TIMEOUT_MS);
    waiting.set(id, { resolve, reject, timer });
    process.send!({ type: REQUEST, id } satisfies Request);
  });
}

/** The content type of {@link metricsText}: Prometheus' text format 0.0.4. */
export const METRICS_CONTENT_TYPE = AggregatorRegistry.PROMETHEUS_CONTENT_TYPE;
