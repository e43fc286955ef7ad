/**
 * The store's writes, each inside `write()`: documents with their index entries and capped
 * collections' order, index builds. Each validates before it changes anything.
 */
import { type Document, EJSON } from "bson";
import type { Query } from "mingo";
import { MongoCommandError } from "../../errors";
import { serverContext } from "../../query/collated-query";
import { collatedEncoder, collatedProbes } from "../../query/collation";
import { compileFilter } from "../../query/filter";
import { checkTextLanguage, isTextIndex } from "../../query/text";
import { decodeDocument, decodeIdKey, idKeyOf, receivedBytes } from "../bson-values";
import { ID_INDEX, type IndexSpec } from "../index-spec";
import { HIGH, type KeyPart, SHARED_NUMBERS, idKey, indexKeys, parallelArrays, valuesAtPath } from "../keys";
import { updateDescription } from "../oplog";
import {
  type CollectionMeta,
  EMPTY,
  type Key,
  NATURAL,
  NATURAL_BY_ID,
  type PreparedIndex,
  cappedBytes,
  checkKeySizes,
  checkUniqueCollated,
  checkedSize,
  duplicateKey,
  hasPath,
  indexCollation,
  isCapped,
  sameIndexedValues,
  serialize,
} from "./common";
import { ConsistencyStore } from "./consistency";

export abstract class WriteStore extends ConsistencyStore {
  // ---- writes (inside write()) ----

  insert(meta: CollectionMeta, doc: Document): void {
    const id = idKey(doc._id);
    if (this.kv.get("docs", [meta.db, meta.name, ...id]) !== undefined) throw duplicateKey(meta, ID_INDEX, doc);
    const entries = this.indexEntries(meta, doc);
    checkKeySizes(meta, entries, id);
    this.checkUnique(meta, doc, entries);
    // A document inserted as a client sent it is stored in the bytes it came in: the same BSON.
    const bytes = checkedSize(doc, receivedBytes(doc)) ?? serialize(doc);
    this.kv.put("docs", [meta.db, meta.name, ...id], bytes);
    this.putEntries(meta, entries, id);
    this.log({ op: "insert", db: meta.db, coll: meta.name, key: idKeyOf(doc) }, bytes);
    if (isCapped(meta)) this.appendCapped(meta, id);
  }

  /**
   * Records a capped collection's new document as the newest, then removes the oldest beyond its
   * limits; through the key-value layer like any write, so the removals are deletes that
   * transactions, snapshots and change streams see (MongoDB logs them as deletes too).
   */
  protected appendCapped(meta: CollectionMeta, id: KeyPart): void {
    const n = meta.nextInsertion ?? 0;
    meta.nextInsertion = n + 1;
    this.saveMeta(meta);
    this.kv.put("index", [meta.db, meta.name, NATURAL, n, ...id], EMPTY);
    this.kv.put("index", [meta.db, meta.name, NATURAL_BY_ID, ...id, n], EMPTY);
    const max = Number(meta.options.max) > 0 ? Number(meta.options.max) : Infinity;
    let count = this.count(meta);
    let bytes = 0;
    for (const { value } of this.kv.range("docs", { start: [meta.db, meta.name], end: [meta.db, meta.name, HIGH] }))
      bytes += (value as Buffer).length;
    // The oldest go first, never the document just inserted; chosen before any is removed.
    const victims: Document[] = [];
    for (const oldest of this.scanIndex(meta, NATURAL, [], [HIGH], false)) {
      if ((count <= max && bytes <= cappedBytes(meta)) || JSON.stringify(oldest) === JSON.stringify(id)) break;
      const buf = this.kv.get("docs", [meta.db, meta.name, ...oldest]) as Buffer | undefined;
      if (!buf) continue;
      bytes -= buf.length;
      count -= 1;
      victims.push(decodeDocument(buf));
    }
    for (const doc of victims) this.remove(meta, doc);
  }

