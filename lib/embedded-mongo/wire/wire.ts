/**
 * MongoDB wire protocol framing: OP_MSG (opcode 2013) and the legacy OP_QUERY (2004) that drivers
 * still use for their first handshake, answered with OP_REPLY (1). Only what a standalone server
 * needs; compression is never advertised, so OP_COMPRESSED is refused.
 */
import { BSON, type Document } from "bson";
import { decodeDocument, decodeReceived, StoredDocument } from "../storage/bson-values";

const OP_REPLY = 1;
const OP_QUERY = 2004;
export const OP_MSG = 2013;

const HEADER_SIZE = 16;
export const MAX_MESSAGE_SIZE = 48_000_000;
const CHECKSUM_PRESENT = 1;
export const MORE_TO_COME = 2;
/** The client accepts several replies to this request (the streaming `hello` of driver monitors). */
export const EXHAUST_ALLOWED = 1 << 16;

class ProtocolError extends Error {}

export interface IncomingMessage {
  requestId: number;
  opCode: number;
  flags: number;
  /** The command document with kind-1 document sequences folded in as arrays. */
  command: Document;
  /** OP_QUERY only: the full collection name, for example `admin.$cmd`. */
  collection?: string;
}

function readDocument(
  buf: Buffer,
  offset: number,
  decode: (bytes: Buffer) => Document = decodeDocument,
): { doc: Document; end: number } {
  if (offset + 5 > buf.length) throw new ProtocolError("truncated BSON document");
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > buf.length) throw new ProtocolError("invalid BSON document length");
  const doc = decode(buf.subarray(offset, offset + size));
  return { doc, end: offset + size };
}

function readCString(buf: Buffer, offset: number): { value: string; end: number } {
  const zero = buf.indexOf(0, offset);
  if (zero < 0) throw new ProtocolError("unterminated cstring");
  return { value: buf.toString("utf8", offset, zero), end: zero + 1 };
}

/** Length of the next complete message at the start of `buf`, or 0 when more bytes are needed. */
export function frameLength(buf: Buffer): number {
  if (buf.length < 4) return 0;
  const length = buf.readInt32LE(0);
  if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE) throw new ProtocolError(`invalid message length ${length}`);
  return buf.length >= length ? length : 0;
}

export function parseMessage(msg: Buffer): IncomingMessage {
  const requestId = msg.readInt32LE(4);
  const opCode = msg.readInt32LE(12);
  if (opCode === OP_MSG) return parseOpMsg(msg, requestId);
  if (opCode === OP_QUERY) return parseOpQuery(msg, requestId);
  throw new ProtocolError(`unsupported opcode ${opCode}`);
}

function parseOpMsg(msg: Buffer, requestId: number): IncomingMessage {
  const flags = msg.readUInt32LE(HEADER_SIZE);
  const end = flags & CHECKSUM_PRESENT ? msg.length - 4 : msg.length;
  let offset = HEADER_SIZE + 4;
  let command: Document | undefined;
  const sequences: Array<[string, Document[]]> = [];
  while (offset < end) {
    const kind = msg.readUInt8(offset);
    offset += 1;
    if (kind === 0) {
      const { doc, end: next } = readDocument(msg, offset);
      command = doc;
      offset = next;
    } else if (kind === 1) {
      const size = msg.readInt32LE(offset);
      const sectionEnd = offset + size;
      if (size < 5 || sectionEnd > end) throw new ProtocolError("invalid document sequence length");
      const { value: identifier, end: docsStart } = readCString(msg, offset + 4);
      const docs: Document[] = [];
      offset = docsStart;
      while (offset < sectionEnd) {
        const { doc, end: next } = readDocument(msg, offset, decodeReceived);
        docs.push(doc);
        offset = next;
      }
      sequences.push([identifier, docs]);
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!command) throw new ProtocolError("OP_MSG without a body section");
  for (const [identifier, docs] of sequences) command[identifier] = docs;
  return { requestId, opCode: OP_MSG, flags, command };
}

function parseOpQuery(msg: Buffer, requestId: number): IncomingMessage {
  const flags = msg.readInt32LE(HEADER_SIZE);
  const { value: collection, end } = readCString(msg, HEADER_SIZE + 4);
  const { doc } = readDocument(msg, end + 8);
  // Drivers may wrap the command as { $query: {...}, $readPreference: ... }.
  const command = doc.$query && typeof doc.$query === "object" ? (doc.$query as Document) : doc;
  return { requestId, opCode: OP_QUERY, flags, command, collection };
}

let nextResponseId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const buf = Buffer.allocUnsafe(HEADER_SIZE);
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(nextResponseId++ & 0x7fffffff, 4);
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(opCode, 12);
  return buf;
}

