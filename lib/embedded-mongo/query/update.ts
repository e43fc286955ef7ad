/**
 * Applies one update to one document: operator updates through mingo's updater, replacements,
 * and aggregation-pipeline updates; plus the document an upsert inserts. The stored document is
 * never mutated in place: a deep BSON copy is changed and returned.
 */
import { EJSON, ObjectId, Timestamp, type Document } from "bson";
import type { Options } from "mingo/types";
import { update as mingoUpdate } from "mingo/updater";
import { MongoCommandError } from "../errors";
import {
  copyDocument,
  idFirst,
  numberTypeAt,
  sameEncoding,
  setField,
  setNumberType,
  type NumberType,
} from "../storage/bson-values";
import { compareValues, isPlainObject } from "../storage/keys";
import { makeAggregator, optionsCollation } from "./collated-query";
import { compileFilter } from "./filter";
import { rewriteTypeOperators, typeName } from "./type-operators";

const OPERATORS = new Set([
  "$set",
  "$unset",
  "$inc",
  "$mul",
  "$min",
  "$max",
  "$rename",
  "$push",
  "$pull",
  "$pullAll",
  "$addToSet",
  "$pop",
  "$currentDate",
  "$setOnInsert",
  "$bit",
]);

export type UpdateSpec = Document | Document[];

