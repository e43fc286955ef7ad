/**
 * Child process of lib/base/metrics/cluster.test.ts: a cluster as a server's entry runs it (the primary
 * calls serveClusterMetrics(), each worker joinClusterMetrics() as it starts). Workers 1 and 2 join
 * and record n requests of one operation (n: the worker's id); worker 3 records 100 but never joins,
 * as a worker still starting. Once all have recorded, worker 1 asks for the metrics as `/metrics`
 * would, and the primary prints that text on stdout and ends the cluster.
 * Usage: node --import tsx cluster-process.ts
 */
import cluster from "node:cluster";
import { joinClusterMetrics, metricsText, serveClusterMetrics } from "../cluster";
import { recordRequest } from "../index";

const WORKERS = 3;

if (cluster.isPrimary) {
  serveClusterMetrics();
  let ready = 0;
  const workers = Array.from({ length: WORKERS }, () => cluster.fork());
  cluster.on("message", (_worker, message: { type?: string; text?: string; error?: string }) => {
    if (message.type === "recorded" && ++ready === WORKERS) workers[0].send({ type: "scrape" });
    if (message.type === "scraped") {
      if (message.error) console.error(message.error);
      else process.stdout.write(message.text ?? "");
      for (const worker of workers) worker.kill();
      process.exitCode = message.error ? 1 : 0;
    }
  });
} else {
  const n = cluster.worker!.id;
  if (n < 3) joinClusterMetrics();
  for (let i = 0; i < (n < 3 ? n : 100); i++) recordRequest("/v2/cluster-test", "GET", 200, 0.004);
  process.on("message", (message: { type?: string }) => {
    if (message.type !== "scrape") return;
    metricsText().then(
      (text) => process.send!({ type: "scraped", text }),
      (error: Error) => process.send!({ type: "scraped", error: error.message }),
    );
  });
  process.send!({ type: "recorded" });
}
