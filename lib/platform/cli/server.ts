/**
 * The server entry: one HTTP server process in front of Next.js' request handler
 * (docs/architecture.md#processes). `lib/platform/cli/serve.ts` runs WEB_CONCURRENCY of them on one port
 * (Node's cluster); the end-to-end runs start one alone.
 *
 * Before Next.js sees a request it refuses what Next.js would answer with a bare `500` (a
 * malformed path, a method it does not know: lib/platform/http/edge.ts), and every answer carries the
 * security headers, `X-Request-Id` and one log line, whoever wrote it. On SIGTERM or SIGINT it
 * drains (lib/base/shared/shutdown.ts, lib/platform/http/drain.ts): no new connection (and, in a
 * cluster, none still on its way from the primary), readiness `503`, the requests in flight end
 * (within DRAIN_MS), the background loops give their leases back, the database connection closes,
 * exit 0.
 */
import { loadConfig, settleConfig } from "@/lib/base/config";
import { isDraining, ownShutdown, runShutdown, startDraining } from "@/lib/base/shared/shutdown";
import { log } from "@/lib/kernel/log";
import { closeConnectionWhenDraining, DRAIN_MS, drainServer } from "@/lib/platform/http/drain";
import {
  ALLOW,
  answersJson,
  BAD_REQUEST_PAGE,
  edgeSecurityHeaders,
  refusalOf,
  writeError,
} from "@/lib/platform/http/edge";
import { requestIdOf } from "@/lib/platform/http/request-id";
import { installSocketAddress } from "@/lib/platform/http/socket-address";
import next from "next";
import http from "node:http";
import type { Socket } from "node:net";
import path from "node:path";

const root = path.resolve(__dirname, "..", "..", "..");

export interface ServerOptions {
  port: number;
  hostname?: string;
  /** The project folder holding `.next`. */
  dir?: string;
}

export interface EdgeServer {
  server: http.Server;
  /** Drains and closes (see the file's comment); resolves once every stop has run. */
  drain(): Promise<void>;
}