function isOperatorUpdate(u: UpdateSpec): u is Document {
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

export function applyUpdate(
  doc: Document,
  u: UpdateSpec,
  opts: ApplyOptions = {},
): { doc: Document; modified: boolean } {
  let next: Document;
  if (Array.isArray(u)) {
    next = applyPipeline(doc, u, opts.mingo);
    // $replaceRoot / $replaceWith may produce a document without `_id`: it keeps the old one.
    if (next._id === undefined && doc._id !== undefined) next._id = doc._id;
  } else if (isOperatorUpdate(u)) {
    next = copyDocument(doc);
    // arrayFilters are filters like any other: the server's own operators, documents compared in order.
    const arrayFilters =
      opts.mingo && opts.arrayFilters
        ? opts.arrayFilters.map((f) => (isPlainObject(f) ? rewriteTypeOperators(f) : f))
        : opts.arrayFilters;
    applyOperators(next, u, { ...opts, arrayFilters });
  } else {
    next = replacement(doc, u);
  }
  if (doc._id !== undefined && !sameValue(doc._id, next._id)) {
    throw new MongoCommandError(
      "ImmutableField",
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  const ordered = next._id === undefined || Object.keys(next)[0] === "_id" ? next : idFirst(next, next._id);
  return { doc: ordered, modified: !sameEncoding(doc, ordered) };
}

function replacement(doc: Document, u: Document): Document {
  for (const key of Object.keys(u)) {
    if (key.startsWith("$"))
      throw new MongoCommandError(
        "DollarPrefixedFieldName",
        `The dollar ($) prefixed field '${key}' in '${key}' is not allowed in the context of an update's replacement document.`,
      );
  }
  const next = copyDocument(u);
  if (next._id === undefined && doc._id !== undefined) next._id = doc._id;
  return next;
}

function applyPipeline(doc: Document, pipeline: Document[], options?: Partial<Options>): Document {
  const allowed = new Set(["$addFields", "$set", "$project", "$unset", "$replaceRoot", "$replaceWith"]);
  for (const stage of pipeline) {
    const name = Object.keys(stage)[0];
    if (!allowed.has(name))
      throw new MongoCommandError("InvalidOptions", `${name} is not allowed to be used within an update`);
  }
  try {
    const [out] = makeAggregator(pipeline, options).run([copyDocument(doc)]) as Document[];
    return out ?? {};
  } catch (err) {
    throw new MongoCommandError("BadValue", err instanceof Error ? err.message : String(err));
  }
}

function applyOperators(target: Document, u: Document, opts: ApplyOptions): void {
  const steps: Array<{ op: string; path: string; value: unknown; type: NumberType | undefined }> = [];
  for (const [op, fields] of Object.entries(u)) {
    if (!OPERATORS.has(op)) {
      throw new MongoCommandError(
        "FailedToParse",
        `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`,
      );
    }
    if (!isPlainObject(fields))
      throw new MongoCommandError(
        "FailedToParse",
        `Modifiers operate on fields but we found type ${typeof fields} instead.`,
      );
    if (op === "$setOnInsert" && !opts.inserting) continue;
    for (const [path, value] of Object.entries(fields)) {
      // The current date or timestamp is a value set like any other, one for the whole update.
      if (op === "$currentDate") steps.push({ op: "$set", path, value: currentDate(value, opts), type: undefined });
      else steps.push({ op: op === "$setOnInsert" ? "$set" : op, path, value, type: numberTypeAt(fields, path) });
    }
  }
  checkConflicts(u, opts.inserting === true);
  // The positional `$` names the element the query matched in the document as it was: each
  // path is applied on its own below, and an earlier one may change what the query matches.
  if (!opts.inserting && opts.query)
    for (const step of steps) step.path = resolvePositional(target, step.path, opts.query, opts.mingo);
  // MongoDB applies the fields of all operators in lexicographic order of their paths (numeric
  // names in numeric order), which decides the order of the fields an update creates.
  steps.sort((a, b) => comparePaths(a.path, b.path));
  for (const { op, path, value, type } of steps) {
    // mingo refuses `_id` in $set; MongoDB takes it on insert, and as a no-op when unchanged.
    if (op === "$set" && path === "_id") {
      if (target._id !== undefined && !sameValue(target._id, value)) {
        throw new MongoCommandError(
          "ImmutableField",
          "Performing an update on the path '_id' would modify the immutable field '_id'",
        );
      }
      target._id = value;
      continue;
    }
    if (CREATING.has(op)) assertPathViable(target, path);
    if (ARRAY_OPERATORS.has(op)) assertArrayAt(target, op, path);
    if (op === "$inc" || op === "$mul") assertNumericAt(target, op, path);
    if (op === "$rename" && typeof value === "string") assertPathViable(target, value);
    // One path at a time: mingo takes two paths under the same positional array for a conflict,
    // where MongoDB refuses only a path that is another's prefix (checked above).
    if ((op === "$set" && setHere(target, path, value)) || (op === "$inc" && incHere(target, path, value)))
      noteResultType(target, op, path, type);
    else if (op === "$pull" && isDocumentQuery(value) && !path.includes("$")) pullByQuery(target, path, value, opts);
    else if ((op === "$addToSet" || op === "$pullAll") && setOperatorHere(target, op, path, value, type, opts))
      continue;
    else {
      applyOne(target, op, path, value, opts);
      if (op === "$set" || op === "$inc" || op === "$mul") noteResultType(target, op, path, type);
    }
  }
}

/**
 * The container of a plain path's last field (no operator, no inherited name), walking documents
 * by name and arrays by index, and that field's name; undefined for a path that is not plain.
 */
function plainParent(target: Document, path: string): { parent: unknown; key: string } | undefined {
  const parts = path.split(".");
  if (parts.some((p) => p.startsWith("$") || p in Object.prototype)) return undefined;
  let parent: unknown = target;
  for (const part of parts.slice(0, -1)) {
    parent = Array.isArray(parent)
      ? /^\d+$/.test(part)
        ? parent[Number(part)]
        : undefined
      : isPlainObject(parent)
        ? own(parent, part)
        : undefined;
  }
  return { parent, key: parts[parts.length - 1] };
}

/**
 * `$set` of a plain path whose container is a document, done here: mingo skips a value it deems
 * equal, and it deems binary data equal whatever the subtype, where MongoDB writes the new value;
 * a new field goes last, as mingo and MongoDB put it. (mingo's updater also copies the server's
 * whole operator context on every call.)
 */
function setHere(target: Document, path: string, value: unknown): boolean {
  const plain = plainParent(target, path);
  if (!plain) return false;
  const { parent, key } = plain;
  if (!isPlainObject(parent)) return false;
  if (!Object.hasOwn(parent, key) || !sameValue(parent[key], value)) parent[key] = copyDocument({ v: value }).v;
  return true;
}

/**
 * `$inc` of a number, or of a missing field, by a number at a plain path whose container is a
 * document, done here as mingo does it (the result's BSON type: noteResultType); anything else
 * (a long or a decimal beyond a number, a value of another type) is left to mingo.
 */
function incHere(target: Document, path: string, value: unknown): boolean {
  if (typeof value !== "number") return false;
  const plain = plainParent(target, path);
  if (!plain) return false;
  const { parent, key } = plain;
  if (!isPlainObject(parent)) return false;
  const current = own(parent, key);
  if (current !== undefined && typeof current !== "number") return false;
  parent[key] = current === undefined ? value : current + value;
  return true;
}

/**
 * `$addToSet` and `$pullAll` on a plain path, done here: they compare values as MongoDB does (a
 * document field by field in order, strings by the collation: `compareValues`), where mingo
 * ignores the order of a document's fields, and its `$addToSet` adds nothing to an array that
 * already holds a duplicate. Number types are kept. Returns false to leave the rest to mingo.
 */
function setOperatorHere(
  target: Document,
  op: string,
  path: string,
  value: unknown,
  type: NumberType | undefined,
  opts: ApplyOptions,
): boolean {
  const plain = plainParent(target, path);
  if (!plain) return false;
  const { parent, key } = plain;
  if (!isPlainObject(parent)) return false;
  const current = own(parent, key);
  if (current !== undefined && !Array.isArray(current)) return false;
  const strings = optionsCollation(opts.mingo)?.compare;
  const equal = (a: unknown, b: unknown) => compareValues(a, b, strings) === 0;
  const append = (array: unknown[], element: unknown, elementType: NumberType | undefined) => {
    array.push(element);
    setNumberType(array, String(array.length - 1), elementType);
  };
  if (op === "$pullAll") {
    if (!Array.isArray(value) || current === undefined) return false;
    const kept: unknown[] = [];
    current.forEach((el, i) => {
      if (!value.some((v) => equal(el, v))) append(kept, el, numberTypeAt(current, String(i)));
    });
    if (kept.length !== current.length) setField(parent, key, kept);
    return true;
  }
  const each = isPlainObject(value) && Object.hasOwn(value, "$each") ? value.$each : undefined;
  if (isPlainObject(value) && Object.keys(value).some((k) => k.startsWith("$")) && !Array.isArray(each)) return false;
  const values: unknown[] = Array.isArray(each) ? each : [value];
  const array = current ?? [];
  values.forEach((v, i) => {
    if (array.some((el) => equal(el, v))) return;
    append(array, copyDocument({ v }).v, Array.isArray(each) ? numberTypeAt(each, String(i)) : type);
  });
  if (current === undefined) setField(parent, key, array);
  return true;
}

const WIDTH = { int: 0, long: 1, double: 2 } as const;

/**
 * The BSON type of a number an operator wrote at a plain path: `$set` writes the type it was
 * given; `$inc` and `$mul` the wider of the two operands' (int < long < double), as MongoDB.
 */
function noteResultType(target: Document, op: string, path: string, given: NumberType | undefined): void {
  const parts = path.split(".");
  if (parts.some((p) => p.startsWith("$"))) return;
  const parent = parts
    .slice(0, -1)
    .reduce<unknown>(
      (cur, part) => (cur !== null && typeof cur === "object" ? own(cur as Document, part) : undefined),
      target,
    );
  const key = parts[parts.length - 1];
  if (parent === null || typeof parent !== "object") return;
  if (op === "$set") return setNumberType(parent, key, given);
  const current = numberTypeAt(parent, key) ?? "int";
  const wider = WIDTH[given ?? "int"] > WIDTH[current] ? given : current;
  // Two ints whose sum or product leaves int32's range make a long, as MongoDB's arithmetic does.
  const result = (parent as Document)[key];
  const overflows = typeof result === "number" && (result > 2147483647 || result < -2147483648);
  setNumberType(parent, key, wider === "int" ? (overflows ? "long" : undefined) : wider);
}

/**
 * `$currentDate`'s value for one field: a date for a boolean or `{$type: "date"}`, a timestamp
 * (the command's cluster time) for `{$type: "timestamp"}`; anything else refused as MongoDB does.
 */
function currentDate(spec: unknown, opts: ApplyOptions): Date | Timestamp {
  if (typeof spec === "boolean") return new Date();
  if (!isPlainObject(spec))
    throw new MongoCommandError(
      "BadValue",
      `${typeName({ spec }, "spec")} is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).`,
    );
  let type: string | undefined;
  for (const [name, value] of Object.entries(spec)) {
    if (name !== "$type") throw new MongoCommandError("BadValue", `Unrecognized $currentDate option: ${name}`);
    if (value === "date" || value === "timestamp") type = value;
  }
  if (!type)
    throw new MongoCommandError(
      "BadValue",
      "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}",
    );
  if (type === "date") return new Date();
  const clusterTime = (opts.mingo?.variables as { CLUSTER_TIME?: unknown } | undefined)?.CLUSTER_TIME;
  return clusterTime instanceof Timestamp ? clusterTime : new Timestamp({ t: Math.floor(Date.now() / 1000), i: 1 });
}

const NUMERIC_TYPES = new Set(["Int32", "Long", "Double", "Decimal128"]);

/** `$inc` and `$mul` refuse a field that holds anything but a number, as MongoDB does (mingo leaves it). */
function assertNumericAt(target: Document, op: string, path: string): void {
  const plain = plainParent(target, path);
  if (!plain || plain.parent === null || typeof plain.parent !== "object") return;
  const { parent, key } = plain;
  if (!Object.hasOwn(parent, key)) return;
  const value = (parent as Document)[key];
  const bsonType = (value as { _bsontype?: string } | null)?._bsontype;
  if (typeof value === "number" || (bsonType !== undefined && NUMERIC_TYPES.has(bsonType))) return;
  throw new MongoCommandError(
    "TypeMismatch",
    `Cannot apply ${op} to a value of non-numeric type. {_id: ${describeId(target._id)}} has the field '${key}' of non-numeric type ${typeName(parent, key)}`,
  );
}

const ARRAY_OPERATORS = new Set(["$push", "$addToSet", "$pop", "$pull", "$pullAll"]);

/**
 * The array operators refuse a field that holds something else, with MongoDB's codes and
 * messages (mingo leaves such a document unchanged). Paths through a positional operator are
 * left to mingo.
 */
function assertArrayAt(target: Document, op: string, path: string): void {
  const parts = path.split(".");
  if (parts.some((p) => p.startsWith("$"))) return;
  let parent: unknown = target;
  for (const part of parts.slice(0, -1)) {
    parent = Array.isArray(parent)
      ? /^\d+$/.test(part)
        ? parent[Number(part)]
        : undefined
      : isPlainObject(parent)
        ? own(parent, part)
        : undefined;
  }
  const key = parts[parts.length - 1];
  if (parent === null || typeof parent !== "object" || !Object.hasOwn(parent, key)) return;
  const value = (parent as Document)[key];
  if (Array.isArray(value)) return;
  const type = typeName(parent, key);
  if (op === "$push")
    throw new MongoCommandError(
      "BadValue",
      `The field '${key}' must be an array but is of type ${type} in document {_id: ${describeId(target._id)}}`,
    );
  if (op === "$addToSet")
    throw new MongoCommandError(
      "BadValue",
      `Cannot apply $addToSet to non-array field. Field named '${key}' has non-array type ${type}`,
    );
  if (op === "$pop")
    throw new MongoCommandError("TypeMismatch", `Path '${path}' contains an element of non-array type '${type}'`);
  throw new MongoCommandError("BadValue", `Cannot apply ${op} to a non-array value`);
}

/** Operators that create the field they name when it is missing. */
const CREATING = new Set(["$set", "$inc", "$mul", "$min", "$max", "$push", "$addToSet", "$currentDate", "$bit"]);

function comparePaths(a: string, b: string): number {
  const pa = a.split(".");
  const pb = b.split(".");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] === pb[i]) continue;
    const numeric = /^\d+$/.test(pa[i]) && /^\d+$/.test(pb[i]);
    if (numeric) return Number(pa[i]) - Number(pb[i]);
    return pa[i] < pb[i] ? -1 : 1;
  }
  return pa.length - pb.length;
}

