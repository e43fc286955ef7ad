/**
 * Reads a JSON body within the limits of docs/api.md#bodies: JSON content type (415), at most 1 MiB by
 * `Content-Length` and by the bytes actually received (413), UTF-8 JSON (400 `invalid_json`).
 * Keys that could reach an object's prototype are refused outright, and so is a body nested deeper
 * than {@link MAX_BODY_DEPTH} levels: no field of the API nests that deep, and code after this
 * point (validation, BSON, logging) may recurse once per level.
 */
import { ServiceError } from "@/lib/kernel/errors";

const MAX_BODY_BYTES = 1024 * 1024;

/** Objects and arrays inside one another; the outermost value is level 1. */
export const MAX_BODY_DEPTH = 64;

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
/** A body of a million forbidden keys gets a short answer all the same. */
const MAX_REPORTED_KEYS = 20;

/** The body's bytes as sent, whatever their type (at most `maxBytes`, else `413`); empty without a body. */
export async function readRawBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<Uint8Array> {
  const length = request.headers.get("content-length");
  if (length !== null && Number(length) > maxBytes) throw tooLarge(maxBytes);
  return request.body ? readAtMost(request.body, maxBytes) : new Uint8Array();
}

/** `undefined` when the request carries no body at all. */
export async function readJsonBody(request: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const length = request.headers.get("content-length");
  if (length !== null && Number(length) > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return undefined;

  const bytes = await readAtMost(request.body, maxBytes);
  if (bytes.byteLength === 0 && !request.headers.has("content-type")) return undefined;
  if (!isJsonContentType(request.headers.get("content-type"))) {
    throw new ServiceError(
      "unsupported_media_type",
      "The body must be JSON, sent with Content-Type: application/json.",
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ServiceError("invalid_json", "The body is not valid UTF-8.");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ServiceError("invalid_json", `The body is not valid JSON: ${(error as Error).message}`);
  }
  checkShape(value);
  return value;
}

/** `application/json` (or a `+json` type), optionally with `charset=utf-8`. */
export function isJsonContentType(header: string | null): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(";").map((part) => part.trim().toLowerCase());
  if (type !== "application/json" && !/^application\/[\w.+-]+\+json$/.test(type)) return false;
  return params.every((param) => !param.startsWith("charset=") || param.replace(/"/g, "") === "charset=utf-8");
}

async function readAtMost(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): ServiceError {
  return new ServiceError("payload_too_large", `The body must be at most ${maxBytes} bytes.`);
}

/**
 * Walks the parsed body with a stack of its own (never recursion, so no depth can overflow the
 * call stack) and refuses it when it nests too deep or holds forbidden keys.
 */
function checkShape(body: unknown): void {
  const bad: string[] = [];
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (path.length >= MAX_BODY_DEPTH) {
      throw new ServiceError("invalid_request", "The body is not valid.", [
        { path: "body", message: `is nested deeper than ${MAX_BODY_DEPTH} levels` },
      ]);
    }
    const children: { value: unknown; path: (string | number)[] }[] = [];
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (item !== null && typeof item === "object") children.push({ value: item, path: [...path, index] });
      });
    } else {
      for (const key of Object.keys(value)) {
        if (FORBIDDEN_KEYS.has(key)) {
          if (bad.length < MAX_REPORTED_KEYS) bad.push([...path, key].join("."));
        } else {
          const item = (value as Record<string, unknown>)[key];
          if (item !== null && typeof item === "object") children.push({ value: item, path: [...path, key] });
        }
      }
    }
    // Reversed, so that the paths come out in the body's own order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  if (bad.length > 0) {
    throw new ServiceError(
      "invalid_request",
      "The body contains forbidden keys.",
      bad.map((path) => ({ path, message: "this key is not allowed" })),
    );
  }
}
