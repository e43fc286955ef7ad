/**
 * Makes the socket's address reach the route handlers. Next.js gives a handler a `Request`
 * without the socket, and fills `X-Forwarded-For` from the socket only when the client sent
 * none, so a client could name any address it liked. Here the server appends the socket's
 * address to `X-Forwarded-For` on every request, before Next.js sees it, as a reverse proxy
 * does: the last entry is then always the peer's real address (lib/platform/http/client-address.ts).
 * instrumentation.ts installs it when the server starts.
 */
import { randomBytes } from "node:crypto";
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/** Node publishes here for every HTTP request, before the server's `request` listeners run. */
const REQUEST_START = "http.server.request.start";
/** Carries this process's secret on every request that got the socket's address appended. */
const STAMP_HEADER = "x-socket-address-stamp";
/** On globalThis: instrumentation and the route handlers are bundled apart, one process. */
const STAMP = Symbol.for("users-and-surveys.socket-address-stamp");

type Global = typeof globalThis & { [STAMP]?: string };

/**
 * What the address and scheme checks read of a request: its headers and URL. A `Request` is one;
 * the server entry passes Node's own headers without building a `Request` for each answer.
 */
export interface RequestHeads {
  readonly headers: { get(name: string): string | null };
  readonly url: string;
}

export function appendSocketAddress(
  { request, socket }: { request: IncomingMessage; socket: Socket },
  stamp: string,
): void {
  const address = socket.remoteAddress ?? "unknown";
  const forwarded = request.headers["x-forwarded-for"];
  request.headers["x-forwarded-for"] = forwarded ? `${forwarded}, ${address}` : address;
  request.headers[STAMP_HEADER] = stamp;
}

/** Once per process: every request this process's HTTP servers receive gets the socket's address. */
export function installSocketAddress(): void {
  const global = globalThis as Global;
  if (global[STAMP]) return;
  const stamp = randomBytes(16).toString("hex");
  global[STAMP] = stamp;
  subscribe(REQUEST_START, (message) =>
    appendSocketAddress(message as { request: IncomingMessage; socket: Socket }, stamp),
  );
}

/**
 * Whether the last `X-Forwarded-For` entry is the socket's: `true` when it was appended, and when
 * this process appends none (tests and other hosts that call the handlers); `false` for a request
 * that reached the server before the appending began, whose header the client may have written.
 */
export function hasSocketAddress(request: RequestHeads): boolean {
  const stamp = (globalThis as Global)[STAMP];
  return stamp === undefined || request.headers.get(STAMP_HEADER) === stamp;
}
