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
import { withDevelopmentHeaders } from "./security-headers";

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
        ? async (request) =>
            withDevelopmentHeaders(
              request,
              new Response(null, { status: 204, headers: { Allow: allow, "Cache-Control": "no-store" } }),
            )
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
  const message = `${request.method} is not a method of this path; it has ${allow}.`;
  return refusal(request, new ServiceError("method_not_allowed", message, undefined, { Allow: allow }));
}

/**
 * Every method of a path under `/v2` or `/api` that no route serves (a catch-all route file):
 * `404 not_found` in the error shape, as an API client reads every other refusal, not the admin's
 * page "not found".
 */
export function noSuchPath(): Record<HttpMethod, RouteHandler> {
  const handler: RouteHandler = async (request) =>
    refusal(request, new ServiceError("not_found", "There is no such path in the API (see /v2/openapi.json)."));
  otherMethodHandlers.add(handler);
  return Object.fromEntries(HTTP_METHODS.map((method) => [method, handler])) as Record<HttpMethod, RouteHandler>;
}

/**
 * A refusal of the path or method itself, logged as one line, with the address's rate-limit
 * headers (and the security headers under `next dev`).
 */
function refusal(request: Request, error: ServiceError): Response {
  const requestId = requestIdOf(request.headers.get("x-request-id"));
  log().info(
    {
      requestId,
      method: request.method,
      path: new URL(request.url).pathname,
      status: error.status,
      code: error.code,
    },
    "request",
  );
  const response = errorResponse(error, requestId, undefined);
  setRateLimitHeaders(response, addressLimiter.state(`ip:${requestAddress(request)}`));
  return withDevelopmentHeaders(request, response);
}
