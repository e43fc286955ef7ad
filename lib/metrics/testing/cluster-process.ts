/**
 * Child process of lib/metrics/cluster.test.ts: a cluster of two workers as a server's entry runs
 * them (the primary calls serveClusterMetrics(), each worker joinClusterMetrics()). Worker n records
 * n requests of one operation; once both have, the first one asks for the metrics as `/metrics`
 * would, and the primary prints that text on stdout and ends the cluster.
 * Usage: node --import tsx cluster-process.ts
 */
import cluster from "node:cluster";
import { recordRequest } from "../index";
import { joinClusterMetrics, metricsText, serveClusterMetrics } from "../cluster";

const WORKERS = 2;

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
  joinClusterMetrics();
  const n = cluster.worker!.id;
  for (let i = 0; i < n; i++) recordRequest("/v2/cluster-test", "GET", 200, 0.004);
  process.on("message", (message: { type?: string }) => {
    if (message.type !== "scrape") return;
    metricsText().then(
      (text) => process.send!({ type: "scraped", text }),
      (error: Error) => process.send!({ type: "scraped", error: error.message }),
    );
  });
  process.send!({ type: "recorded" });
}
