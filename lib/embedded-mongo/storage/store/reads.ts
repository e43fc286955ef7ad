/**
 * The store's reads: documents by `_id`, in natural order, and index entries between bounds.
 */
import { type Document } from "bson";
import { decodeDocument, decodeFields } from "../bson-values";
import { HIGH, idKey, idText, SHARED_NUMBERS, type KeyPart } from "../keys";
import { CatalogStore } from "./catalog";
import { isCapped, NATURAL, type CollectionMeta, type Key } from "./common";

/** The stored bytes of documents read, by the document decoded from them (a find answers with the bytes). */
export type StoredBytes = WeakMap<Document, Buffer>;

function read(buf: Buffer, fields: ReadonlySet<string> | undefined, stored: StoredBytes | undefined): Document {
  const doc = fields ? decodeFields(buf, fields) : decodeDocument(buf);
  stored?.set(doc, buf);
  return doc;
}

export abstract class ReadStore extends CatalogStore {
  // ---- reads ----

  get(meta: CollectionMeta, id: unknown): Document | undefined {
    return this.getByIdPart(meta, idKey(id));
  }

  /**
   * The document of `_id` part `id`; with `fields`, only those top-level fields and `_id` (see
   * decodeFields); with `stored`, the bytes it was read from are kept there under it.
   */
  getByIdPart(
    meta: CollectionMeta,
    id: KeyPart,
    fields?: ReadonlySet<string>,
    stored?: StoredBytes,
  ): Document | undefined {
    const buf = this.kv.get("docs", [meta.db, meta.name, ...id]) as Buffer | undefined;
    if (!buf) return undefined;
    return read(buf, fields, stored);
  }

  /** Every document in natural order: `_id` order, or insertion order in a capped collection. */
  *scan(
    meta: CollectionMeta,
    reverse = false,
    fields?: ReadonlySet<string>,
    stored?: StoredBytes,
  ): Generator<Document> {
    if (isCapped(meta)) {
      for (const id of this.scanIndex(meta, NATURAL, [], [HIGH], reverse)) {
        const doc = this.getByIdPart(meta, id, fields, stored);
        if (doc) yield doc;
      }
      return;
    }
    const low = [meta.db, meta.name];
    const high = [meta.db, meta.name, HIGH];
    const range = reverse ? { start: high, end: low, reverse } : { start: low, end: high };
    for (const { value } of this.kv.range("docs", range)) yield read(value as Buffer, fields, stored);
  }

  count(meta: CollectionMeta): number {
    return this.kv.count("docs", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] });
  }

  /** The `_id` key parts of the index entries between two key-part bounds, in index order. */
  *scanIndex(meta: CollectionMeta, indexName: string, start: Key, end: Key, reverse: boolean): Generator<KeyPart> {
    const prefix = [meta.db, meta.name, indexName];
    const low = [...prefix, ...start];
    const high = [...prefix, ...end];
    const range = reverse ? { start: high, end: low, reverse } : { start: low, end: high };
    for (const key of this.kv.keys("index", range)) {
      const k = key;
      yield [k[k.length - 2] as number, k[k.length - 1]];
    }
  }

  /** How many documents have entries between two key-part bounds (each counted once). */
  countIndex(meta: CollectionMeta, indexName: string, start: Key, end: Key, distinct: Set<string> | undefined): number {
    const prefix = [meta.db, meta.name, indexName];
    if (!distinct) return this.kv.count("index", { start: [...prefix, ...start], end: [...prefix, ...end] });
    const before = distinct.size;
    this.forEachIndexId(meta, indexName, start, end, (id) => distinct.add(id));
    return distinct.size - before;
  }

  /**
   * The `_id` key parts of the entries between two key-part bounds whose number key does not vouch
   * for the document's value (keys.ts SHARED_NUMBERS): the ones a count must read.
   */
  sharedNumberIds(meta: CollectionMeta, indexName: string, start: Key, end: Key): Generator<KeyPart> {
    return this.scanIndex(meta, indexName, [SHARED_NUMBERS, ...start], [SHARED_NUMBERS, ...end], false);
  }

  /**
   * The keys of the index entries between two key-part bounds, in index order, or its reverse
   * (a document's id is their last two parts).
   */
  indexKeys(meta: CollectionMeta, indexName: string, start: Key, end: Key, reverse = false): Iterable<Key> {
    const prefix = [meta.db, meta.name, indexName];
    const low = [...prefix, ...start];
    const high = [...prefix, ...end];
    return this.kv.keys("index", reverse ? { start: high, end: low, reverse } : { start: low, end: high });
  }

  /**
   * Calls `visit` with the document id of each entry between two key-part bounds, as a string
   * (`rank:value`) fit for a Set: counting walks that only compare ids, without a generator per
   * entry.
   */
  forEachIndexId(meta: CollectionMeta, indexName: string, start: Key, end: Key, visit: (id: string) => void): void {
    const prefix = [meta.db, meta.name, indexName];
    for (const key of this.kv.keys("index", { start: [...prefix, ...start], end: [...prefix, ...end] })) {
      const k = key;
      visit(idText(k[k.length - 2], k[k.length - 1]));
    }
  }
}
