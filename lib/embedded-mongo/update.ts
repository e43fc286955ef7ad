/**
 * Applies one update to one document: operator updates through mingo's updater, replacements,
 * and aggregation-pipeline updates; plus the document an upsert inserts. The stored document is
 * never mutated in place: a deep BSON copy is changed and returned.
 */
import { BSON, EJSON, ObjectId, type Document } from "bson";
import { Aggregator } from "mingo";
import { update as mingoUpdate } from "mingo/updater";
import type { Options } from "mingo/types";
import { MongoCommandError } from "./errors";
import { isPlainObject } from "./keys";

const OPERATORS = new Set(["$set", "$unset", "$inc", "$mul", "$min", "$max", "$rename", "$push", "$pull", "$pullAll", "$addToSet", "$pop", "$currentDate", "$setOnInsert", "$bit"]);

export type UpdateSpec = Document | Document[];

export function copyDocument(doc: Document): Document {
  return BSON.deserialize(BSON.serialize(doc), { promoteLongs: true, promoteValues: true });
}

export function isOperatorUpdate(u: UpdateSpec): u is Document {
  return !Array.isArray(u) && Object.keys(u).some((k) => k.startsWith("$"));
}

export interface ApplyOptions {
  arrayFilters?: Document[];
  /** The query the document matched: resolves the positional `$` operator. */
  query?: Document;
  /** True when the document is being created by an upsert ($setOnInsert applies). */
  inserting?: boolean;
  mingo?: Partial<Options>;
}

