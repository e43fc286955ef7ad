/**
 * Durable storage on LMDB. Sub-databases of one environment, written together in one
 * transaction per write command:
 *   docs     [db, collection, idRank, idValue]                        -> the document as BSON
 *   index    [db, collection, indexName, ...keyParts, idRank, idValue] -> empty
 *   meta     [db, collection]                                         -> collection catalog entry
 *   sessions [sessionId]                                              -> its last retryable write and reply
 *   oplog    [seconds, increment, 0, n]                               -> the n changes of one write (oplog.ts)
 * Every write method here must run inside `write()`. They validate before they change anything,
 * so a failed operation never leaves half of itself behind.
 * The store is built in sections (store/): base (the write transaction and the oplog), retryable
 * writes, catalog, reads, consistency, writes; each a class extending the one before.
 */
import { open } from "lmdb";
import fs from "node:fs";
import { DEFAULT_OPLOG_MAX_AGE_SECONDS, DEFAULT_OPLOG_MAX_ENTRIES } from "./oplog";
import { type CollectionMeta, type Key, type OplogLimits } from "./store/common";
import { WriteStore } from "./store/writes";

export { isCapped, ns, type CollectionMeta } from "./store/common";

export class Store extends WriteStore {
  static open(dir: string, limits: Partial<OplogLimits> = {}): Store {
    fs.mkdirSync(dir, { recursive: true });
    // lmdb takes a path with an extension (`/tmp/tmp.AbC123`) for a file of its own unless told
    // that the path is a directory.
    const env = open({ path: dir, noSubdir: false, maxDbs: 8 });
    return new Store(
      env,
      env.openDB<Buffer, Key>("docs", { encoding: "binary" }),
      env.openDB<Buffer, Key>("index", { encoding: "binary" }),
      env.openDB<CollectionMeta, Key>("meta", {}),
      env.openDB<Buffer, Key>("sessions", { encoding: "binary" }),
      env.openDB<Buffer, Key>("oplog", { encoding: "binary" }),
      {
        maxEntries: limits.maxEntries ?? DEFAULT_OPLOG_MAX_ENTRIES,
        maxAgeSeconds: limits.maxAgeSeconds ?? DEFAULT_OPLOG_MAX_AGE_SECONDS,
      },
    );
  }
}