  /**
   * Applies a transaction's writes as it made them over its snapshot: its documents in the order
   * written, the index entries it put and removed, and the multikey flags it learned. Only for
   * collections whose indexes are those of that snapshot (transactions.ts checks), where its
   * entries still hold, so a commit computes nothing twice. In the collections of `recheck`
   * (`db.name`), which others wrote to since the snapshot, each unique key it put is checked
   * once all is applied: no other document may hold it.
   */
  applyOwnWrites(
    docs: Array<{ key: Key; value: unknown }>,
    entries: Array<{ key: Key; value: unknown }>,
    metas: CollectionMeta[],
    recheck: ReadonlySet<string> = new Set(),
  ): void {
    for (const { key, value } of docs) {
      const [db, coll] = key as [string, string];
      const before = this.kv.get("docs", key) as Buffer | undefined;
      if (value === null) {
        if (!before) continue;
        this.kv.remove("docs", key);
        this.log({ op: "delete", db, coll, key: decodeIdKey(before as Buffer) });
        continue;
      }
      this.kv.put("docs", key, value);
      if (before) {
        const doc = this.written.get(value as Buffer) ?? decodeDocument(value as Buffer);
        this.log({ op: "update", db, coll, key: idKeyOf(doc), update: updateDescription(decodeDocument(before), doc) });
      } else this.log({ op: "insert", db, coll, key: decodeIdKey(value as Buffer) }, value as Buffer);
    }
    for (const { key, value } of entries) {
      if (value === null) this.kv.remove("index", key);
      else this.kv.put("index", key, value);
    }
    if (recheck.size > 0) {
      for (const { key, value } of entries) if (value !== null) this.checkUniqueEntry(key, recheck);
    }
    for (const mine of metas) {
      const meta = this.collection(mine.db, mine.name);
      if (!meta) continue;
      const learned = meta.indexes
        .map((index, at) => ({ index, fields: mine.indexes[at]?.multikeyFields ?? [] }))
        .filter(({ index, fields }) => fields.some((f) => !(index.multikeyFields ?? []).includes(f)));
      for (const { index, fields } of learned)
        index.multikeyFields = [...new Set([...(index.multikeyFields ?? []), ...fields])];
      if (learned.length > 0) this.saveMeta(meta);
    }
  }

  /**
   * An index entry `[db, collection, index, ...key, ...id]` just put, when its index is unique and
   * its collection is one of `recheck`: refused when another document's entry has the same key
   * and its values are the same (a key cut short for a long string may hold others).
   */
  private checkUniqueEntry(entry: Key, recheck: ReadonlySet<string>): void {
    const [db, name, indexName] = entry as [string, string, string];
    if (!recheck.has(`${db}.${name}`)) return;
    const meta = this.collection(db, name);
    const index = meta?.indexes.find((i) => i.name === indexName);
    if (!meta || !index?.unique) return;
    const id: KeyPart = [entry[entry.length - 2] as number, entry[entry.length - 1]];
    const own = JSON.stringify(id);
    const key = entry.slice(3, -2);
    for (const other of this.scanIndex(meta, indexName, key, [...key, HIGH], false)) {
      if (JSON.stringify(other) === own) continue;
      const doc = this.getByIdPart(meta, id);
      const otherDoc = this.getByIdPart(meta, other);
      if (doc && otherDoc && sameIndexedValues(index, otherDoc, doc)) throw duplicateKey(meta, index, doc);
    }
  }

  /** `kind`: how change streams report it, an `update` (with what changed) or a `replace`. */
  replace(meta: CollectionMeta, before: Document, after: Document, kind: "update" | "replace" = "update"): void {
    const id = idKey(before._id);
    const bytes = serialize(after);
    this.written.set(bytes, after);
    const oldEntries = this.indexEntries(meta, before);
    const newEntries = this.indexEntries(meta, after);
    checkKeySizes(meta, newEntries, id);
    // An entry both versions have stays as it is: removed and put again it would end the same,
    // at the cost of two writes (and, in a transaction, two more at its commit) for most of a
    // document's entries, which an update seldom changes.
    const { oldKept, newKept } = keptEntries(oldEntries, newEntries);
    // A unique index whose entries and values the update left as they were needs no check: the
    // document held them already, so no other document can (a commit rechecks only what it puts).
    this.checkUnique(
      meta,
      after,
      newEntries.filter((entry, at) => !newKept[at].every(Boolean) || !sameValuesAt(entry.index, before, after)),
    );
    oldEntries.forEach(({ index, keys }, at) => {
      keys.forEach((key, k) => {
        if (!oldKept[at][k]) this.kv.remove("index", [meta.db, meta.name, index.name, ...key, ...id]);
      });
    });
    this.kv.put("docs", [meta.db, meta.name, ...id], bytes);
    this.putEntries(
      meta,
      newEntries.map((entry, at) =>
        // Assigned, not spread then extended: the slow literal of Node 20 (../../README.md#object-literals).
        newKept[at].some(Boolean)
          ? Object.assign({}, entry, { keys: entry.keys.filter((_, k) => !newKept[at][k]) })
          : entry,
      ),
      id,
    );
    const change = kind === "replace" ? { doc: after } : { update: updateDescription(before, after) };
    this.log({ op: kind, db: meta.db, coll: meta.name, key: idKeyOf(before), ...change });
  }

