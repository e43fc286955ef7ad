/**
 * The opaque cursor of the answers list (docs/api.md#answers): where the next page starts (the
 * last answer's `createdAt` and `_id`) and which list it belongs to (the survey and a digest of
 * the filters), signed with the service's secret so that an altered cursor, or one of another
 * list, is `400 invalid_request`. A page by cursor is one index range, whatever its depth.
 */
import { ServiceError } from "@/lib/kernel/errors";
import { oid, type ObjectId } from "@/lib/kernel/ids";
import { signingKey } from "@/lib/resources/auth/secret";
import { createHash } from "node:crypto";

export interface Position {
  createdAt: Date;
  _id: ObjectId;
}

const encoder = new TextEncoder();

/** What makes two lists the same list: the survey and every filter. */
export const listKey = (surveyId: string, filters: Record<string, unknown>): string =>
  createHash("sha256")
    .update(JSON.stringify([surveyId, filters]))
    .digest("base64url")
    .slice(0, 16);

async function signature(text: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await signingKey(), encoder.encode(`answers-cursor:${text}`));
  return Buffer.from(mac).toString("base64url");
}

export async function encodeCursor(key: string, position: Position): Promise<string> {
  const body = Buffer.from(
    JSON.stringify({ k: key, t: position.createdAt.getTime(), i: position._id.toHexString() }),
  ).toString("base64url");
  return `${body}.${await signature(body)}`;
}

const invalid = () =>
  new ServiceError("invalid_request", "The request is not valid.", [
    { path: "cursor", message: "is not a cursor of this list" },
  ]);

export async function decodeCursor(key: string, cursor: string): Promise<Position> {
  const [body, mac, extra] = cursor.split(".");
  if (!body || !mac || extra !== undefined || (await signature(body)) !== mac) throw invalid();
  let parsed: { k?: unknown; t?: unknown; i?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (
    parsed.k !== key ||
    typeof parsed.t !== "number" ||
    typeof parsed.i !== "string" ||
    !/^[0-9a-f]{24}$/.test(parsed.i)
  )
    throw invalid();
  return { createdAt: new Date(parsed.t), _id: oid(parsed.i) };
}
