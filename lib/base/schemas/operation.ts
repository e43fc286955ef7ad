/**
 * An operation of the HTTP API declared once, in its resource's `contract.ts`: method, path,
 * schemas, the Admin rule and what the OpenAPI document says of it. lib/platform/http/route's `handle`
 * binds it to its service, and lib/platform/openapi reads the same declaration, so neither repeats the
 * other. It imports no server code: the pages read these contracts' schemas too.
 *
 *   export const list = handle(users.list, ({ auth, query, notes }) => listUsers(auth, query, notes));
 */
import { type ErrorCode, MAX_PAGE_DEPTH } from "@/lib/base/schemas/common";
import type { Scope } from "@/lib/base/schemas/scopes";
import type { z } from "zod";

export interface RouteOptions<
  Q extends z.ZodObject | undefined,
  B extends z.ZodType | undefined,
  P extends z.ZodObject | undefined,
> {
  /** Path parameters; a failure is `400 invalid_id`. */
  params?: P;
  /** Query parameters (besides `debug`); unknown ones are ignored with a debug warning. */
  query?: Q;
  /** The JSON body; absent → the body is not read. */
  body?: B;
  /** Requires `Admin: true` from a user holding an admin access role (or an API key with the scope). */
  admin?: boolean;
  /** The scope an API key needs for this operation (docs/api.md#api-keys). */
  scope?: Scope;
  /**
   * Top-level fields of the success answer that are secrets shown once (a new API key): never kept
   * at rest, so the replay of an idempotent request leaves them out.
   */
  secretFields?: readonly string[];
  /** The query parameter the `Link: rel="next"` of a list sets to `data.next`: `cursor` unless named. */
  nextParam?: string;
  /** Top-level body fields the service sets itself: dropped with a debug warning. */
  ignoreBodyFields?: readonly string[];
  /**
   * The handler throttles its own wrong credentials (sign-in): its `401`s do not count against
   * the address's budget of refused credentials.
   */
  throttlesOwnCredentials?: boolean;
}

export const METHODS = ["get", "post", "patch", "put", "delete"] as const;
export type Method = (typeof METHODS)[number];

/**
 * The names a contract gives its schemas in the OpenAPI document (`components.schemas`): `records`
 * shown inside several answers, one component each, and the success `answers` of its operations
 * (each with the `debug` array every answer may carry). Exported by a contract as `components`.
 */
export interface ComponentNames {
  records?: Record<string, z.ZodType>;
  answers?: Record<string, z.ZodObject>;
}

/** What the OpenAPI document says of an operation beyond its schemas. */
interface OperationDoc<R extends z.ZodObject | undefined = z.ZodObject | undefined> {
  summary: string;
  description?: string;
  tag: string;
  /** The success answer: `200`, `201` with `Location` for a create, `202` with `Location` for work started (a job), or `204` with no body. */
  status: 200 | 201 | 202 | 204;
  response?: R;
  /** The success body is `text/csv`, streamed, instead of JSON. */
  csv?: boolean;
  /** The success body may be `application/x-ndjson`, streamed, instead (as the `format` asks). */
  ndjson?: boolean;
  /** Headers of the success answer beyond those every answer has. */
  headers?: Record<string, { description: string; schema: { type: "string" | "integer" } }>;
  /** The request body is a file of one of these media types, read by the handler itself (not JSON). */
  upload?: { mediaTypes: readonly string[]; description: string };
  /** Reads `Admin: true` without requiring it (the caller's roles decide otherwise). */
  adminOptional?: boolean;
  /** Errors beyond those its declaration implies (auth, Admin, path id, body, query). */
  errors?: ErrorCode[];
  /** More about some query parameters than their schema says. */
  parameters?: Record<string, { description?: string; items?: Record<string, unknown> }>;
  /** Sent in `Set-Cookie` on success. */
  setsCookie?: boolean;
  /**
   * The answer is one record with its `ETag` (docs/api.md#conditional-requests): a `GET` takes
   * `If-None-Match` (`304`), a `PATCH` takes `If-Match` (`412 precondition_failed`).
   */
  etag?: boolean;
}

export interface Operation<
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  A extends boolean = boolean,
  R extends z.ZodObject | undefined = z.ZodObject | undefined,
> extends RouteOptions<Q, B, P> {
  method: Method;
  /** The OpenAPI path, `{id}` for a `[id]` segment. */
  path: string;
  /** Whether a bearer token is required (every `/v2` operation but the document itself). */
  authenticated: A;
  doc: OperationDoc<R>;
}

/**
 * Every operation declared, with its place in the order of declaration: a contract's operations
 * appear in the OpenAPI document in the order its module declares them (a module's exports, read
 * at run time, come in alphabetical order instead).
 */
const declared = new WeakMap<object, number>();
let declarations = 0;

function declare<T extends Operation>(operation: T): T {
  declared.set(operation, declarations++);
  return operation;
}

/** Whether a value is an operation declared with {@link operation} or {@link publicOperation}. */
function isOperation(value: unknown): value is Operation {
  return typeof value === "object" && value !== null && declared.has(value);
}

/**
 * The operations a contract module exports, directly or in an object of them (the reference data
 * kinds), in the order they were declared.
 */
export function operationsOf(contract: Record<string, unknown>): Operation[] {
  const isPlainObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
  const operations = Object.values(contract).flatMap((value) =>
    isOperation(value) ? [value] : isPlainObject(value) ? Object.values(value).filter(isOperation) : [],
  );
  return [...new Set(operations)].sort((a, b) => declared.get(a)! - declared.get(b)!);
}

/**
 * Declares an operation that needs a bearer token: it names the scope an API key needs for it, or
 * `null` for one open to signed-in users only (an API key gets `403 insufficient_scope`).
 */
export function operation<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  R extends z.ZodObject | undefined = undefined,
>(
  declaration: Omit<Operation<Q, B, P, true, R>, "authenticated" | "scope"> & { scope: Scope | null },
): Operation<Q, B, P, true, R> {
  const { scope, ...rest } = declaration;
  return declare({ ...rest, ...(scope ? { scope } : {}), authenticated: true });
}

/** Declares an operation without a bearer token (sign-in, the document). */
export function publicOperation<
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  R extends z.ZodObject | undefined = undefined,
>(declaration: Omit<Operation<Q, B, P, false, R>, "authenticated" | "admin" | "scope">): Operation<Q, B, P, false, R> {
  return declare({ ...declaration, authenticated: false });
}

/** The paging parameters of every list, as the document describes them. */
export const pagingParameters = {
  page: {
    description: `Page number, from 1 (the default). A page past the end is an empty list. Not with \`cursor\`. A page by number may end at most ${MAX_PAGE_DEPTH.toLocaleString("en")} records deep (\`page × limit ≤ ${MAX_PAGE_DEPTH}\`); a deeper one is \`400 invalid_request\`: go on with \`cursor\` (the \`next\` of a page) instead, whose cost does not grow with depth.`,
  },
  cursor: {
    description:
      "The `next` of the previous page: the page that follows it. Opaque, and valid only for the same list with the same filters (else `400 invalid_request`); not with `page`. Each page costs the same, however deep.",
  },
  limit: { description: "Records per page." },
  count: { description: "Adds `counter`: how many records match the filters, ignoring paging." },
};

/** The description of a repeatable query parameter. */
export const repeated = (what: string) =>
  `${what} Repeat the parameter once per value; a comma-separated value is split too.`;
