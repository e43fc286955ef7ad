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

function writeHeader(buf: Buffer, length: number, responseTo: number, opCode: number): void {
  buf.writeInt32LE(length, 0);
  buf.writeInt32LE(nextResponseId++ & 0x7fffffff, 4);
  buf.writeInt32LE(responseTo, 8);
  buf.writeInt32LE(opCode, 12);
}

const SERIALIZE = { ignoreUndefined: true } as const;

/**
 * A reply's BSON as the pieces it is made of, in order, copied once into the message: a stored
 * document is one piece, its own bytes (not copied into its batch, the batch into its cursor, the
 * cursor into the reply, then the reply into the message).
 */
class Pieces {
  readonly list: Uint8Array[] = [];
  size = 0;

  push(piece: Uint8Array): void {
    this.list.push(piece);
    this.size += piece.length;
  }

  /** Copies the pieces into `out` from `at`. */
  copyTo(out: Buffer, at: number): void {
    for (const piece of this.list) {
      out.set(piece, at);
      at += piece.length;
    }
  }
}

const END = new Uint8Array(1);

/** Adds the elements of a document's BSON (without its length and its final NUL). */
function addElements(doc: Document, out: Pieces): void {
  const bytes = BSON.serialize(doc, SERIALIZE);
  out.push(bytes.subarray(4, bytes.length - 1));
}

/** An element's type and name, before its value. */
function elementHead(type: 0x03 | 0x04, name: string): Buffer {
  const length = Buffer.byteLength(name, "utf8");
  const head = Buffer.allocUnsafe(length + 2);
  head[0] = type;
  head.write(name, 1, "utf8");
  head[length + 1] = 0;
  return head;
}

/** The heads of a batch's first documents (`0`, `1`, ...), made once: batches are mostly short. */
const BATCH_HEADS = Array.from({ length: 128 }, (_, i) => elementHead(0x03, String(i)));

/** Starts a document: its length goes first, written by {@link closeDocument} once known. */
function openDocument(out: Pieces): { length: Buffer; start: number } {
  const length = Buffer.allocUnsafe(4);
  const start = out.size;
  out.push(length);
  return { length, start };
}

function closeDocument(out: Pieces, { length, start }: { length: Buffer; start: number }): void {
  out.push(END);
  length.writeInt32LE(out.size - start, 0);
}

const holdsStored = (batch: unknown): batch is unknown[] =>
  Array.isArray(batch) && batch.some((doc) => doc instanceof StoredDocument);

/** A batch (an array) whose stored documents are added as their bytes. */
function addBatch(batch: unknown[], out: Pieces): void {
  const open = openDocument(out);
  for (let i = 0; i < batch.length; i++) {
    const doc = batch[i];
    if (doc instanceof StoredDocument) {
      out.push(BATCH_HEADS[i] ?? elementHead(0x03, String(i)));
      out.push(doc.bytes);
    } else addElements({ [i]: doc }, out);
  }
  closeDocument(out, open);
}

/**
 * Adds `doc` with its fields in order: `cursor`'s own (a document whose batches hold stored
 * documents) or each batch of the cursor (`firstBatch`, `nextBatch`) by the bytes it holds, the
 * others serialized (runs of them together).
 */
function addDocumentWith(doc: Document, out: Pieces, cursor: Document | undefined): void {
  const open = openDocument(out);
  let plain: Document | undefined;
  for (const name of Object.keys(doc)) {
    const value = doc[name];
    const isCursor = cursor !== undefined && name === "cursor" && value === cursor;
    const isBatch = cursor === undefined && (name === "firstBatch" || name === "nextBatch") && holdsStored(value);
    if (!isCursor && !isBatch) {
      (plain ??= {})[name] = value;
      continue;
    }
    if (plain) addElements(plain, out);
    plain = undefined;
    if (isCursor) {
      out.push(CURSOR_HEAD);
      addDocumentWith(cursor, out, undefined);
    } else {
      out.push(elementHead(0x04, name));
      addBatch(value as unknown[], out);
    }
  }
  if (plain) addElements(plain, out);
  closeDocument(out, open);
}

const CURSOR_HEAD = elementHead(0x03, "cursor");

/**
 * A reply's BSON. A cursor's batch may hold documents as their stored bytes (a find answering
 * whole documents): those are copied as they are, the rest serialized.
 */
function serializeReply(doc: Document): Pieces {
  const out = new Pieces();
  const cursor = doc.cursor as Document | undefined;
  if (!cursor || typeof cursor !== "object" || !(holdsStored(cursor.firstBatch) || holdsStored(cursor.nextBatch)))
    out.push(BSON.serialize(doc, SERIALIZE));
  else addDocumentWith(doc, out, cursor);
  return out;
}

/** A message of `prefix` (after the header) and the reply, written in one buffer. */
function message(responseTo: number, opCode: number, prefix: Buffer, doc: Document): Buffer {
  const body = serializeReply(doc);
  const length = HEADER_SIZE + prefix.length + body.size;
  const out = Buffer.allocUnsafe(length);
  writeHeader(out, length, responseTo, opCode);
  prefix.copy(out, HEADER_SIZE);
  body.copyTo(out, HEADER_SIZE + prefix.length);
  return out;
}

export function encodeOpMsg(responseTo: number, doc: Document, flags = 0): Buffer {
  const prefix = Buffer.alloc(5); // flagBits, then section kind 0
  prefix.writeUInt32LE(flags >>> 0, 0);
  return message(responseTo, OP_MSG, prefix, doc);
}

export function encodeOpReply(responseTo: number, doc: Document): Buffer {
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(1, 16); // numberReturned; flags, cursorId and startingFrom stay 0
  return message(responseTo, OP_REPLY, fields, doc);
}
