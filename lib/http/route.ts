/**
 * The one wrapper of every `/v2` route handler (and of `/api/auth/*`): request id, bearer token,
 * per-token rate limit, the Admin rule, JSON body limits, zod validation of path, query and body,
 * debug notifications, the error table of the contract (§3) and one log line per request.
 *
 *   export const GET = route({ query: ListUsersQuery }, ({ auth, query }) => users.list(auth, query));
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { loadConfig } from "@/lib/config";
import { isDatabaseUnavailable } from "@/lib/db";
import type { ErrorBody, ErrorDetail } from "@/lib/schemas/common";
import { isAdmin, principalOf, verifyAccessToken, type Principal } from "@/lib/services/auth";
import { isDuplicateKeyError, ServiceError } from "@/lib/services/errors";
import { ready } from "@/lib/services/init";
import { log } from "@/lib/services/log";
import { Notes } from "@/lib/services/notes";
import { readJsonBody } from "./body";
import { debugFlag, parseQuery } from "./query";
import { RateLimiter } from "./rate-limit";

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteOptions<Q extends z.ZodObject | undefined, B extends z.ZodType | undefined, P extends z.ZodObject | undefined> {
  /** Path parameters; a failure is `400 invalid_id`. */
  params?: P;
  /** Query parameters (besides `debug`); unknown ones are ignored with a debug warning. */
  query?: Q;
  /** The JSON body; absent → the body is not read. */
  body?: B;
  /** Requires `Admin: true` from a user holding an admin access role. */
  admin?: boolean;
  /** Top-level body fields the service sets itself: dropped with a debug warning. */
  ignoreBodyFields?: readonly string[];
}