  remove(meta: CollectionMeta, doc: Document): void {
    const id = idKey(doc._id);
    for (const { index, keys } of this.indexEntries(meta, doc)) {
      for (const key of keys) this.kv.remove("index", [meta.db, meta.name, index.name, ...key, ...id]);
    }
    this.kv.remove("docs", [meta.db, meta.name, ...id]);
    if (isCapped(meta)) {
      const byId = [meta.db, meta.name, NATURAL_BY_ID, ...id];
      for (const key of [...this.kv.keys("index", { start: byId, end: [...byId, HIGH] })]) {
        const n = key[key.length - 1];
        this.kv.remove("index", key);
        this.kv.remove("index", [meta.db, meta.name, NATURAL, n, ...id]);
      }
    }
    this.log({ op: "delete", db: meta.db, coll: meta.name, key: idKeyOf(doc) });
  }

  /**
   * Computes an index's entries over the existing documents, refusing duplicates of a unique one;
   * writes nothing, so several indexes can all be checked before any of them is built.
   */
  prepareIndex(meta: CollectionMeta, spec: IndexSpec): PreparedIndex {
    const entries: Array<{ doc: Document; keys: Key[] }> = [];
    const multikeyFields = new Set<string>();
    for (const doc of this.scan(meta)) {
      const keyed = this.keysFor(spec, doc);
      if (!keyed) continue;
      for (const f of keyed.multikeyFields) multikeyFields.add(f);
      entries.push({ doc, keys: keyed.keys });
    }
    // The repeated entries of shared number keys (keys.ts SHARED_NUMBERS) duplicate their own.
    const unique = entries.map(({ doc, keys }) => ({ doc, keys: keys.filter((k) => k[0] !== SHARED_NUMBERS) }));
    const collation = indexCollation(spec);
    if (spec.unique && collation) checkUniqueCollated(meta, spec, collation, unique);
    else if (spec.unique) {
      const seen = new Map<string, Document>();
      for (const { doc, keys } of unique) {
        for (const key of keys) {
          const sig = JSON.stringify(key);
          const other = seen.get(sig);
          if (other && sameIndexedValues(spec, other, doc)) throw duplicateKey(meta, spec, doc);
          seen.set(sig, doc);
        }
      }
    }
    return { spec: { ...spec, multikeyFields: [...multikeyFields] }, entries };
  }

  buildIndex(meta: CollectionMeta, prepared: PreparedIndex): void {
    meta.indexes.push(prepared.spec);
    for (const { doc, keys } of prepared.entries) {
      const id = idKey(doc._id);
      for (const key of keys) this.kv.put("index", [meta.db, meta.name, prepared.spec.name, ...key, ...id], EMPTY);
    }
    this.saveMeta(meta);
  }

  createIndex(meta: CollectionMeta, spec: IndexSpec): void {
    this.buildIndex(meta, this.prepareIndex(meta, spec));
  }

  dropIndex(meta: CollectionMeta, name: string): void {
    const prefix = [meta.db, meta.name, name];
    for (const key of [...this.kv.keys("index", { start: prefix, end: [...prefix, SHARED_NUMBERS, HIGH] })])
      this.kv.remove("index", key);
    meta.indexes = meta.indexes.filter((i) => i.name !== name);
    this.saveMeta(meta);
  }

  protected keysFor(index: IndexSpec, doc: Document): { keys: Key[]; multikeyFields: string[] } | undefined {
    // A text index keeps no entries ($text reads and scores the documents); it only checks languages.
    if (isTextIndex(index)) {
      checkTextLanguage(index, doc);
      return undefined;
    }
    const fields = Object.keys(index.key);
    if (
      index.sparse &&
      fields.every((f) => valuesAtPath(doc, f).values.every((v) => v === null || v === undefined) && !hasPath(doc, f))
    )
      return undefined;
    if (index.partialFilterExpression && !partialFilter(index.partialFilterExpression).test(doc)) return undefined;
    const parallel = fields.length > 1 ? parallelArrays(doc, fields) : undefined;
    if (parallel)
      throw new MongoCommandError(
        "CannotIndexParallelArrays",
        `cannot index parallel arrays [${parallel[1]}] [${parallel[0]}]`,
      );
    const collation = indexCollation(index);
    const { keys, multikeyFields } = indexKeys(doc, fields, collation ? collatedEncoder(collation) : undefined);
    const hashedArray = multikeyFields.find((f) => index.key[f] === "hashed");
    if (hashedArray)
      throw new MongoCommandError("Location16766", "Error: hashed indexes do not currently support array values");
    // An entry whose number key does not vouch for its value is listed again apart (keys.ts
    // SHARED_NUMBERS), so a count from the index reads those documents alone; not for a hashed key.
    const hashed = Object.values(index.key).includes("hashed");
    const shared = hashed ? [] : keys.filter((k) => k.shared).map((k) => [SHARED_NUMBERS, ...k.parts]);
    return { keys: [...keys.map((k) => k.parts), ...shared], multikeyFields };
  }

