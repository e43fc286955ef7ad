/**
 * The methods a route module does not have: `405 method_not_allowed` in the error envelope with
 * `Allow`, and `OPTIONS` answering `204` with `Allow` (Next.js would answer a bare `405`, and list
 * these very handlers in its own `OPTIONS`).
 */
import { ServiceError } from "@/lib/kernel/errors";
import { log } from "@/lib/kernel/log";
import type { RouteHandler, RouteParams } from "./binding";
import { errorResponse } from "./error-response";
import { addressLimiter, requestAddress } from "./limits";
import { setRateLimitHeaders } from "./rate-limit";
import { requestIdOf } from "./request-id";

const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];
type Handlers = Partial<
  Record<HttpMethod, (request: Request, context: { params: RouteParams }) => Promise<Response> | Response>
>;
/** What a route module lacks; `HEAD` of a route with `GET` Next.js answers from `GET`. */
type OtherMethods<H> = Exclude<HttpMethod, keyof H | ("GET" extends keyof H ? "HEAD" : never)>;

const otherMethodHandlers = new WeakSet<object>();

/**
 * The handlers of the methods a route module does not have. Last line of a route file:
 *
 *   export const { OPTIONS, PUT, PATCH, DELETE } = otherMethods({ GET, POST });
 */
export function otherMethods<H extends Handlers>(handlers: H): Record<OtherMethods<H>, RouteHandler> {
  const has = new Set(HTTP_METHODS.filter((method) => handlers[method]));
  if (has.has("GET")) has.add("HEAD");
  has.add("OPTIONS");
  const allow = [...has].sort().join(", ");
  const result: Partial<Record<HttpMethod, RouteHandler>> = {};
  for (const method of HTTP_METHODS) {
    if (method === "OPTIONS" ? handlers.OPTIONS : has.has(method)) continue;
    const handler: RouteHandler =
      method === "OPTIONS"
        ? async () => new Response(null, { status: 204, headers: { Allow: allow, "Cache-Control": "no-store" } })
        : async (request) => methodNotAllowed(request, allow);
    otherMethodHandlers.add(handler);
    result[method] = handler;
  }
  return result as Record<OtherMethods<H>, RouteHandler>;
}

/** Whether a handler is one of {@link otherMethods}' (the OpenAPI document leaves them out). */
export function isOtherMethod(handler: unknown): boolean {
  return typeof handler === "function" && otherMethodHandlers.has(handler);
}

function methodNotAllowed(request: Request, allow: string): Response {
  const requestId = requestIdOf(request.headers.get("x-request-id"));
  const error = new ServiceError(
    "method_not_allowed",
    `${request.method} is not a method of this path; it has ${allow}.`,
    undefined,
    { Allow: allow },
  );
  log().info(
    { requestId, method: request.method, path: new URL(request.url).pathname, status: 405, code: error.code },
    "request",
  );
  const response = errorResponse(error, requestId, undefined);
  setRateLimitHeaders(response, addressLimiter.state(`ip:${requestAddress(request)}`));
  return response;
}