/**
 * A $pull condition made of $or, $and or $nor applies to each element as a document query, as in
 * MongoDB; mingo would read a leading logical operator as a condition on the element's value.
 */
function isDocumentQuery(value: unknown): value is Document {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  return (
    keys.some((k) => k === "$or" || k === "$and" || k === "$nor") &&
    keys.every((k) => !k.startsWith("$") || ["$or", "$and", "$nor"].includes(k))
  );
}

function pullByQuery(target: Document, path: string, condition: Document, opts: ApplyOptions): void {
  const query = compileFilter(condition, opts.mingo);
  const parts = path.split(".");
  const parent = parts
    .slice(0, -1)
    .reduce<unknown>(
      (cur, part) => (cur !== null && typeof cur === "object" ? own(cur as Document, part) : undefined),
      target,
    );
  const key = parts[parts.length - 1];
  if (parent === null || typeof parent !== "object") return;
  const values = (parent as Document)[key];
  if (!Array.isArray(values)) return;
  (parent as Document)[key] = values.filter((el) => !(isPlainObject(el) && query.test(el)));
}

/**
 * A path component that MongoDB reads as a plain field name but mingo refuses or misreads: one
 * starting with `$` (not a positional operator), or a name every JavaScript object inherits
 * (`__proto__`, `constructor`, `toString` ...), which mingo would walk into instead of a field.
 */
