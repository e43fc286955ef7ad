import type { Document } from "bson";

/** An index as the catalog keeps it and `listIndexes` lists it. */
export interface IndexSpec {
  v: number;
  name: string;
  /** 1 or -1 per field; "hashed" for a hashed field; `_fts: "text", _ftsx: 1` for a text index. */
  key: Record<string, number | string>;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  expireAfterSeconds?: number;
  /** The index's collation in full (none: simple, binary comparison). */
  collation?: Document;
  /** Kept up to date and enforced (unique), listed, but never chosen by the planner. */
  hidden?: boolean;
  /** A text index's options, as MongoDB lists them. */
  weights?: Record<string, number>;
  default_language?: string;
  language_override?: string;
  textIndexVersion?: number;
  /**
   * The fields of the key pattern where some document held an array (MongoDB's multikey paths):
   * those fields can yield several entries per document, so they limit bounds and sorting.
   */
  multikeyFields?: string[];
}

/** The index every collection has on `_id`. */
export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: "_id_" };
