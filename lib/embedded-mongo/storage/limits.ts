/**
 * MongoDB's 16 MB limit on a stored document, with the code and message MongoDB answers for each
 * kind of write that would exceed it.
 */
import { BSON, type Document } from "bson";
import { MongoCommandError } from "../errors";
import { receivedBytes } from "./bson-values";

const MAX_BSON_SIZE = 16 * 1024 * 1024;

export type WriteKind = "insert" | "update" | "upsert";

export function checkDocumentSize(doc: Document, kind: WriteKind): void {
  // A document inserted as it arrived has its size in hand: the bytes it came in.
  const size = receivedBytes(doc)?.length ?? BSON.calculateObjectSize(doc);
  if (size <= MAX_BSON_SIZE) return;
  if (kind === "insert")
    throw new MongoCommandError(
      "BadValue",
      `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_SIZE}`,
    );
  if (kind === "upsert")
    throw new MongoCommandError("Location17420", `Document to upsert is larger than ${MAX_BSON_SIZE}`);
  throw new MongoCommandError("Location17419", `Resulting document after update is larger than ${MAX_BSON_SIZE}`);
}