export function applyUpdate(doc: Document, u: UpdateSpec, opts: ApplyOptions = {}): { doc: Document; modified: boolean } {
  let next: Document;
  if (Array.isArray(u)) {
    next = applyPipeline(doc, u, opts.mingo);
    // $replaceRoot / $replaceWith may produce a document without `_id`: it keeps the old one.
    if (next._id === undefined && doc._id !== undefined) next._id = doc._id;
  } else if (isOperatorUpdate(u)) {
    next = copyDocument(doc);
    applyOperators(next, u, opts);
  } else {
    next = replacement(doc, u);
  }
  if (doc._id !== undefined && !sameValue(doc._id, next._id)) {
    throw new MongoCommandError("ImmutableField", "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  const ordered = next._id === undefined ? next : { _id: next._id, ...withoutId(next) };
  return { doc: ordered, modified: !sameDocument(doc, ordered) };
}

function withoutId(doc: Document): Document {
  const rest = { ...doc };
  delete rest._id;
  return rest;
}

function replacement(doc: Document, u: Document): Document {
  for (const key of Object.keys(u)) {
    if (key.startsWith("$")) throw new MongoCommandError("DollarPrefixedFieldName", `The dollar ($) prefixed field '${key}' in '${key}' is not allowed in the context of an update's replacement document.`);
  }
  const next = copyDocument(u);
  if (next._id === undefined && doc._id !== undefined) next._id = doc._id;
  return next;
}

function applyPipeline(doc: Document, pipeline: Document[], options?: Partial<Options>): Document {
  const allowed = new Set(["$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"]);
  for (const stage of pipeline) {
    const name = Object.keys(stage)[0];
    if (!allowed.has(name)) throw new MongoCommandError("InvalidOptions", `${name} is not allowed to be used within an update`);
  }
  try {
    const [out] = new Aggregator(pipeline, options).run([copyDocument(doc)]) as Document[];
    return out ?? {};
  } catch (err) {
    throw new MongoCommandError("BadValue", err instanceof Error ? err.message : String(err));
  }
}

function applyOperators(target: Document, u: Document, opts: ApplyOptions): void {
  const modifier: Document = {};
  for (const [op, fields] of Object.entries(u)) {
    if (!OPERATORS.has(op)) {
      throw new MongoCommandError("FailedToParse", `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
    if (!isPlainObject(fields)) throw new MongoCommandError("FailedToParse", `Modifiers operate on fields but we found type ${typeof fields} instead.`);
    if (op === "$setOnInsert") {
      if (opts.inserting) modifier.$set = { ...(modifier.$set ?? {}), ...fields };
      continue;
    }
    if (op === "$set" && modifier.$set) modifier.$set = { ...modifier.$set, ...fields };
    else modifier[op] = fields;
  }
  checkConflicts(u, opts.inserting === true);
  // mingo refuses `_id` in $set; MongoDB takes it on insert, and as a no-op when unchanged.
  const set = modifier.$set as Document | undefined;
  if (set && "_id" in set) {
    const { _id: id, ...rest } = set;
    if (target._id !== undefined && !sameValue(target._id, id)) {
      throw new MongoCommandError("ImmutableField", "Performing an update on the path '_id' would modify the immutable field '_id'");
    }
    target._id = id;
    if (Object.keys(rest).length) modifier.$set = rest;
    else delete modifier.$set;
  }
  if (Object.keys(modifier).length === 0) return;
  try {
    mingoUpdate(target, modifier, opts.arrayFilters, opts.inserting ? undefined : opts.query, { cloneMode: "deep", queryOptions: opts.mingo });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new MongoCommandError(/type|cannot|non-numeric|must be/i.test(message) ? "TypeMismatch" : "BadValue", message);
  }
}

/** MongoDB refuses two operators touching the same path, or one path and its parent. */
function checkConflicts(u: Document, inserting: boolean): void {
  const paths: string[] = [];
  for (const [op, fields] of Object.entries(u)) {
    if (op === "$setOnInsert" && !inserting) continue;
    for (const [path, value] of Object.entries(fields as Document)) {
      paths.push(path);
      if (op === "$rename" && typeof value === "string") paths.push(value);
    }
  }
  const seen: string[] = [];
  for (const path of paths) {
    const clean = path.replace(/\.\$(\[[^\]]*\])?/g, "");
    for (const other of seen) {
      if (clean === other || clean.startsWith(`${other}.`) || other.startsWith(`${clean}.`)) {
        throw new MongoCommandError("ConflictingUpdateOperators", `Updating the path '${path}' would create a conflict at '${other}'`);
      }
    }
    seen.push(clean);
  }
}

/** The document an upsert starts from: the equality conditions of its query. */
export function upsertSeed(query: Document): Document {
  const seed: Document = {};
  const visit = (q: Document) => {
    for (const [field, cond] of Object.entries(q)) {
      if (field === "$and" && Array.isArray(cond)) {
        for (const sub of cond) if (isPlainObject(sub)) visit(sub);
        continue;
      }
      if (field.startsWith("$")) continue;
      if (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith("$"))) {
        if ("$eq" in cond) setPath(seed, field, cond.$eq);
        continue;
      }
      setPath(seed, field, cond);
    }
  };
  visit(query);
  return seed;
}

function setPath(doc: Document, path: string, value: unknown): void {
  const parts = path.split(".");
  let cur: Document = doc;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(cur[part])) cur[part] = {};
    cur = cur[part] as Document;
  }
  cur[parts[parts.length - 1]] = value;
}

export function buildUpsert(query: Document, u: UpdateSpec, opts: ApplyOptions): Document {
  let doc: Document;
  if (Array.isArray(u) || isOperatorUpdate(u)) {
    doc = applyUpdate(upsertSeed(query), u, { ...opts, inserting: true }).doc;
  } else {
    doc = replacement({}, u);
    const seed = upsertSeed(query);
    if (doc._id === undefined && seed._id !== undefined) doc._id = seed._id;
  }
  if (doc._id === undefined) doc._id = new ObjectId();
  return { _id: doc._id, ...withoutId(doc) };
}

export function sameValue(a: unknown, b: unknown): boolean {
  return EJSON.stringify({ v: a } as Document, { relaxed: false }) === EJSON.stringify({ v: b } as Document, { relaxed: false });
}

function sameDocument(a: Document, b: Document): boolean {
  return Buffer.from(BSON.serialize(a)).equals(BSON.serialize(b));
}
