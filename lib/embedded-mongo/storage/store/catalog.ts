/**
 * The store's catalog: collections, their options and index specifications, in memory and in
 * the `meta` sub-database.
 */
import { UUID, type Document } from "bson";
import { ID_INDEX, type IndexSpec } from "../index-spec";
import { HIGH } from "../keys";
import { ns, validateCollectionName, type CollectionMeta } from "./common";
import { RetryableStore } from "./retryable";

export abstract class CatalogStore extends RetryableStore {
  // ---- catalog ----

  collection(db: string, name: string): CollectionMeta | undefined {
    return this.catalog.get(ns(db, name));
  }

  collections(db: string): CollectionMeta[] {
    return [...this.catalog.values()].filter((c) => c.db === db);
  }

  databases(): string[] {
    return [...new Set([...this.catalog.values()].map((c) => c.db))];
  }

  ensureCollection(db: string, name: string, options: Document = {}): { meta: CollectionMeta; created: boolean } {
    const existing = this.collection(db, name);
    if (existing) return { meta: existing, created: false };
    validateCollectionName(name);
    // Under a default collation the `_id_` index has it too, as in MongoDB.
    const idIndex: IndexSpec = options.collation
      ? { ...ID_INDEX, collation: options.collation as Document }
      : { ...ID_INDEX };
    const meta: CollectionMeta = { db, name, uuid: new UUID().toHexString(), options, indexes: [idIndex] };
    this.saveMeta(meta);
    return { meta, created: true };
  }

  protected saveMeta(meta: CollectionMeta): void {
    this.catalog.set(ns(meta.db, meta.name), meta);
    this.kv.put("meta", [meta.db, meta.name], meta);
  }

  /** Replaces a collection's options and index specifications (collMod). */
  updateMeta(meta: CollectionMeta, options: Document, indexes: IndexSpec[]): void {
    meta.options = options;
    meta.indexes = indexes;
    this.saveMeta(meta);
  }

  dropCollection(meta: CollectionMeta): void {
    for (const key of [...this.kv.keys("docs", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })])
      this.kv.remove("docs", key);
    for (const key of [...this.kv.keys("index", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] })])
      this.kv.remove("index", key);
    this.kv.remove("meta", [meta.db, meta.name]);
    this.catalog.delete(ns(meta.db, meta.name));
    this.log({ op: "drop", db: meta.db, coll: meta.name });
  }

  renameCollection(meta: CollectionMeta, toDb: string, toName: string): void {
    const docs = [...this.scan(meta)];
    const indexes = meta.indexes;
    this.quietly(() => {
      this.dropCollection(meta);
      const { meta: target } = this.ensureCollection(toDb, toName, meta.options);
      target.indexes = indexes.map((i) => ({ ...i, multikeyFields: [] }));
      this.saveMeta(target);
      for (const doc of docs) this.insert(target, doc);
    });
    this.log({ op: "rename", db: meta.db, coll: meta.name, to: { db: toDb, coll: toName } });
  }

  abstract scan(meta: CollectionMeta, reverse?: boolean): Generator<Document>;
  abstract insert(meta: CollectionMeta, doc: Document): void;
}