/** Loads the production build and serves it on `port`; resolves once it listens. */
export async function startServer(options: ServerOptions): Promise<EdgeServer> {
  ownShutdown();
  installSocketAddress();
  const config = loadConfig();
  const app = next({
    dev: false,
    dir: options.dir ?? root,
    port: options.port,
    hostname: options.hostname ?? "localhost",
  });
  await app.prepare();
  const handler = app.getRequestHandler();

  // Node's own answer to an HTTP/1.1 request without Host is a bare 400: the entry answers it instead.
  const server = http.createServer({ requireHostHeader: false }, (request, response) => {
    void answer(request, response);
  });

  async function answer(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = requestIdOf(request.headers["x-request-id"]);
    // The routes echo a sane incoming id: this makes theirs ours.
    request.headers["x-request-id"] = requestId;
    const target = request.url ?? "/";
    const method = request.method ?? "";
    const json = answersJson(target);
    const security = edgeSecurityHeaders(request, config.trustProxy);
    // The path without its query string, which may hold e-mails (docs/api.md#request-ids-and-logs).
    response.once("finish", () => {
      const status = response.statusCode;
      const line = {
        requestId,
        method: method.slice(0, 32),
        path: target.split("?", 1)[0].slice(0, 2048),
        status,
        ms: Math.round(performance.now() - started),
      };
      if (status >= 500) log().error(line, "answer");
      else log().info(line, "answer");
    });
    // An answer written while draining closes its connection, even for a request taken before.
    closeConnectionWhenDraining(response, isDraining);

    const refusal = refusalOf(method, target, { missingHost: request.httpVersion === "1.1" && !request.headers.host });
    if (refusal && (refusal.status !== 400 || json || (method !== "GET" && method !== "HEAD"))) {
      writeError(response, { ...refusal, requestId, json, security });
      return;
    }
    for (const [name, value] of Object.entries(security)) response.setHeader(name, value);
    response.setHeader("X-Request-Id", requestId);
    if (refusal) {
      // A page's malformed address gets the shell's own page, rendered by Next.js, as a 400.
      request.url = BAD_REQUEST_PAGE;
      forceStatus(response, 400);
    }
    try {
      await handler(request, response);
    } catch (error) {
      log().error({ requestId, err: error }, "the request handler failed");
      if (response.headersSent) response.destroy();
      else
        writeError(response, {
          status: 500,
          code: "internal_error",
          message: "The server failed to answer this request.",
          requestId,
          json,
          security,
        });
    }
  }

  // A request Node's parser refuses (a method token it does not know, a bad header) never reaches
  // the handler: answered here in the same way, then the connection closes.
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    const requestId = requestIdOf(undefined);
    const unknownMethod = error.code === "HPE_INVALID_METHOD";
    const status = unknownMethod ? 405 : error.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
    const first = error.rawPacket?.toString("latin1").split(/[\s/]/, 1)[0] ?? "";
    const body = JSON.stringify({
      error: {
        status,
        code: unknownMethod ? "method_not_allowed" : "invalid_request",
        message: unknownMethod
          ? `This server serves ${ALLOW}.`
          : status === 431
            ? "The request's headers are too large."
            : "The request is not valid HTTP.",
        requestId,
      },
    });
    const headers = {
      ...edgeSecurityHeaders({ headers: {} } as http.IncomingMessage, config.trustProxy),
      "Cache-Control": "no-store",
      "Content-Type": "application/json",
      "Content-Length": String(Buffer.byteLength(body)),
      "X-Request-Id": requestId,
      Connection: "close",
      ...(unknownMethod ? { Allow: ALLOW } : {}),
    };
    const reason =
      status === 405 ? "Method Not Allowed" : status === 431 ? "Request Header Fields Too Large" : "Bad Request";
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join("\r\n")}\r\n\r\n${body}`,
    );
    log().info(
      { requestId, method: first.replace(/[^\x21-\x7e]/g, "?").slice(0, 32), status, code: error.code },
      "answer",
    );
  });
  // CONNECT is a method Node hands to this event, not to the handler: refused like any other.
  server.on("connect", (request: http.IncomingMessage, socket: Socket) => {
    const response = new http.ServerResponse(request);
    response.assignSocket(socket);
    response.once("finish", () => socket.end());
    const requestId = requestIdOf(request.headers["x-request-id"]);
    writeError(response, {
      ...refusalOf("CONNECT", "/")!,
      requestId,
      json: true,
      security: edgeSecurityHeaders(request, config.trustProxy),
    });
    log().info({ requestId, method: "CONNECT", status: 405 }, "answer");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.hostname, () => {
      server.off("error", reject);
      resolve();
    });
  });

  let draining: Promise<void> | undefined;
  const drain = () => {
    draining ??= (async () => {
      startDraining();
      await drainServer(server, {
        onCut: () =>
          log().warn({ ms: DRAIN_MS }, "requests still in flight after the drain's bound; closing their connections"),
      });
      log().info({ pid: process.pid }, "the requests in flight ended");
      await runShutdown((error) => log().error({ err: error }, "a stop failed while draining"));
    })();
    return draining;
  };
  return { server, drain };
}

/** Makes the answer's status `status` whatever Next.js sets (the bad-request page renders as a normal page). */
function forceStatus(response: http.ServerResponse, status: number): void {
  Object.defineProperty(response, "statusCode", { get: () => status, set: () => undefined, configurable: true });
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => http.ServerResponse;
  response.writeHead = ((_status: number, ...rest: unknown[]) =>
    writeHead(status, ...rest)) as typeof response.writeHead;
}

/** Run as a process (a cluster worker of serve.ts, or alone): serves PORT until SIGTERM or SIGINT. */
if (require.main === module) {
  const config = loadConfig();
  startServer({ port: config.port }).then(
    ({ drain }) => {
      settleConfig();
      const stop = (signal: NodeJS.Signals) => {
        log().info({ signal, pid: process.pid }, "draining");
        drain().then(
          () => process.exit(0),
          (error: unknown) => {
            log().error({ err: error }, "the drain failed");
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    },
    (error: unknown) => {
      console.error("The server did not start:", error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
