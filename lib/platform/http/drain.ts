/**
 * How a server process stops taking connections and lets the ones it has end
 * (docs/deployment.md#processes-restarts-and-health), apart from Next.js so that a test can drain a
 * plain HTTP server in a real cluster (lib/platform/http/drain.test.ts).
 */
import cluster from "node:cluster";
import type http from "node:http";

/** The longest a drain waits for the requests in flight before it cuts them. */
export const DRAIN_MS = 20_000;

/** The message a worker sends once its server is closed, and the primary's answer (the same). */
const SERVER_CLOSED = "usersurveys:server-closed";

const isServerClosed = (message: unknown) =>
  typeof message === "object" && message !== null && (message as { type?: unknown }).type === SERVER_CLOSED;

/**
 * Closes `server` to new connections, ends its idle keep-alive connections (and each busy one once
 * its answer is out), and resolves once every connection has ended, or after `boundMs` when the
 * ones still open are cut (`onCut` is told first).
 *
 * In a cluster worker it also waits until the primary has read the close. Node's primary hands
 * each new connection to a worker over IPC and keeps it open until the worker takes it or gives
 * it back; one handed to a worker that has already exited is never answered, and its client waits
 * for its own timeout. Until the primary reads the worker's close it keeps handing connections to
 * it, and a primary that a loaded machine leaves without the CPU for a moment reads it late. Its
 * answer to the message sent after the close travels behind every connection it handed before
 * (one channel, in order), so by then each of those has been given back to another worker.
 */
export async function drainServer(
  server: http.Server,
  { boundMs = DRAIN_MS, onCut }: { boundMs?: number; onCut?: () => void } = {},
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const primaryRead = primaryReadClose(boundMs);
  // Keep-alive connections between requests end now; busy ones once their answer is out.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), boundMs)));
  if (await Promise.race([Promise.all([closed, primaryRead]).then(() => false), timedOut])) {
    onCut?.();
    server.closeAllConnections();
  }
  clearTimeout(timer);
  clearInterval(sweep);
}

/** In a cluster worker, resolves once the primary has answered a message sent after the close (see above). */
function primaryReadClose(boundMs: number): Promise<void> {
  if (!cluster.isWorker || !process.send || !process.connected) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off("message", answered);
      process.off("disconnect", done);
      resolve();
    };
    const answered = (message: unknown) => {
      if (isServerClosed(message)) done();
    };
    // A primary that stopped answering must not hold the drain past its bound.
    const timer = setTimeout(done, boundMs);
    process.on("message", answered);
    process.once("disconnect", done);
    process.send!({ type: SERVER_CLOSED }, undefined, {}, (error: Error | null) => {
      if (error) done();
    });
  });
}

/** In the cluster's primary: answers each worker's message that its server is closed (see {@link drainServer}). */
export function answerServersClosed(): void {
  cluster.on("message", (worker, message: unknown) => {
    if (!isServerClosed(message) || !worker.isConnected()) return;
    // A worker that exited meanwhile needs no answer: the callback keeps the failed send from throwing.
    worker.send({ type: SERVER_CLOSED }, undefined, () => undefined);
  });
}

/**
 * Makes the answer close its connection when the process is draining by the time its headers are
 * written: a keep-alive client then opens its next request elsewhere instead of on a connection the
 * drain is about to end.
 */
export function closeConnectionWhenDraining(response: http.ServerResponse, draining: () => boolean): void {
  const writeHead = response.writeHead;
  response.writeHead = function (this: http.ServerResponse, ...args: unknown[]) {
    if (draining()) this.shouldKeepAlive = false;
    return (writeHead as (...all: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof response.writeHead;
}
