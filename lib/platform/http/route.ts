/**
 * The one wrapper of every `/v2` route handler (and of `/api/auth/*`): request id, bearer token or
 * API key, per-caller rate limit with its headers, the Admin rule and scopes, JSON body limits, zod
 * validation of path, query and body, idempotent creates, debug notifications, the error table
 * (docs/api.md#errors) and one log line per request.
 *
 * An operation declared in its resource's contract (lib/base/schemas/operation.ts) is bound with `handle`;
 * `route` and `publicRoute` serve the routes the OpenAPI document does not describe.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { loadConfig } from "@/lib/base/config";
import type { Operation, RouteOptions } from "@/lib/base/schemas/operation";
import { DatabaseUnavailableError, isDatabaseUnavailable } from "@/lib/kernel/db";
import type { ErrorBody, ErrorDetail } from "@/lib/base/schemas/common";
import type { Principal } from "@/lib/kernel/principal";
import { isDuplicateKeyError, ServiceError } from "@/lib/kernel/errors";
import { ready } from "@/lib/platform/startup/ready";
import { log } from "@/lib/kernel/log";
import { operationLabel, recordRequest } from "@/lib/base/metrics";
import { Notes } from "@/lib/kernel/notes";
import { withRequestContext } from "@/lib/kernel/request-context";
import { readJsonBody } from "./body";
import { addressKey, clientAddress } from "./client-address";
import { addNextLink } from "./paging";
import { debugFlag, parseQuery } from "@/lib/kernel/query";
import { authenticate, authorize, type Caller } from "./authenticate";
import { idempotencyKey, idempotent } from "./idempotency";
import { RateLimitedError, type RateState, setRateLimitHeaders, SharedRateLimiter, tighter } from "./rate-limit";

export { bearerToken } from "./authenticate";

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;


export interface PublicContext<Q, B, P> {
  request: Request;
  requestId: string;
  params: P;
  query: Q;
  body: B;
  notes: Notes;
}

export interface Context<Q, B, P> extends PublicContext<Q, B, P> {
  auth: Principal;
}

/** A handler's answer other than a plain `200` JSON body. */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** `201 Created` with a `Location` header (docs/api.md#errors). */
export const created = (body: unknown, location: string) => new Reply(body, 201, { Location: location });

/** `204 No Content`: the operation was done and has nothing to show. */
export const noContent = () => new Reply(null, 204);

/**
 * `201 Created` of a new record: its `Location` is the path it was created at followed by its id,
 * and with `tagOf` it carries its `ETag` (docs/api.md#conditional-requests) like every later read.
 */
export function createdRecord<T extends { _id: string }>(path: string, record: T, tagOf?: (record: T) => string): Reply {
  return new Reply(record, 201, { Location: `${path}/${record._id}`, ...(tagOf ? { ETag: tagOf(record) } : {}) });
}

type RouteParams = Promise<Record<string, string | string[] | undefined>>;

export type RouteHandler = (request: Request, context?: { params: RouteParams }) => Promise<Response>;

declare const answers: unique symbol;
/**
 * A handler bound to an operation by `handle`; its type also carries what a success answers (the
 * operation's response schema), for the route tests (lib/tools/testing/http.ts) to read it typed.
 */
export type BoundHandler<A> = RouteHandler & { readonly [answers]?: A };
/** What a success of the handler answers: `unknown` for one not bound to an operation. */
export type AnswerOf<H> = H extends BoundHandler<infer A> ? A : unknown;

/** A `/v2` route: bearer token required, rate-limited per session. */
export function route<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
>(options: RouteOptions<Q, B, P>, handler: (context: Context<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown): RouteHandler {
  return wrap(options, true, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown);
}

/** A route without a bearer token (sign-in, invitations): rate-limited per client address. */
export function publicRoute<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
>(options: Omit<RouteOptions<Q, B, P>, "admin">, handler: (context: PublicContext<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown): RouteHandler {
  return wrap(options, false, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown);
}

const bound = new WeakMap<RouteHandler, Operation>();

/** The route handler of an operation: the route wrapper (lib/platform/http/route.ts) with its schemas and rules. */
export function handle<Q extends z.ZodObject | undefined, B extends z.ZodType | undefined, P extends z.ZodObject | undefined, R extends z.ZodObject | undefined>(
  operation: Operation<Q, B, P, true, R>,
  handler: (context: Context<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown,
): BoundHandler<Infer<R>>;
export function handle<Q extends z.ZodObject | undefined, B extends z.ZodType | undefined, P extends z.ZodObject | undefined, R extends z.ZodObject | undefined>(
  operation: Operation<Q, B, P, false, R>,
  handler: (context: PublicContext<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown,
): BoundHandler<Infer<R>>;
export function handle(operation: Operation, handler: (context: Context<unknown, unknown, unknown>) => unknown): RouteHandler {
  const routeHandler = operation.authenticated ? route(operation, handler) : publicRoute(operation, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown);
  bound.set(routeHandler, operation);
  return routeHandler;
}

/** A handler made by `handle` whose every answer passes through `after`: still the operation's handler. */
export function withAnswer<H extends RouteHandler>(handler: H, after: (request: Request, response: Response) => void): H {
  const wrapped = async (request: Request, context?: { params: RouteParams }) => {
    const response = await handler(request, context);
    after(request, response);
    return response;
  };
  const operation = bound.get(handler);
  if (operation) bound.set(wrapped, operation);
  // The same operation, so the same answer: only the type's phantom member differs.
  return wrapped as H;
}

/** The operation a handler made by `handle` serves; `undefined` for any other. */
export function operationOf(handler: unknown): Operation | undefined {
  return typeof handler === "function" ? bound.get(handler as RouteHandler) : undefined;
}

const perMinute = () => loadConfig().rateLimitPerMinute;
// Every budget is shared by the server processes over the database (docs/security.md#rate-limits).
/** Each caller's (a session or an API key). */
const callerLimiter = new SharedRateLimiter(perMinute);
/** All callers of one company together: minting more keys does not multiply the rate. */
const companyLimiter = new SharedRateLimiter(() => loadConfig().companyRateLimitPerMinute);
/** The routes without a token, per client address. */
const addressLimiter = new SharedRateLimiter(perMinute);
/** Refused tokens and session cookies per client address: 30 a minute, then `429` instead of `401`. */
export const REFUSED_CREDENTIALS_PER_MINUTE = 30;
const refusedCredentials = new SharedRateLimiter(() => REFUSED_CREDENTIALS_PER_MINUTE);

const REQUEST_ID = /^[\w.:-]{1,128}$/;

function wrap(
  options: RouteOptions<z.ZodObject | undefined, z.ZodType | undefined, z.ZodObject | undefined>,
  authenticated: boolean,
  handler: (context: PublicContext<unknown, unknown, unknown>) => unknown,
): RouteHandler {
  // The `operation` label of the request metrics: an operation's path template (docs/deployment.md#metrics).
  const template = "path" in options && typeof options.path === "string" ? options.path : undefined;
  return async (request, routeContext) => {
    const started = performance.now();
    const incomingId = request.headers.get("x-request-id");
    const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const url = new URL(request.url);
    const notes = new Notes();
    const { debug, error: debugError } = debugFlag(url.searchParams);
    let principal: Principal | undefined;
    let caller: Caller | undefined;
    let rate: RateState | undefined;
    let response: Response;
    let failure: unknown;

    try {
      if (debugError) throw new ServiceError("invalid_request", "The request is not valid.", [debugError]);
      await ready();

      if (authenticated) {
        caller = await authenticate(request);
        principal = caller.principal;
        rate = await callerLimiter.take(caller.id);
        if (!rate.allowed) throw new RateLimitedError(rate);
        const company = await companyLimiter.take(`company:${principal.companyId}`);
        if (!company.allowed) throw new RateLimitedError(company);
        rate = tighter(rate, company);
        await authorize(request, principal, options);
      } else {
        rate = await addressLimiter.take(`ip:${requestAddress(request)}`);
        if (!rate.allowed) throw new RateLimitedError(rate);
      }
      const key = caller ? idempotencyKey(request) : undefined;

      const params = await parseParams(options.params, routeContext);
      const body = options.body ? await readBody(request, options.ignoreBodyFields ?? [], notes) : undefined;
      const query = parseQuery(url.searchParams, options.query);
      for (const name of query.unknown) notes.warning("unknown_parameter", `The query parameter "${name}" is not known and was ignored.`, name);

      const details: ErrorDetail[] = [...query.errors];
      const queryResult = options.query?.safeParse(query.input);
      if (queryResult && !queryResult.success) details.push(...issueDetails(queryResult.error.issues));
      const bodyResult = options.body?.safeParse(body);
      if (bodyResult && !bodyResult.success) details.push(...issueDetails(bodyResult.error.issues, "body"));
      if (details.length > 0) throw new ServiceError("invalid_request", "The request is not valid.", details);

      // The audit log keeps the whole address the limits see (an IPv6 address, not its /64).
      const context = { requestId, principal, ip: clientAddress(request, loadConfig().trustProxy), userAgent: request.headers.get("user-agent") ?? undefined };
      const run = async () => {
        const work = withRequestContext(context, () => handler({
          request,
          requestId,
          params,
          query: queryResult?.data,
          body: bodyResult?.data,
          notes,
          ...(principal ? { auth: principal } : {}),
        }));
        const result = await withinDeadline(Promise.resolve(work), requestId);
        const answer = success(result, requestId, debug ? notes : undefined);
        addNextLink(answer, url, result instanceof Reply ? result.body : result, options.nextParam);
        return answer;
      };
      response = key && caller ? await idempotent({ caller: caller.id, key, request, body, requestId, secretFields: options.secretFields }, run) : await run();
    } catch (error) {
      failure = options.throttlesOwnCredentials ? error : await countRefusedCredentials(request, error);
      response = errorResponse(failure, requestId, debug ? notes : undefined);
    }
    // The budget this request counted against (the one that refused it, for a 429, whose
    // Retry-After it repeats); before a caller is known, its address's.
    const address = `ip:${requestAddress(request)}`;
    if (failure instanceof RateLimitedError) setRateLimitHeaders(response, failure.state, failure.windowSeconds);
    else setRateLimitHeaders(response, rate ?? (authenticated ? refusedCredentials.state(`refused:${requestAddress(request)}`) : addressLimiter.state(address)));

    const elapsed = performance.now() - started;
    recordRequest(operationLabel(template, url.pathname), request.method, response.status, elapsed / 1000);
    const fields = {
      requestId,
      method: request.method,
      path: url.pathname,
      status: response.status,
      ms: Math.round(elapsed * 10) / 10,
      user: principal?.userId,
      company: principal?.companyId,
    };
    // Only a failure of ours carries the error and its stack; a client's bad input (4xx) is one
    // line with its code, however hostile the input; a database out of reach is a warning.
    if (response.status === 503) log().warn({ ...fields, code: "service_unavailable", reason: failure instanceof Error ? failure.message : undefined }, "database unavailable");
    else if (response.status >= 500) log().error({ ...fields, err: failure }, "request failed");
    else log().info(failure instanceof ServiceError ? { ...fields, code: failure.code } : fields, "request");
    return response;
  };
}

/**
 * A refused token or session cookie counts against the client address; once the address has
 * spent its budget, the answer is `429` instead of `401`, so that guessing or replaying tokens
 * is slowed while valid tokens from the same address keep working.
 */
async function countRefusedCredentials(request: Request, error: unknown): Promise<unknown> {
  if (!(error instanceof ServiceError) || error.code !== "unauthorized") return error;
  try {
    const state = await refusedCredentials.take(`refused:${requestAddress(request)}`);
    return state.allowed ? error : new RateLimitedError(state);
  } catch (counting) {
    // The database is away: the 401 stands (it cannot be guessed faster while nothing answers).
    return isDatabaseUnavailable(counting) ? error : counting;
  }
}

/** The client's address as per-address limits count it (lib/platform/http/client-address.ts, `TRUST_PROXY`). */
export function requestAddress(request: Request): string {
  return addressKey(clientAddress(request, loadConfig().trustProxy));
}

async function parseParams(schema: z.ZodObject | undefined, context: { params: RouteParams } | undefined): Promise<unknown> {
  if (!schema) return undefined;
  const raw = (await context?.params) ?? {};
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new ServiceError(
    "invalid_id",
    "The id in the path is not a 24-hex ObjectId.",
    issueDetails(result.error.issues),
  );
}

async function readBody(request: Request, ignored: readonly string[], notes: Notes): Promise<unknown> {
  const body = await readJsonBody(request);
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    for (const field of ignored) {
      if (Object.hasOwn(body, field)) {
        delete (body as Record<string, unknown>)[field];
        notes.warning("ignored_field", `The field "${field}" is set by the service; the value sent was ignored.`, field);
      }
    }
  }
  return body;
}

/** One detail per bad field; an unknown key is named by its own path. */
function issueDetails(issues: z.core.$ZodIssue[], root = ""): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) details.push({ path: [...base, key].join("."), message: "is not a known field" });
    } else {
      details.push({ path: base.length > 0 ? base.join(".") : root || "(value)", message: issue.message });
    }
  }
  return details;
}

