/**
 * The one way the admin pages talk to the server: `request(operation, { params, query, body })`
 * sends the `/v2` operation a contract declares (its method, its path with the parameters
 * encoded, the query serialised as the API reads it) with the in-memory access token (renewed on
 * expiry, retried once on `401`) and the `Admin: true` header of an admin client, and answers the
 * type of the operation's response schema. Errors become `ApiError`s that carry the API's error
 * code, field details and request id. The contracts hold only zod schemas and declarations, so
 * importing an operation brings no server code into the browser (docs/architecture.md#the-browser-client).
 */
import type { ErrorBody, ErrorDetail, Notification } from "@/lib/base/schemas/common";
import type { Operation } from "@/lib/base/schemas/operation";
import type { z } from "zod";
import { accessToken, goToSignIn, signOut } from "./session";

export class ApiError extends Error {
  override name = "ApiError";

  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export type QueryValue = string | number | boolean | undefined | null | readonly string[];

/** Query parameters as the API reads them (docs/api.md#query-strings): arrays repeated, empty values left out. */
export function queryString(query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** What goes on the wire: the method, the path with its parameters in place, and the rest. */
interface RequestOptions {
  method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  query?: Record<string, QueryValue>;
  body?: unknown;
  signal?: AbortSignal;
  /** `If-Match`: the change applies only to the version of the record this tag names. */
  ifMatch?: string;
  /** What the answer should be: JSON unless said otherwise. */
  accept?: string;
  /** A file sent as the body, as it is, with its media type (an import), instead of JSON. */
  file?: { body: Blob; type: string };
}

type Parts<O> =
  O extends Operation<infer Q, infer B, infer P, boolean, infer R>
    ? { query: Q; body: B; params: P; response: R }
    : never;

/** The query of an operation: its schema's parameters (values as the URL carries them), and `debug` (docs/api.md#debug). */
type QueryOf<Q> = [Q] extends [z.ZodObject]
  ? { [K in keyof z.input<Q>]?: QueryValue } & { debug?: boolean }
  : { debug?: boolean };

/**
 * What {@link request} sends for an operation: its path parameters (required when the path has
 * some), its query, its body (required when it takes one, typed by its schema's input), and the
 * headers a page may add.
 */
type RequestInput<O extends Operation> = ([Parts<O>["params"]] extends [z.ZodObject]
  ? { params: Record<keyof z.input<NonNullable<Parts<O>["params"]>>, string> }
  : { params?: undefined }) &
  ([Parts<O>["body"]] extends [z.ZodType] ? { body: z.input<NonNullable<Parts<O>["body"]>> } : { body?: undefined }) & {
    query?: QueryOf<Parts<O>["query"]>;
    signal?: AbortSignal;
    /** `If-Match`: the change applies only to the version of the record this tag names. */
    ifMatch?: string;
    /** A file sent as the body, as it is, with its media type (an import), instead of JSON. */
    file?: { body: Blob; type: string };
  };

/** What an operation answers on success: its response schema's output, with the debug notes any answer may carry; nothing for a `204`. */
type ResponseOf<O extends Operation> = [Parts<O>["response"]] extends [z.ZodObject]
  ? z.output<NonNullable<Parts<O>["response"]>> & { debug?: Notification[] }
  : void;

/** An input whose every part is optional may be left out. */
type Optional<O extends Operation> =
  object extends RequestInput<O> ? [input?: RequestInput<O>] : [input: RequestInput<O>];

/** Sends an operation of a contract and answers its success body, typed by its response schema. */
export async function request<O extends Operation>(operation: O, ...[input]: Optional<O>): Promise<ResponseOf<O>> {
  return (await requestWithTag(operation, ...([input] as Optional<O>))).body;
}

/** A record with the `ETag` it was answered with, for a later `If-Match` (docs/api.md#conditional-requests). */
export interface Tagged<T> {
  body: T;
  etag: string;
}

/** Like {@link request}, with the answer's `ETag` (empty when the answer has none). */
export async function requestWithTag<O extends Operation>(
  operation: O,
  ...[input]: Optional<O>
): Promise<Tagged<ResponseOf<O>>> {
  const response = await authorized(pathOf(operation, input?.params), wire(operation, input));
  return { body: await read<ResponseOf<O>>(response), etag: response.headers.get("etag") ?? "" };
}

/** An operation's path with its parameters in place, each encoded as one segment. */
function pathOf(operation: Pick<Operation, "method" | "path">, params: Record<string, string> | undefined): string {
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === "")
      throw new Error(`${operation.method.toUpperCase()} ${operation.path}: the path parameter ${name} is missing`);
    return encodeURIComponent(value);
  });
}