const SERIALIZE = { ignoreUndefined: true } as const;

/** The elements of a document's BSON (without its length and its final NUL). */
function elementsOf(doc: Document): Buffer {
  const bytes = BSON.serialize(doc, SERIALIZE);
  return Buffer.from(bytes.buffer, bytes.byteOffset + 4, bytes.byteLength - 5);
}

/** One element whose value is a document (0x03) or an array (0x04) already encoded. */
function encodedElement(type: 0x03 | 0x04, name: string, value: Buffer): Buffer[] {
  return [Buffer.from([type]), Buffer.from(`${name}\0`, "utf8"), value];
}

function documentOf(parts: Buffer[]): Buffer {
  let size = 5;
  for (const part of parts) size += part.length;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32LE(size, 0);
  let at = 4;
  for (const part of parts) at += part.copy(out, at);
  out[at] = 0;
  return out;
}

/**
 * The BSON of `doc`, its fields in order, where `encoded(name, value)` gives a field's bytes
 * already made, else undefined to have it serialized (runs of such fields are serialized together).
 */
function serializeWith(doc: Document, encoded: (name: string, value: unknown) => Buffer[] | undefined): Buffer {
  const parts: Buffer[] = [];
  let plain: Document | undefined;
  for (const name of Object.keys(doc)) {
    const made = encoded(name, doc[name]);
    if (!made) {
      (plain ??= {})[name] = doc[name];
      continue;
    }
    if (plain) parts.push(elementsOf(plain));
    plain = undefined;
    parts.push(...made);
  }
  if (plain) parts.push(elementsOf(plain));
  return documentOf(parts);
}

const holdsStored = (batch: unknown): batch is unknown[] =>
  Array.isArray(batch) && batch.some((doc) => doc instanceof StoredDocument);

/**
 * A reply's BSON. A cursor's batch may hold documents as their stored bytes (a find answering
 * whole documents): those are copied as they are, the rest serialized.
 */
function serializeReply(doc: Document): Uint8Array {
  const cursor = doc.cursor as Document | undefined;
  if (!cursor || typeof cursor !== "object" || !(holdsStored(cursor.firstBatch) || holdsStored(cursor.nextBatch)))
    return BSON.serialize(doc, SERIALIZE);
  const batch = (name: string, value: unknown) => {
    if ((name !== "firstBatch" && name !== "nextBatch") || !holdsStored(value)) return undefined;
    const elements = value.map((d, i) =>
      d instanceof StoredDocument ? encodedElement(0x03, String(i), d.bytes) : [elementsOf({ [i]: d })],
    );
    return encodedElement(0x04, name, documentOf(elements.flat()));
  };
  return serializeWith(doc, (name, value) =>
    name === "cursor" && value === cursor ? encodedElement(0x03, name, serializeWith(cursor, batch)) : undefined,
  );
}

export function encodeOpMsg(responseTo: number, doc: Document, flags = 0): Buffer {
  const body = serializeReply(doc);
  const length = HEADER_SIZE + 4 + 1 + body.length;
  const prefix = Buffer.alloc(5); // flagBits, then section kind 0
  prefix.writeUInt32LE(flags >>> 0, 0);
  return Buffer.concat([header(length, responseTo, OP_MSG), prefix, body], length);
}

export function encodeOpReply(responseTo: number, doc: Document): Buffer {
  const body = serializeReply(doc);
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(1, 16); // numberReturned; flags, cursorId and startingFrom stay 0
  const length = HEADER_SIZE + fields.length + body.length;
  return Buffer.concat([header(length, responseTo, OP_REPLY), fields, body], length);
}
