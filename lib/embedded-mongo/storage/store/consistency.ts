/**
 * What `validate` reads of the store: raw records and index entries, and the entries a document
 * should have.
 */
import { type Document } from "bson";
import { type IndexSpec } from "../index-spec";
import { HIGH, type KeyPart } from "../keys";
import { type CollectionMeta, type Key } from "./common";
import { ReadStore } from "./reads";

export abstract class ConsistencyStore extends ReadStore {
  // ---- consistency (validate) ----

  /** Each stored document's `_id` key parts and raw BSON, undecoded: validate checks they decode. */
  *records(meta: CollectionMeta): Generator<{ id: KeyPart; bytes: Buffer }> {
    for (const { key: k, value } of this.kv.range("docs", {
      start: [meta.db, meta.name],
      end: [meta.db, meta.name, HIGH],
    })) {
      yield { id: [k[k.length - 2] as number, k[k.length - 1]], bytes: value as Buffer };
    }
  }

  /** Every entry stored in one index, as its key parts followed by the document's `_id` parts. */
  *storedIndexEntries(meta: CollectionMeta, indexName: string): Generator<Key> {
    const prefix = [meta.db, meta.name, indexName];
    for (const key of this.kv.keys("index", { start: prefix, end: [...prefix, HIGH] })) yield key.slice(prefix.length);
  }

  /** Whether one index holds the entry `key` (key parts followed by the document's `_id` parts). */
  hasIndexEntry(meta: CollectionMeta, indexName: string, key: Key): boolean {
    return this.kv.get("index", [meta.db, meta.name, indexName, ...key]) !== undefined;
  }

  /** The entries `insert` writes for `doc` in each index that keeps entries (the same key function). */
  expectedIndexEntries(meta: CollectionMeta, doc: Document): Array<{ index: IndexSpec; keys: Key[] }> {
    return this.indexEntries(meta, doc).map(({ index, keys }) => ({ index, keys }));
  }

  protected abstract indexEntries(
    meta: CollectionMeta,
    doc: Document,
  ): Array<{ index: IndexSpec; keys: Key[]; multikeyFields: string[] }>;
}