function wire(
  operation: Operation,
  input:
    | {
        query?: Record<string, QueryValue>;
        body?: unknown;
        signal?: AbortSignal;
        ifMatch?: string;
        file?: { body: Blob; type: string };
      }
    | undefined,
): RequestOptions {
  return {
    method: operation.method.toUpperCase() as RequestOptions["method"],
    query: input?.query,
    body: input?.body,
    signal: input?.signal,
    ifMatch: input?.ifMatch,
    file: input?.file,
  };
}

/** The response of a request sent with the access token, retried once with a fresh token on `401`. */
async function authorized(path: string, options: RequestOptions): Promise<Response> {
  let token = await accessToken();
  if (!token) return signedOut();
  let response = await send(path, options, token);
  if (response.status === 401) {
    // The token may have been revoked or expired early: one retry with a fresh one.
    token = await accessToken({ fresh: true });
    if (!token) return signedOut();
    response = await send(path, options, token);
    if (response.status === 401) return signedOut();
  }
  return response;
}

/**
 * Saves what a `/v2` GET answers (a CSV export) as a file. The token travels only in a header,
 * so a plain link could not carry it: the file is fetched, then handed to the browser.
 */
export async function download<O extends Operation>(
  operation: O,
  input: Pick<RequestInput<O>, "params" | "query">,
  filename: string,
): Promise<void> {
  const response = await authorized(pathOf(operation, input.params), { query: input.query, accept: "text/csv" });
  if (!response.ok) await read(response);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The response of a `/v2` GET whose body the caller reads as it arrives (an export); an error
 * answer is thrown as an `ApiError`.
 */
export async function openStream(
  operation: Operation,
  input: { params?: Record<string, string>; query?: Record<string, QueryValue>; accept: string; signal?: AbortSignal },
): Promise<Response> {
  const response = await authorized(pathOf(operation, input.params), {
    query: input.query,
    accept: input.accept,
    signal: input.signal,
  });
  if (!response.ok) await read(response);
  return response;
}

async function send(path: string, options: RequestOptions, token: string): Promise<Response> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`,
    Admin: "true",
    Accept: options.accept ?? "application/json",
  };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.file) headers["Content-Type"] = options.file.type;
  if (options.ifMatch) headers["If-Match"] = options.ifMatch;
  try {
    return await fetch(path + queryString(options.query), {
      method: options.method ?? "GET",
      headers,
      body: options.file ? options.file.body : options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      cache: "no-store",
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiError(0, "network", "The server could not be reached. Check the connection and try again.");
  }
}

/** Reads a success body, or throws the API's error body as an `ApiError`. */
export async function read<T>(response: Response): Promise<T> {
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.ok) return body as T;
  const error = (body as Partial<ErrorBody> | undefined)?.error;
  throw new ApiError(
    response.status,
    error?.code ?? "http_error",
    error?.message ?? `The server answered ${response.status} ${response.statusText}.`,
    error?.details ?? [],
    error?.requestId ?? requestId,
  );
}

async function signedOut(): Promise<never> {
  // Clears a session cookie that no longer works, so the next visit asks for sign-in at once.
  await signOut();
  goToSignIn();
  throw new ApiError(401, "unauthorized", "Your session has ended. Sign in again.");
}