const isDollarField = (part: string) =>
  part in Object.prototype || (part.startsWith("$") && part !== "$" && !/^\$\[[^\]]*\]$/.test(part));

/**
 * Runs one operator on one path through mingo. Since MongoDB 5.0 a field name may start with
 * `$` (`$set: {"$key": 1}`); mingo refuses such paths, so those names are swapped for a
 * placeholder in the path and in the document for the time of the call.
 */
function applyOne(target: Document, op: string, path: string, value: unknown, opts: ApplyOptions): void {
  const parts = path.split(".");
  const dollar =
    parts.some(isDollarField) ||
    (op === "$rename" && typeof value === "string" && value.split(".").some(isDollarField));
  const swap = (p: string) =>
    p
      .split(".")
      .map((part) => (isDollarField(part) ? DOLLAR + part : part))
      .join(".");
  const modifier = {
    [op]: {
      [dollar ? swap(path) : path]: dollar && op === "$rename" && typeof value === "string" ? swap(value) : value,
    },
  };
  if (dollar) renameKeys(target, "", DOLLAR);
  try {
    // A fresh typed copy of the operand per call (rather than mingo's clone), so the BSON types
    // inside a written value are kept.
    const query = opts.inserting || !opts.query ? undefined : positionalQuery(opts.query, path);
    mingoUpdate(target, copyDocument(modifier), opts.arrayFilters, query, {
      cloneMode: "none",
      queryOptions: opts.mingo,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new MongoCommandError(
      /type|cannot|non-numeric|must be/i.test(message) ? "TypeMismatch" : "BadValue",
      message,
    );
  } finally {
    if (dollar) renameKeys(target, DOLLAR, "");
  }
}

/**
 * The part of the query that places a positional `$` of `path`: the conditions on its array,
 * at the top level or in `$and`. mingo takes exactly one; several conditions on fields of the
 * array's elements are joined into one `$elemMatch`, and otherwise the last one counts (as
 * MongoDB records the position of the last array match).
 */
function positionalQuery(query: Document, path: string): Document | undefined {
  const parts = path.split(".");
  const at = parts.indexOf("$");
  // Without a positional `$` mingo needs no query (the document matched it already).
  if (at < 1) return undefined;
  const field = parts.slice(0, at).join(".");
  const conditions: Array<[string, unknown]> = [];
  const visit = (q: Document) => {
    for (const [key, cond] of Object.entries(q)) {
      if (key === "$and" && Array.isArray(cond)) for (const sub of cond) if (isPlainObject(sub)) visit(sub);
      if (key === field || key.startsWith(`${field}.`)) conditions.push([key, cond]);
    }
  };
  visit(query);
  if (conditions.length <= 1) return rewriteTypeOperators(conditions.length ? Object.fromEntries(conditions) : query);
  if (conditions.every(([key]) => key !== field)) {
    return rewriteTypeOperators({
      [field]: { $elemMatch: Object.fromEntries(conditions.map(([key, cond]) => [key.slice(field.length + 1), cond])) },
    });
  }
  const [key, cond] = conditions[conditions.length - 1];
  return rewriteTypeOperators({ [key]: cond });
}

/**
 * `path` with its positional `$` replaced by the index of the first element of its array that
 * matches the query's conditions on that array; unchanged when that cannot be told here (no
 * condition on the array, an array inside an array), for mingo to resolve or refuse.
 */
function resolvePositional(doc: Document, path: string, query: Document, options?: Partial<Options>): string {
  const parts = path.split(".");
  const at = parts.indexOf("$");
  if (at < 1) return path;
  const fieldParts = parts.slice(0, at);
  let cur: unknown = doc;
  for (const part of fieldParts) cur = isPlainObject(cur) ? own(cur, part) : undefined;
  if (!Array.isArray(cur)) return path;
  const condition = positionalQuery(query, path);
  if (!condition || condition === query || Object.keys(condition).length === 0) return path;
  let filter;
  try {
    filter = compileFilter(condition, options);
  } catch {
    return path;
  }
  const field = fieldParts.join(".");
  for (let i = 0; i < cur.length; i++) {
    const probe: Document = {};
    setPath(probe, field, [cur[i]]);
    if (filter.test(probe)) return [...fieldParts, String(i), ...parts.slice(at + 1)].join(".");
  }
  return path;
}

const DOLLAR = "\uffff\uffffdollar:";

function renameKeys(value: unknown, from: string, to: string): void {
  if (Array.isArray(value)) {
    for (const el of value) renameKeys(el, from, to);
    return;
  }
  if (!isPlainObject(value)) return;
  const renamed = (key: string) => (from ? key.startsWith(from) : isDollarField(key));
  const keys = Object.keys(value);
  for (const key of keys) renameKeys(value[key], from, to);
  if (!keys.some(renamed)) return;
  // Rebuilt in order, so the renamed fields keep their places.
  const entries = keys.map((key) => [renamed(key) ? to + key.slice(from.length) : key, value[key]] as const);
  for (const key of keys) delete value[key];
  for (const [key, field] of entries) setField(value, key, field);
}

/**
 * MongoDB refuses to create a field inside a value that is not a document (code 28,
 * PathNotViable): `$set: {"comments.body": 1}` when `comments` is an array, or `a.b` when `a`
 * is a number. Positional and numeric parts are left to the operator.
 */
function assertPathViable(target: Document, path: string): void {
  const parts = path.split(".");
  let cur: unknown = target;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    if (part.startsWith("$")) return;
    const next: unknown = Array.isArray(cur)
      ? /^\d+$/.test(part)
        ? cur[Number(part)]
        : undefined
      : own(cur as Document, part);
    if (next === undefined || next === null) return;
    const child = parts[i + 1];
    if (Array.isArray(next) ? !/^\d+$/.test(child) && !child.startsWith("$") : !isPlainObject(next)) {
      throw new MongoCommandError(
        "PathNotViable",
        `Cannot create field '${child}' in element {${part}: ${describe(next)}}`,
      );
    }
    cur = next;
  }
}

/** An `_id` as MongoDB's messages show it: `ObjectId('…')`, a quoted string, else extended JSON. */
function describeId(id: unknown): string {
  if (id instanceof ObjectId) return `ObjectId('${id.toHexString()}')`;
  return typeof id === "string" ? JSON.stringify(id) : describe(id);
}

function describe(value: unknown): string {
  const text = EJSON.stringify(value as Document, { relaxed: true }) ?? String(value);
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
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
        throw new MongoCommandError(
          "ConflictingUpdateOperators",
          `Updating the path '${path}' would create a conflict at '${other}'`,
        );
      }
    }
    seen.push(clean);
  }
}

/** The document an upsert starts from: the equality conditions of its query. */
function upsertSeed(query: Document): Document {
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
    if (!isPlainObject(own(cur, part))) setField(cur, part, {});
    cur = cur[part] as Document;
  }
  setField(cur, parts[parts.length - 1], value);
}

/** A document's own field: never a property every object inherits (`constructor` ...). */
function own(doc: Document, key: string): unknown {
  return Object.hasOwn(doc, key) ? doc[key] : undefined;
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
  return idFirst(doc, doc._id === undefined ? new ObjectId() : doc._id);
}

function sameValue(a: unknown, b: unknown): boolean {
  // An ObjectId (most `_id`s) is the same value exactly when its bytes are.
  if (a instanceof ObjectId && b instanceof ObjectId) return a.equals(b);
  return (
    EJSON.stringify({ v: a } as Document, { relaxed: false }) ===
    EJSON.stringify({ v: b } as Document, { relaxed: false })
  );
}
