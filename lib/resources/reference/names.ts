/**
 * The names of one company's reference data for a stream of records (an export): each batch's
 * unknown ids are read in one query per kind, and the names already read are kept, so a million
 * rows cost a handful of reads instead of one per row.
 */
import { oid, type ObjectId } from "@/lib/kernel/ids";
import { LRUCache } from "lru-cache";
import { findReference, type ReferenceKind } from "./repository";

/** Names kept per kind: more than a company has of most kinds, and a bound on memory for any. */
const KEPT = 10_000;

export class ReferenceNames {
  private readonly names = new Map<ReferenceKind, LRUCache<string, string>>();

  constructor(private readonly companyId: ObjectId) {}

  /** Reads the names of the ids of each kind not read yet (hex strings, as records show them). */
  async load(wanted: Partial<Record<ReferenceKind, Iterable<string>>>): Promise<void> {
    await Promise.all(
      Object.entries(wanted).map(async ([kind, ids]) => {
        const cache = this.cache(kind as ReferenceKind);
        const missing = [...new Set(ids)].filter((id) => !cache.has(id));
        if (missing.length === 0) return;
        const found = await findReference(
          kind as ReferenceKind,
          { company: this.companyId, _id: { $in: missing.map(oid) } },
          { projection: { name: 1 } },
        );
        for (const doc of found) cache.set(doc._id.toHexString(), doc.name);
      }),
    );
  }

  /** The name of a loaded id; the id itself when it names no record of the company (deleted since). */
  name(kind: ReferenceKind, id: string): string {
    return this.cache(kind).get(id) ?? id;
  }

  private cache(kind: ReferenceKind): LRUCache<string, string> {
    let cache = this.names.get(kind);
    if (!cache) this.names.set(kind, (cache = new LRUCache({ max: KEPT })));
    return cache;
  }
}