  protected indexEntries(
    meta: CollectionMeta,
    doc: Document,
  ): Array<{ index: IndexSpec; keys: Key[]; multikeyFields: string[] }> {
    const out: Array<{ index: IndexSpec; keys: Key[]; multikeyFields: string[] }> = [];
    for (const index of meta.indexes) {
      // The `_id_` index has entries of its own only under a collation (the documents are stored
      // by their exact `_id`, which cannot tell `"A"` from `"a"` under strength 2).
      if (index.name === ID_INDEX.name && !index.collation) continue;
      const keyed = this.keysFor(index, doc);
      if (keyed) out.push({ index, ...keyed });
    }
    return out;
  }

  protected checkUnique(meta: CollectionMeta, doc: Document, entries: Array<{ index: IndexSpec; keys: Key[] }>): void {
    const id = JSON.stringify(idKey(doc._id));
    for (const { index, keys } of entries) {
      if (!index.unique && index.name !== ID_INDEX.name) continue;
      const collation = indexCollation(index);
      for (const key of keys) {
        // The repeated entries of shared number keys (keys.ts SHARED_NUMBERS) duplicate their own.
        if (key[0] === SHARED_NUMBERS) continue;
        for (const probe of collation ? collatedProbes(key) : [key]) {
          for (const other of this.scanIndex(meta, index.name, probe, [...probe, HIGH], false)) {
            if (JSON.stringify(other) === id) continue;
            const otherDoc = this.getByIdPart(meta, other);
            if (otherDoc && sameIndexedValues(index, otherDoc, doc, collation)) throw duplicateKey(meta, index, doc);
          }
        }
      }
    }
  }

  protected putEntries(
    meta: CollectionMeta,
    entries: Array<{ index: IndexSpec; keys: Key[]; multikeyFields: string[] }>,
    id: KeyPart,
  ): void {
    for (const { index, keys, multikeyFields } of entries) {
      const known = index.multikeyFields ?? [];
      const added = multikeyFields.filter((f) => !known.includes(f));
      if (added.length) {
        index.multikeyFields = [...known, ...added];
        this.saveMeta(meta);
      }
      for (const key of keys) this.kv.put("index", [meta.db, meta.name, index.name, ...key, ...id], EMPTY);
    }
  }
}

const entryText = (index: IndexSpec, key: Key): string => JSON.stringify([index.name, ...key]);

/**
 * Which index entries (per index, per key) both lists hold, part for part the same: `oldKept`
 * follows `before`'s entries, `newKept` `after`'s.
 */
function keptEntries(
  before: ReadonlyArray<{ index: IndexSpec; keys: Key[] }>,
  after: ReadonlyArray<{ index: IndexSpec; keys: Key[] }>,
): { oldKept: boolean[][]; newKept: boolean[][] } {
  // A text may stand for several entries of `before` (the same key twice): all of them stay.
  const old = new Map<string, { key: Key; at: Array<[number, number]> }>();
  const oldKept = before.map(({ index, keys }, at) =>
    keys.map((key, k) => {
      const text = entryText(index, key);
      const known = old.get(text);
      if (known) known.at.push([at, k]);
      else old.set(text, { key, at: [[at, k]] });
      return false;
    }),
  );
  const newKept = after.map(({ index, keys }) =>
    keys.map((key) => {
      const was = old.get(entryText(index, key));
      // JSON writes -0 as 0: the parts themselves decide.
      if (!was || was.key.length !== key.length || !was.key.every((part, i) => Object.is(part, key[i]))) return false;
      for (const [at, k] of was.at) oldKept[at][k] = true;
      return true;
    }),
  );
  return { oldKept, newKept };
}

/** Whether two versions of a document hold exactly the same values (types too) at every field of an index. */
function sameValuesAt(index: IndexSpec, a: Document, b: Document): boolean {
  return Object.keys(index.key).every((field) => {
    const av = valuesAtPath(a, field).values;
    const bv = valuesAtPath(b, field).values;
    return av.length === bv.length && av.every((v, i) => canonical(v) === canonical(bv[i]));
  });
}

const canonical = (value: unknown): string => EJSON.stringify({ v: value } as Document, { relaxed: false });

/** Each partial index's filter, compiled once (a document's keys are computed on every write). */
const partialFilters = new WeakMap<Document, Query>();

/** A `partialFilterExpression` compiled as any filter: documents compared field by field in order. */
function partialFilter(expression: Document): Query {
  let query = partialFilters.get(expression);
  if (!query) {
    query = compileFilter(expression, { idKey: "_id", context: serverContext() });
    partialFilters.set(expression, query);
  }
  return query;
}
