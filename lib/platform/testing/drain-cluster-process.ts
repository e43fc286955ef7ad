/**
 * A cluster of two plain HTTP servers that drain on SIGTERM as the server entry does
 * (lib/platform/http/drain.ts), its primary answering as lib/platform/cli/serve.ts does; for
 * lib/platform/http/drain.test.ts. The primary prints one JSON line per event on stdout. A line
 * "lag" on its stdin makes it stand for a primary that a loaded machine leaves without the CPU: it
 * says "lagging" and its event loop stands still until the line "connected" (the test's
 * connections wait in the port's queue meanwhile), then it sends SIGTERM to its first worker and
 * stands still until that worker has exited, or for 2 s (a worker that waits for the primary).
 */
import { answerServersClosed, drainServer } from "@/lib/platform/http/drain";
import cluster, { type Worker } from "node:cluster";
import { readFileSync, readSync } from "node:fs";
import http from "node:http";
import { createInterface } from "node:readline";

const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
/** Reads stdin without the event loop (which stands still) until `line` has come. */
function waitForLine(line: string): void {
  const buffer = Buffer.alloc(64);
  let text = "";
  while (!text.split("\n").includes(line)) {
    try {
      text += buffer.toString("utf8", 0, readSync(0, buffer));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
    }
  }
}
/** Whether the process has exited (a zombie its parent has not yet reaped counts). */
function exited(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
  } catch {
    return true;
  }
}

if (cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_RR;
  answerServersClosed();
  const workers: Worker[] = [cluster.fork(), cluster.fork()];
  let listening = 0;
  let port = 0;
  for (const worker of workers) {
    worker.once("listening", (address) => {
      port = address.port;
      if (++listening === workers.length) say({ ready: port, workers: workers.map((each) => each.process.pid) });
    });
    worker.once("exit", (code) => say({ exited: worker.process.pid, code }));
  }
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (line !== "lag") return;
    say({ lagging: true });
    waitForLine("connected");
    workers[0].process.kill("SIGTERM");
    const until = Date.now() + 2_000;
    while (Date.now() < until && !exited(workers[0].process.pid!)) {
      // The event loop stands still, as in a primary given no CPU.
    }
    say({ resumed: true, firstExited: exited(workers[0].process.pid!) });
  });
  process.on("SIGTERM", () => {
    for (const worker of workers) worker.process.kill("SIGKILL");
    process.exit(0);
  });
} else {
  const server = http.createServer((_request, response) => response.end(String(process.pid)));
  server.listen(0);
  process.on("SIGTERM", () => {
    void drainServer(server).then(() => process.exit(0));
  });
}
