/**
 * `validate`: checks a collection as MongoDB's command does and answers in its shape. Each
 * stored document must decode as BSON, and each index must hold exactly the entries its documents
 * imply: the keys are computed again with the store's own key function and compared with the
 * entries stored, both ways, so an entry a crash or a bug left behind (extra) or lost (missing)
 * makes the collection invalid, with the index named. It reads only; `repair` is refused.
 */
import { UUID, type Document } from "bson";
import { MongoCommandError } from "../errors";
import { isTextIndex, textIndexKeyCount } from "../query/text";
import { validateWrite } from "../query/validation";
import { decodeDocument } from "../storage/bson-values";
import { ID_INDEX } from "../storage/index-spec";
import { HIGH, idText, SHARED_NUMBERS, type KeyPart, type KeyPrimitive } from "../storage/keys";
import { ns, type CollectionMeta, type Store } from "../storage/store";
import { collectionName, type Handler } from "./context";

/** As MongoDB caps them: the lists of inconsistent entries stay small; the errors give the counts. */
const MAX_LISTED_ENTRIES = 100;
const CORRUPT_ADVICE =
  "A corrupt namespace has been detected. See http://dochub.mongodb.org/core/data-recovery for recovery steps.";

interface IndexCheck {
  /** Entries the documents imply. */
  expected: number;
  /** Entries stored. */
  keys: number;
  missing: number;
  extra: number;
}

/** Documents stored by `_id` alone are their own `_id_` entries: that index keeps entries only under a collation. */
function keepsEntries(meta: CollectionMeta, name: string): boolean {
  const index = meta.indexes.find((i) => i.name === name);
  return !(name === ID_INDEX.name && !index?.collation);
}

