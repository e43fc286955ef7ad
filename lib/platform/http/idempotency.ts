/**
 * Idempotent creates (docs/api.md#idempotent-creates): a `POST` with `Idempotency-Key` runs once
 * per caller and key within 24 hours. The request first inserts a running record (a unique index
 * on caller and key makes this the one check every server process agrees on), runs, and stores
 * its answer; a repeat with the same body gets that answer again with `Idempotent-Replayed: true`,
 * one with another body `422 idempotency_key_reused`, and one while the first still runs
 * `409 request_in_progress`. An error answer is not kept: the key may be sent again.
 */
import { loadConfig } from "@/lib/base/config";
import { ServiceError } from "@/lib/kernel/errors";
import {
  completeRecord,
  findIdempotencyRecord,
  IDEMPOTENCY_TTL_SECONDS,
  type IdempotencyDoc,
  insertRunning,
  releaseRecord,
  takeOver,
} from "@/lib/resources/requests/repository";
import { createHash } from "node:crypto";

const IDEMPOTENCY_HEADER = "Idempotency-Key";
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The `Idempotency-Key` of a `POST`, checked; `undefined` without one (or for another method). */
export function idempotencyKey(request: Request): string | undefined {
  if (request.method !== "POST") return undefined;
  const key = request.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return undefined;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ServiceError("invalid_request", "The request is not valid.", [
      { path: IDEMPOTENCY_HEADER, message: `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` },
    ]);
  }
  return key;
}

export interface IdempotentRequest {
  /** Who sent it: keys of different callers never meet. */
  caller: string;
  key: string;
  request: Request;
  /** The parsed JSON body. */
  body: unknown;
  requestId: string;
  /** Top-level answer fields never stored (secrets shown once): a replay lacks them. */
  secretFields?: readonly string[];
}

/**
 * Runs `work` (the request's answer) once for the caller and key, or answers as the key's record
 * says. Throws `409`/`422` as above.
 */
export async function idempotent(
  { caller, key, request, body, requestId, secretFields = [] }: IdempotentRequest,
  work: () => Promise<Response>,
): Promise<Response> {
  const fingerprint = fingerprintOf(request, body);
  // A record found gone, or taken over by another request, is looked at again (a few rounds at most).
  for (let round = 0; round < 3; round += 1) {
    const now = new Date();
    const hold = { caller, key, startedAt: now, secretFields };
    if (await insertRunning(caller, key, fingerprint, now)) return runHolding(hold, work);
    const record = await findIdempotencyRecord(caller, key);
    if (!record) continue;
    if (isStale(record, now)) {
      if (await takeOver(record, fingerprint, now, cutoffs(now))) return runHolding(hold, work);
      continue;
    }
    if (record.fingerprint !== fingerprint) {
      throw new ServiceError(
        "idempotency_key_reused",
        `This ${IDEMPOTENCY_HEADER} was already used with another request (method, path or body); use a new key for a new request.`,
        [{ path: IDEMPOTENCY_HEADER, message: "was used with another request" }],
      );
    }
    if (!record.done) throw inProgress();
    return replay(record, requestId);
  }
  throw inProgress();
}

const inProgress = () =>
  new ServiceError(
    "request_in_progress",
    `A request with this ${IDEMPOTENCY_HEADER} is still running; send it again once it has finished.`,
    [{ path: IDEMPOTENCY_HEADER, message: "is held by a request still running" }],
  );

async function runHolding(
  {
    caller,
    key,
    startedAt,
    secretFields,
  }: { caller: string; key: string; startedAt: Date; secretFields: readonly string[] },
  work: () => Promise<Response>,
): Promise<Response> {
  let response: Response;
  try {
    response = await work();
  } catch (error) {
    await releaseRecord(caller, key, startedAt).catch(() => undefined);
    throw error;
  }
  if (response.status >= 200 && response.status < 300) {
    const body = withoutSecrets(await response.clone().text(), secretFields);
    await completeRecord(caller, key, startedAt, {
      status: response.status,
      body,
      location: response.headers.get("location"),
      etag: response.headers.get("etag"),
    });
  } else {
    await releaseRecord(caller, key, startedAt);
  }
  return response;
}

/** The answer's text without its secret top-level fields. */
function withoutSecrets(text: string, secretFields: readonly string[]): string {
  if (secretFields.length === 0 || !text) return text;
  const body = JSON.parse(text) as Record<string, unknown>;
  for (const field of secretFields) delete body[field];
  return JSON.stringify(body);
}

function replay(record: IdempotencyDoc, requestId: string): Response {
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Request-Id": requestId,
    "Idempotent-Replayed": "true",
  };
  if (record.location) headers.Location = record.location;
  if (record.etag) headers.ETag = record.etag;
  return new Response(record.status === 204 ? null : record.body, { status: record.status ?? 200, headers });
}

/** A record past its 24 hours (not yet removed) or left running by a process that died. */
function isStale(record: IdempotencyDoc, now: Date): boolean {
  const { expiredBefore, abandonedBefore } = cutoffs(now);
  return record.createdAt < expiredBefore || (!record.done && record.startedAt < abandonedBefore);
}

/**
 * A request is answered within twice the database timeout (the route's deadline), so a record
 * still running after three times that belongs to a process that is gone.
 */
function cutoffs(now: Date) {
  return {
    expiredBefore: new Date(now.getTime() - IDEMPOTENCY_TTL_SECONDS * 1000),
    abandonedBefore: new Date(now.getTime() - 3 * loadConfig().databaseTimeoutMs),
  };
}

/** SHA-256 of the method, the path with its query, and the body with its keys sorted. */
function fingerprintOf(request: Request, body: unknown): string {
  const url = new URL(request.url);
  return createHash("sha256")
    .update(`${request.method} ${url.pathname}${url.search}\n${canonicalJson(body)}`)
    .digest("hex");
}

/** JSON with object keys sorted, so that the same body sent with another key order matches. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
