/**
 * The built-in test receiver (docs/api.md#test-receiver): each company has one URL under
 * `PUBLIC_URL` that a webhook may point to without `WEBHOOK_ALLOWED_HOSTS`; it keeps what it
 * receives (headers, body, and whether the signature matches a secret of the company's webhooks
 * that point to it), so deliveries, tests and a rotation can be tried on a laptop with no outside
 * server.
 */
import { notFound } from "@/lib/kernel/errors";
import { newId, oid } from "@/lib/kernel/ids";
import type { Principal } from "@/lib/kernel/principal";
import { randomBytes } from "node:crypto";
import { Webhook as Verifier } from "standardwebhooks";
import type { ReceiptRecord, ReceiverAnswer } from "./contract";
import {
  companyOfReceiver,
  forgetReceipts,
  keepReceipt,
  latestReceipts,
  receiverKeyOf,
  webhooksWithSecretsOf,
  type ReceiptDoc,
} from "./repository";
import { receiverUrl, sameReceiver } from "./url-guard";

/** The body kept of a request: enough for any event; the signature is checked on the whole body. */
const KEPT_BODY_BYTES = 64 * 1024;
/** The most a receiver reads of one request (the API's own body limit is 1 MiB too). */
const MAX_RECEIVED_BYTES = 1024 * 1024;
const MAX_HEADERS = 40;
const MAX_HEADER_CHARS = 1024;
/** Headers that carry a credential: shown masked. */
const CREDENTIAL_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);
/**
 * The headers a sender sets, and only those: the server's own (the socket-address stamp, a
 * process secret; the forwarded address; the request id; the page headers the proxy adds) never
 * show (docs/api.md#test-receiver).
 */
const SENDER_HEADERS = new Set([
  "accept",
  "accept-encoding",
  "authorization",
  "content-encoding",
  "content-length",
  "content-type",
  "cookie",
  "host",
  "user-agent",
]);
const shownHeader = (name: string) => SENDER_HEADERS.has(name) || name.startsWith("webhook-");

/** The receiver's URL and the latest requests it kept. */
export async function readReceiver(auth: Principal): Promise<ReceiverAnswer> {
  const company = oid(auth.companyId);
  const key = await receiverKeyOf(company, newKey(), new Date());
  return { url: receiverUrl(key), received: (await latestReceipts(company)).map(receiptRecord) };
}

export async function clearReceiver(auth: Principal): Promise<void> {
  await forgetReceipts(oid(auth.companyId));
}

/**
 * One request to `POST /api/webhook-receiver/{key}`: kept (the route answers 204), or 404 for a key
 * of no company. The body is read (by `readBody`, up to the bytes it is given) only once the key is
 * known, so an unknown key is 404 whatever its body.
 */
export async function receive(
  key: string,
  requestHeaders: Headers,
  readBody: (maxBytes: number) => Promise<Uint8Array>,
): Promise<void> {
  const company = await companyOfReceiver(key);
  if (!company) throw notFound("receiver");
  const bytes = await readBody(MAX_RECEIVED_BYTES);
  const body = Buffer.from(bytes).toString("utf8");
  const headers = keptHeaders(requestHeaders);
  const check = await checkSignature(company, receiverUrl(key), body, headers);
  const kept = Buffer.from(bytes.subarray(0, KEPT_BODY_BYTES)).toString("utf8");
  await keepReceipt({
    _id: newId(),
    company,
    receivedAt: new Date(),
    webhook: check.webhook,
    eventType: eventTypeOf(body),
    signature: check.signature,
    signatureNote: check.note,
    headers,
    body: kept,
    truncated: bytes.byteLength > KEPT_BODY_BYTES,
  } as ReceiptDoc);
}

const newKey = () => randomBytes(24).toString("base64url");

/** The path of a receiver's key, for the route's parameter check. */
export const RECEIVER_KEY = /^[A-Za-z0-9_-]{32}$/;

function keptHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  let count = 0;
  for (const [name, value] of headers) {
    if (!shownHeader(name)) continue;
    if (count++ >= MAX_HEADERS) break;
    kept[name] = CREDENTIAL_HEADERS.has(name)
      ? `${value.split(" ")[0]} •••`
      : value.length > MAX_HEADER_CHARS
        ? `${value.slice(0, MAX_HEADER_CHARS)}…`
        : value;
  }
  return kept;
}

function eventTypeOf(body: string): string | null {
  try {
    const type = (JSON.parse(body) as { type?: unknown })?.type;
    return typeof type === "string" ? type.slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** Whether the Standard Webhooks signature matches the secret of a webhook of the company that points here. */
async function checkSignature(
  company: ReturnType<typeof oid>,
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ signature: ReceiptRecord["signature"]; webhook: ReturnType<typeof oid> | null; note: string }> {
  if (!headers["webhook-signature"])
    return { signature: "unsigned", webhook: null, note: "The request carries no webhook-signature header." };
  const pointing = (await webhooksWithSecretsOf(company)).filter((webhook) => sameReceiver(webhook.url, url));
  if (pointing.length === 0)
    return {
      signature: "invalid",
      webhook: null,
      note: "No webhook of this company points to this receiver, so no secret can check the signature.",
    };
  let why = "";
  for (const webhook of pointing) {
    try {
      new Verifier(webhook.secret).verify(body, headers);
      return {
        signature: "valid",
        webhook: webhook._id,
        note: `Signed with the current secret of webhook ${webhook._id.toHexString()}.`,
      };
    } catch (error) {
      why = (error as Error).message;
    }
  }
  const which =
    pointing.length === 1
      ? `webhook ${pointing[0]._id.toHexString()}`
      : `any of the ${pointing.length} webhooks that point here`;
  return {
    signature: "invalid",
    webhook: null,
    note: `The signature does not match the current secret of ${which} (${why.replace(/\.$/, "")}).`,
  };
}

function receiptRecord(doc: ReceiptDoc): ReceiptRecord {
  return {
    _id: doc._id.toHexString(),
    receivedAt: doc.receivedAt.toISOString(),
    webhook: doc.webhook ? doc.webhook.toHexString() : null,
    eventType: doc.eventType ?? null,
    signature: doc.signature as ReceiptRecord["signature"],
    signatureNote: doc.signatureNote,
    headers: doc.headers as Record<string, string>,
    body: doc.body ?? "",
    truncated: doc.truncated,
  };
}