function isCompliant(meta: CollectionMeta, doc: Document): boolean {
  try {
    validateWrite({
      options: { ...meta.options, validationLevel: "strict", validationAction: "error" },
      doc,
      bypass: false,
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks `meta` in `store` and builds MongoDB's validate reply. Memory stays constant: each
 * document's entries are looked up in its indexes (missing ones), and the entries stored beyond
 * those found are extra ones, walked for their names only when there are some.
 */
function validateCollection(store: Store, meta: CollectionMeta): Document {
  const errors: string[] = [];
  const warnings: string[] = [];
  const corruptRecords: string[] = [];
  const missingIndexEntries: Document[] = [];
  const extraIndexEntries: Document[] = [];
  const checks = new Map<string, IndexCheck>(
    meta.indexes.map((index) => [index.name, { expected: 0, keys: 0, missing: 0, extra: 0 }]),
  );
  let nrecords = 0;
  let nInvalidDocuments = 0;
  let nNonCompliantDocuments = 0;
  const textIndexes = meta.indexes.filter(isTextIndex);

  for (const { id, bytes } of store.records(meta)) {
    nrecords += 1;
    let doc: Document;
    try {
      doc = decodeDocument(bytes);
    } catch {
      nInvalidDocuments += 1;
      corruptRecords.push(idText(...id));
      continue;
    }
    if (meta.options.validator && !isCompliant(meta, doc)) nNonCompliantDocuments += 1;
    for (const index of textIndexes) checks.get(index.name)!.keys += textIndexKeyCount(index, doc);
    let entries: ReturnType<Store["expectedIndexEntries"]>;
    try {
      entries = store.expectedIndexEntries(meta, doc);
    } catch (err) {
      // A stored document that the collection's indexes cannot key (it could not have been inserted).
      nInvalidDocuments += 1;
      errors.push(`Document with _id ${idText(...id)} cannot be indexed: ${(err as Error).message}`);
      continue;
    }
    for (const { index, keys } of entries) {
      const check = checks.get(index.name)!;
      for (const key of keys) {
        check.expected += 1;
        if (store.hasIndexEntry(meta, index.name, [...key, ...id])) continue;
        check.missing += 1;
        if (missingIndexEntries.length < MAX_LISTED_ENTRIES)
          missingIndexEntries.push({ indexName: index.name, recordId: idText(...id), idKey: { _id: doc._id } });
      }
    }
  }

  for (const index of meta.indexes) {
    const check = checks.get(index.name)!;
    // A text index keeps no entries to check; its keys were counted from the documents.
    if (isTextIndex(index)) continue;
    if (!keepsEntries(meta, index.name)) {
      check.keys = nrecords;
      continue;
    }
    check.keys = store.countIndex(meta, index.name, [], [HIGH], undefined);
    // The entries repeated for shared number keys (keys.ts SHARED_NUMBERS) are expected too, but
    // are no keys of MongoDB's.
    const shared = store.countIndex(meta, index.name, [SHARED_NUMBERS], [SHARED_NUMBERS, HIGH], undefined);
    // Every entry found for a document was counted once; whatever else is stored is extra.
    check.extra = check.keys + shared - (check.expected - check.missing);
    if (check.extra > 0) listExtraEntries(store, meta, index.name, extraIndexEntries);
    if (check.missing) errors.push(`Detected ${check.missing} missing index entries in index '${index.name}'.`);
    if (check.extra) errors.push(`Detected ${check.extra} extra index entries in index '${index.name}'.`);
  }

  if (nInvalidDocuments) errors.push(`Detected ${nInvalidDocuments} invalid documents. See corruptRecords.`);
  if (nNonCompliantDocuments)
    warnings.push(`Detected ${nNonCompliantDocuments} documents not compliant with the collection's validator.`);
  const valid = errors.length === 0;
  const indexDetails: Document = {};
  const keysPerIndex: Document = {};
  for (const index of meta.indexes) {
    const check = checks.get(index.name)!;
    keysPerIndex[index.name] = check.keys;
    indexDetails[index.name] = { valid: check.missing === 0 && check.extra === 0 };
  }
  const reply: Document = {
    ns: ns(meta.db, meta.name),
    uuid: new UUID(meta.uuid),
    nInvalidDocuments,
    nNonCompliantDocuments,
    nrecords,
    nIndexes: meta.indexes.length,
    keysPerIndex,
    indexDetails,
    valid,
    repaired: false,
    warnings,
    errors,
    extraIndexEntries,
    missingIndexEntries,
    corruptRecords,
  };
  if (!valid) reply.advice = CORRUPT_ADVICE;
  return { ...reply, ok: 1 };
}

/** Names the stored entries of one index that no document implies (its document is gone, or keyed otherwise). */
function listExtraEntries(store: Store, meta: CollectionMeta, indexName: string, out: Document[]): void {
  const implied = (doc: Document, entry: KeyPrimitive[]): boolean => {
    const text = JSON.stringify(entry.slice(0, -2));
    try {
      const keys = store.expectedIndexEntries(meta, doc).find((e) => e.index.name === indexName)?.keys ?? [];
      return keys.some((key) => JSON.stringify(key) === text);
    } catch {
      return false;
    }
  };
  for (const entry of store.storedIndexEntries(meta, indexName)) {
    if (out.length >= MAX_LISTED_ENTRIES) return;
    const id: KeyPart = [entry[entry.length - 2] as number, entry[entry.length - 1]];
    let doc: Document | undefined;
    try {
      doc = store.getByIdPart(meta, id);
    } catch {
      doc = undefined;
    }
    if (!doc || !implied(doc, entry)) out.push({ indexName, recordId: idText(...id) });
  }
}

const validate: Handler = (cmd, ctx) => {
  const name = collectionName(cmd, "validate");
  const meta = ctx.store.collection(ctx.db, name);
  if (!meta)
    throw new MongoCommandError("NamespaceNotFound", `Collection '${ns(ctx.db, name)}' does not exist to validate.`);
  if (meta.options.viewOn) throw new MongoCommandError("CommandNotSupportedOnView", "Cannot validate a view");
  if (cmd.repair === true) {
    throw new MongoCommandError(
      "IllegalOperation",
      "validate with repair is not supported by the embedded database: set MONGODB_URI to use a MongoDB server",
    );
  }
  return validateCollection(ctx.store, meta);
};

export const validateCommands: Record<string, Handler> = { validate };