/**
 * The last guard against a request that never ends: each database operation is bounded
 * (DATABASE_TIMEOUT_MS), so a handler still running after twice that is stuck somewhere no bound
 * reaches. It answers 503 and logs the request, while the work itself may still finish
 * (docs/security.md#availability).
 */
export function withinDeadline<T>(work: Promise<T>, requestId: string): Promise<T> {
  const ms = 2 * loadConfig().databaseTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      log().error({ requestId, ms }, "request outlived its deadline");
      reject(new DatabaseUnavailableError(`The request did not finish within ${ms} ms.`));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function success(result: unknown, requestId: string, notes: Notes | undefined): Response {
  const reply = result instanceof Reply ? result : new Reply(result);
  if (reply.body instanceof Response) return reply.body;
  if (reply.status === 204 || reply.status === 304) {
    return new Response(null, { status: reply.status, headers: { "Cache-Control": "no-store", "X-Request-Id": requestId, ...reply.headers } });
  }
  let body = reply.body ?? {};
  if (notes && typeof body === "object" && !Array.isArray(body)) body = { ...body, debug: notes.list };
  return json(body, reply.status, requestId, reply.headers);
}

function errorResponse(error: unknown, requestId: string, notes: Notes | undefined): Response {
  let failure: ServiceError;
  if (error instanceof ServiceError) failure = error;
  else if (isDuplicateKeyError(error)) failure = new ServiceError("conflict", "A record with these values already exists.");
  else if (isDatabaseUnavailable(error)) failure = databaseUnavailable();
  else failure = new ServiceError("internal", "Something went wrong on our side. Quote the request id when reporting it.");

  const body: ErrorBody = {
    error: {
      status: failure.status,
      code: failure.code,
      message: failure.message,
      ...(failure.details ? { details: failure.details } : {}),
      requestId,
    },
  };
  if (notes) {
    if (failure.details?.length) {
      for (const detail of failure.details) notes.error(failure.code, detail.message, detail.path);
    } else {
      notes.error(failure.code, failure.message);
    }
    body.debug = notes.list;
  }
  return json(body, failure.status, requestId, failure.headers ?? {});
}

/** Seconds a client should wait before retrying while the database is away (it restarts within seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** `503 service_unavailable` with `Retry-After`: the database does not answer now. */
export function databaseUnavailable(): ServiceError {
  return new ServiceError("service_unavailable", "The database is not available at the moment; try again shortly.", undefined, {
    "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS),
  });
}

function json(body: unknown, status: number, requestId: string, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Request-Id": requestId,
      ...headers,
    },
  });
}

const HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];
type Handlers = Partial<Record<HttpMethod, (request: Request, context: { params: RouteParams }) => Promise<Response> | Response>>;
/** What a route module lacks; `HEAD` of a route with `GET` Next.js answers from `GET`. */
type OtherMethods<H> = Exclude<HttpMethod, keyof H | ("GET" extends keyof H ? "HEAD" : never)>;

const otherMethodHandlers = new WeakSet<object>();

/**
 * The handlers of the methods a route module does not have: `405 method_not_allowed` in the
 * error shape with `Allow`, and `OPTIONS` answering `204` with `Allow` (Next.js would answer a
 * bare `405`, and list these very handlers in its own `OPTIONS`). Last line of a route file:
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
  const incomingId = request.headers.get("x-request-id");
  const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
  const error = new ServiceError("method_not_allowed", `${request.method} is not a method of this path; it has ${allow}.`, undefined, { Allow: allow });
  log().info({ requestId, method: request.method, path: new URL(request.url).pathname, status: 405, code: error.code }, "request");
  const response = errorResponse(error, requestId, undefined);
  setRateLimitHeaders(response, addressLimiter.state(`ip:${requestAddress(request)}`));
  return response;
}
