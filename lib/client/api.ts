/**
 * The one way the admin pages talk to the server: `/v2` over HTTP with the in-memory access token
 * (renewed on expiry, retried once on `401`), the `Admin: true` header of an admin client, and
 * errors turned into `ApiError`s that carry the API's error code, field details and request id.
 */
import type { ErrorBody, ErrorDetail } from "@/lib/schemas/common";
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

export interface RequestOptions {
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

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await tagged<T>(path, options)).body;
}

/** A record with the `ETag` it was answered with, for a later `If-Match` (docs/api.md#conditional-requests). */
export interface Tagged<T> {
  body: T;
  etag: string;
}

/** Like {@link api}, with the answer's `ETag` (empty when the answer has none). */
export async function tagged<T>(path: string, options: RequestOptions = {}): Promise<Tagged<T>> {
  const response = await authorized(path, options);
  return { body: await read<T>(response), etag: response.headers.get("etag") ?? "" };
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
export async function download(path: string, query: Record<string, QueryValue>, filename: string): Promise<void> {
  const response = await authorized(path, { query, accept: "text/csv" });
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
export async function openStream(path: string, options: Pick<RequestOptions, "query" | "accept" | "signal">): Promise<Response> {
  const response = await authorized(path, options);
  if (!response.ok) await read(response);
  return response;
}

async function send(path: string, options: RequestOptions, token: string): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Admin: "true", Accept: options.accept ?? "application/json" };
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
