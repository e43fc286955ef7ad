/**
 * The one wrapper of every `/v2` route handler (and of `/api/auth/*`): request id, bearer token or
 * API key, per-caller rate limit with its headers, the Admin rule and scopes, JSON body limits, zod
 * validation of path, query and body, idempotent creates, debug notifications, the error table
 * (docs/api.md#errors) and one log line per request.
 *
 * An operation declared in its resource's contract (lib/base/schemas/operation.ts) is bound with `handle`;
 * `route` and `publicRoute` serve the routes the OpenAPI document does not describe. What the
 * wrapper calls is beside it: reply.ts (answers), error-response.ts (the error table), input.ts
 * (params, body, zod's issues), limits.ts (the rate budgets), deadline.ts, methods.ts (`405`s and
 * `OPTIONS`), binding.ts (which operation a handler serves).
 */
import { loadConfig } from "@/lib/base/config";
import { operationLabel, recordRequest } from "@/lib/base/metrics";
import type { ErrorDetail } from "@/lib/base/schemas/common";
import type { Operation, RouteOptions } from "@/lib/base/schemas/operation";
import { ServiceError } from "@/lib/kernel/errors";
import { log } from "@/lib/kernel/log";
import { Notes } from "@/lib/kernel/notes";
import type { Principal } from "@/lib/kernel/principal";
import { debugFlag, parseQuery } from "@/lib/kernel/query";
import { withRequestContext } from "@/lib/kernel/request-context";
import { ready } from "@/lib/platform/startup/ready";
import type { z } from "zod";
import { authenticate, authorize, type Caller } from "./authenticate";
import { bind, type BoundHandler, type RouteHandler } from "./binding";
import { clientAddress } from "./client-address";
import { withinDeadline } from "./deadline";
import { errorResponse } from "./error-response";
import { idempotencyKey, idempotent } from "./idempotency";
import { issueDetails, parseParams, readBody } from "./input";
import {
  addressLimiter,
  callerLimiter,
  companyLimiter,
  countRefusedCredentials,
  refusedCredentials,
  requestAddress,
} from "./limits";
import { addNextLink } from "./paging";
import { RateLimitedError, type RateState, setRateLimitHeaders, tighter } from "./rate-limit";
import { Reply, successResponse } from "./reply";
import { requestIdOf } from "./request-id";
import { withDevelopmentHeaders } from "./security-headers";

// What a route file needs besides `handle`, from the one module it imports.
export { bearerToken } from "./authenticate";
export { DATABASE_RETRY_AFTER_SECONDS } from "./error-response";
export { noSuchPath, otherMethods } from "./methods";
export { created, createdRecord, noContent, Reply } from "./reply";

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

/**
 * A route handler outside the wrapper (the health checks), whose answers get the security headers
 * under `next dev` as the wrapper's do (lib/platform/http/security-headers.ts).
 */
export function plainRoute(handler: (request: Request) => Promise<Response>): RouteHandler {
  return async (request) => withDevelopmentHeaders(request, await handler(request));
}

/** A `/v2` route: bearer token required, rate-limited per session. */
export function route<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
>(
  options: RouteOptions<Q, B, P>,
  handler: (context: Context<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown,
): RouteHandler {
  return wrap(options, true, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown);
}

/** A route without a bearer token (sign-in, invitations): rate-limited per client address. */
export function publicRoute<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
>(
  options: Omit<RouteOptions<Q, B, P>, "admin">,
  handler: (context: PublicContext<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown,
): RouteHandler {
  return wrap(options, false, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown);
}

/** The route handler of an operation: the route wrapper (lib/platform/http/route.ts) with its schemas and rules. */
export function handle<
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  P extends z.ZodObject | undefined,
  R extends z.ZodObject | undefined,
>(
  operation: Operation<Q, B, P, true, R>,
  handler: (context: Context<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown,
): BoundHandler<Infer<R>>;
export function handle<
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  P extends z.ZodObject | undefined,
  R extends z.ZodObject | undefined,
>(
  operation: Operation<Q, B, P, false, R>,
  handler: (context: PublicContext<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown,
): BoundHandler<Infer<R>>;
export function handle(
  operation: Operation,
  handler: (context: Context<unknown, unknown, unknown>) => unknown,
): RouteHandler {
  const routeHandler = operation.authenticated
    ? route(operation, handler)
    : publicRoute(operation, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown);
  bind(routeHandler, operation);
  return routeHandler;
}

function wrap(
  options: RouteOptions<z.ZodObject | undefined, z.ZodType | undefined, z.ZodObject | undefined>,
  authenticated: boolean,
  handler: (context: PublicContext<unknown, unknown, unknown>) => unknown,
): RouteHandler {
  // The `operation` label of the request metrics: an operation's path template (docs/deployment.md#metrics).
  const template = "path" in options && typeof options.path === "string" ? options.path : undefined;
  return async (request, routeContext) => {
    const started = performance.now();
    const requestId = requestIdOf(request.headers.get("x-request-id"));
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
      for (const name of query.unknown)
        notes.warning("unknown_parameter", `The query parameter "${name}" is not known and was ignored.`, name);

      const details: ErrorDetail[] = [...query.errors];
      const queryResult = options.query?.safeParse(query.input);
      if (queryResult && !queryResult.success) details.push(...issueDetails(queryResult.error.issues));
      const bodyResult = options.body?.safeParse(body);
      if (bodyResult && !bodyResult.success) details.push(...issueDetails(bodyResult.error.issues, "body"));
      if (details.length > 0) throw new ServiceError("invalid_request", "The request is not valid.", details);

      // The audit log keeps the whole address the limits see (an IPv6 address, not its /64).
      const context = {
        requestId,
        principal,
        ip: clientAddress(request, loadConfig().trustProxy),
        userAgent: request.headers.get("user-agent") ?? undefined,
      };
      const run = async () => {
        const work = withRequestContext(context, () =>
          handler({
            request,
            requestId,
            params,
            query: queryResult?.data,
            body: bodyResult?.data,
            notes,
            ...(principal ? { auth: principal } : {}),
          }),
        );
        const result = await withinDeadline(Promise.resolve(work), requestId);
        const answer = successResponse(result, requestId, debug ? notes : undefined);
        addNextLink(answer, url, result instanceof Reply ? result.body : result, options.nextParam);
        return answer;
      };
      response =
        key && caller
          ? await idempotent(
              { caller: caller.id, key, request, body, requestId, secretFields: options.secretFields },
              run,
            )
          : await run();
    } catch (error) {
      failure = options.throttlesOwnCredentials ? error : await countRefusedCredentials(request, error);
      response = errorResponse(failure, requestId, debug ? notes : undefined);
    }
    // The budget this request counted against (the one that refused it, for a 429, whose
    // Retry-After it repeats); before a caller is known, its address's.
    const address = `ip:${requestAddress(request)}`;
    if (failure instanceof RateLimitedError) setRateLimitHeaders(response, failure.state, failure.windowSeconds);
    else
      setRateLimitHeaders(
        response,
        rate ??
          (authenticated
            ? refusedCredentials.state(`refused:${requestAddress(request)}`)
            : addressLimiter.state(address)),
      );

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
    if (response.status === 503)
      log().warn(
        { ...fields, code: "service_unavailable", reason: failure instanceof Error ? failure.message : undefined },
        "database unavailable",
      );
    else if (response.status >= 500) log().error({ ...fields, err: failure }, "request failed");
    else log().info(failure instanceof ServiceError ? { ...fields, code: failure.code } : fields, "request");
    return withDevelopmentHeaders(request, response);
  };
}