export interface PublicContext<Q, B, P> {
  request: Request;
  requestId: string;
  params: P;
  query: Q;
  body: B;
  notes: Notes;
  /** `scheme://host` of the request, for links in e-mails. */
  origin: string;
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

/** `201 Created` with a `Location` header (contract §3). */
export const created = (body: unknown, location: string) => new Reply(body, 201, { Location: location });

type RouteParams = Promise<Record<string, string | string[] | undefined>>;
export type RouteHandler = (request: Request, context?: { params: RouteParams }) => Promise<Response>;

/** A `/v2` route: bearer token required, rate-limited per session. */
export function route<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
>(options: RouteOptions<Q, B, P>, handler: (context: Context<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown): RouteHandler {
  return declare(handle(options, true, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown), options, true);
}

/** A route without a bearer token (sign-in, invitations): rate-limited per client address. */
export function publicRoute<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
>(options: Omit<RouteOptions<Q, B, P>, "admin">, handler: (context: PublicContext<Infer<Q>, Infer<B>, Infer<P>>) => Promise<unknown> | unknown): RouteHandler {
  return declare(handle(options, false, handler as (context: PublicContext<unknown, unknown, unknown>) => unknown), options, false);
}

/** What a handler was declared with: the OpenAPI document (lib/openapi) is built from it. */
export interface RouteDeclaration {
  authenticated: boolean;
  options: RouteOptions<z.ZodObject | undefined, z.ZodType | undefined, z.ZodObject | undefined>;
}

const declarations = new WeakMap<RouteHandler, RouteDeclaration>();

function declare(handler: RouteHandler, options: RouteDeclaration["options"], authenticated: boolean): RouteHandler {
  declarations.set(handler, { authenticated, options });
  return handler;
}

/** The declaration of a handler made by `route` or `publicRoute`; `undefined` for any other. */
export function declarationOf(handler: unknown): RouteDeclaration | undefined {
  return typeof handler === "function" ? declarations.get(handler as RouteHandler) : undefined;
}

const perMinute = () => loadConfig().rateLimitPerMinute;
const tokenLimiter = new RateLimiter(perMinute);
const addressLimiter = new RateLimiter(perMinute);

const REQUEST_ID = /^[\w.:-]{1,128}$/;

function handle(
  options: RouteOptions<z.ZodObject | undefined, z.ZodType | undefined, z.ZodObject | undefined>,
  authenticated: boolean,
  handler: (context: PublicContext<unknown, unknown, unknown>) => unknown,
): RouteHandler {
  return async (request, routeContext) => {
    const started = performance.now();
    const incomingId = request.headers.get("x-request-id");
    const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const url = new URL(request.url);
    const notes = new Notes();
    const { debug, error: debugError } = debugFlag(url.searchParams);
    let principal: Principal | undefined;
    let response: Response;
    let failure: unknown;

    try {
      if (debugError) throw new ServiceError("invalid_request", "The request is not valid.", [debugError]);
      await ready();

      if (authenticated) {
        const claims = await verifyAccessToken(bearerToken(request));
        limit(tokenLimiter, `sid:${claims.sid}`);
        principal = await principalOf(claims);
        if (options.admin) await checkAdmin(request, principal);
      } else {
        limit(addressLimiter, `ip:${clientAddress(request)}`);
      }

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

      const result = await handler({
        request,
        requestId,
        params,
        query: queryResult?.data,
        body: bodyResult?.data,
        notes,
        origin: url.origin,
        ...(principal ? { auth: principal } : {}),
      });
      response = success(result, requestId, debug ? notes : undefined);
    } catch (error) {
      failure = error;
      response = errorResponse(error, requestId, debug ? notes : undefined);
    }

    const fields = {
      requestId,
      method: request.method,
      path: url.pathname,
      status: response.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      user: principal?.userId,
      company: principal?.companyId,
    };
    if (response.status === 503) log().warn({ ...fields, code: "service_unavailable", reason: failure instanceof Error ? failure.message : undefined }, "database unavailable");
    else if (response.status >= 500) log().error({ ...fields, err: failure }, "request failed");
    else log().info(failure instanceof ServiceError ? { ...fields, code: failure.code } : fields, "request");
    return response;
  };
}

export function bearerToken(request: Request): string {
  const header = request.headers.get("authorization");
  if (!header) throw new ServiceError("unauthorized", "Send an access token: Authorization: Bearer <token>.");
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header);
  if (!match) throw new ServiceError("unauthorized", "The Authorization header must be: Bearer <token>.");
  return match[1];
}

/** Throws `429 rate_limited` with `Retry-After` when the key has no request left. */
export function limit(limiter: RateLimiter, key: string): void {
  const verdict = limiter.take(key);
  if (!verdict.allowed) {
    throw new ServiceError("rate_limited", "Too many requests; try again later.", undefined, {
      "Retry-After": String(verdict.retryAfterSeconds),
    });
  }
}

/** The Admin rule (contract §4): the header first, then the caller's access roles. */
async function checkAdmin(request: Request, principal: Principal): Promise<void> {
  if (request.headers.get("admin") !== "true") {
    throw new ServiceError("admin_required", "This operation requires the header Admin: true.");
  }
  if (!(await isAdmin(principal))) {
    throw new ServiceError("forbidden", "Admin: true is honoured only for users holding an admin access role.");
  }
}

/**
 * The client's address for per-address limits: the last `X-Forwarded-For` hop, which is the one
 * a reverse proxy in front of the server appended (Next.js fills the header from the socket when
 * no proxy did).
 */
export function clientAddress(request: Request): string {
  const forwarded = request.headers.get("x-forwarded-for");
  const hops = forwarded?.split(",").map((hop) => hop.trim()).filter(Boolean) ?? [];
  return hops.at(-1) ?? "unknown";
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

function success(result: unknown, requestId: string, notes: Notes | undefined): Response {
  const reply = result instanceof Reply ? result : new Reply(result);
  if (reply.body instanceof Response) return reply.body;
  if (reply.status === 204) {
    return new Response(null, { status: 204, headers: { "Cache-Control": "no-store", "X-Request-Id": requestId, ...reply.headers } });
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
