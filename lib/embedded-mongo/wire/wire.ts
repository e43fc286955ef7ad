/**
 * MongoDB wire protocol framing: OP_MSG (opcode 2013) and the legacy OP_QUERY (2004) that drivers
 * still use for their first handshake, answered with OP_REPLY (1). Only what a standalone server
 * needs; compression is never advertised, so OP_COMPRESSED is refused.
 */
import { BSON, type Document } from "bson";
import { decodeDocument, decodeReceived } from "../storage/bson-values";

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

export function encodeOpMsg(responseTo: number, doc: Document, flags = 0): Buffer {
  const body = BSON.serialize(doc, { ignoreUndefined: true });
  const length = HEADER_SIZE + 4 + 1 + body.length;
  const prefix = Buffer.alloc(5); // flagBits, then section kind 0
  prefix.writeUInt32LE(flags >>> 0, 0);
  return Buffer.concat([header(length, responseTo, OP_MSG), prefix, body], length);
}

export function encodeOpReply(responseTo: number, doc: Document): Buffer {
  const body = BSON.serialize(doc, { ignoreUndefined: true });
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(1, 16); // numberReturned; flags, cursorId and startingFrom stay 0
  const length = HEADER_SIZE + fields.length + body.length;
  return Buffer.concat([header(length, responseTo, OP_REPLY), fields, body], length);
}
