/**
 * The pipeline's groupings, sets, joins and sorts comparing documents as MongoDB does: field by
 * field in order, in BSON order (`compareValues`), so `{x: 1, y: 2}` and `{y: 2, x: 1}` are two
 * values. mingo hashes and compares a document without regard to the order of its fields, so each
 * operator here hands its values to mingo's own when none of them holds a document (the common
 * case pays one look at the values), and otherwise groups or compares them itself.
 */
import { Double, type Document } from "bson";
import { evalExpr, OpType } from "mingo/core";
import { Lazy, type Iterator } from "mingo/lazy";
import type { Options } from "mingo/types";
import { resolve, unique } from "mingo/util";
import { MongoCommandError } from "../errors";
import { numberTypeAt, setField, setNumberType } from "../storage/bson-values";
import { compareValues, encodeValue, isPlainObject, ownField, valuesAtPath } from "../storage/keys";
import { LONG_EXPRESSIONS } from "./added-expressions";
import { canonicalizer, type Collation } from "./collation";
import { comparedInOrder } from "./document-order";
import { carryTypes, place, Sum, typedAs } from "./number-types";
import { LocationError, parseBucket } from "./pipeline-check";
import { sortDocuments } from "./sort";
import { typeOfValue } from "./strict-operators";

type PipelineOp = (coll: Iterator, expr: unknown, options: Options) => Iterator;
type AccumulatorOp = (coll: unknown[], expr: unknown, options: Options) => unknown;
type ExpressionOp = (obj: unknown, expr: unknown, options: Options) => unknown;

/**
 * A text that values equal in BSON order share (field names in order, numbers of every type as
 * their double): the bucket of a value, its members then told apart by `compareValues`.
 */
function fingerprint(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(fingerprint).join(",")}]`;
  if (isPlainObject(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${fingerprint(v)}`)
      .join(",")}}`;
  const [rank, primitive] = encodeValue(value, Infinity).part;
  return `${rank}:${typeof primitive === "string" ? JSON.stringify(primitive) : String(primitive)}`;
}

/**
 * Distinct values in BSON equality (in order), each found as its first member met; with `key`,
 * values are equal when their keys are (a collation's canonical forms, see `canonicalizer`).
 */
class OrderedSet {
  /** Each fingerprint's members, by their index in `values`. */
  private readonly buckets = new Map<string, number[]>();
  private readonly keys: unknown[] = [];
  readonly values: unknown[] = [];

  constructor(private readonly key: (value: unknown) => unknown = (value) => value) {}

  /** The index of the member equal to `value`, added when new. */
  add(value: unknown): number {
    const key = this.key(value);
    const print = fingerprint(key);
    const bucket = this.buckets.get(print);
    if (bucket) {
      for (const i of bucket) if (compareValues(this.keys[i], key) === 0) return i;
      bucket.push(this.values.length);
    } else this.buckets.set(print, [this.values.length]);
    this.keys.push(key);
    this.values.push(value);
    return this.values.length - 1;
  }

  has(value: unknown): boolean {
    const key = this.key(value);
    const bucket = this.buckets.get(fingerprint(key));
    return Boolean(bucket?.some((i) => compareValues(this.keys[i], key) === 0));
  }
}

const orderedSet = (values: unknown[], key?: (value: unknown) => unknown): OrderedSet => {
  const set = new OrderedSet(key);
  for (const v of values) set.add(v);
  return set;
};

/** The field a group key holding a document becomes, for mingo: one number per class of equal keys. */
const GROUP_CLASS = "\u0000orderedGroup";

/**
 * `$group` by BSON equality, in order: a key holding a document is replaced, for mingo, by the
 * number of its class of equal keys; the output's `_id` is the class's first key.
 */
export function orderedGroup(group: PipelineOp): PipelineOp {
  return (coll, expr, options) => {
    if (!isPlainObject(expr) || !("_id" in expr)) return group(coll, expr, options);
    const idExpr = expr._id;
    const classes = new OrderedSet();
    const keyOf = (doc: unknown) => {
      const key = evalExpr(doc, idExpr, options);
      return comparedInOrder(key) ? { [GROUP_CLASS]: classes.add(key) } : key;
    };
    const { spec, typed } = typedOutputs(expr, options);
    const grouped = group(coll, { ...spec, _id: { $__orderedGroupKey: keyOf } }, options);
    return grouped.map((out: Document) => {
      const id = out._id as unknown;
      if (isPlainObject(id) && Object.hasOwn(id, GROUP_CLASS)) out._id = classes.values[id[GROUP_CLASS] as number];
      for (const field of typed) place(out, field, out[field]);
      return out;
    });
  };
}

/** The accumulators whose result has MongoDB's type here; the others answer by value (mingo's). */
const TYPED_ACCUMULATORS: Record<string, string> = {
  $sum: "$__typedSum",
  $avg: "$__typedAvg",
  $first: "$__typedFirst",
  $last: "$__typedLast",
};

/** A `$group` spec with its `$sum`, `$avg`, `$first`, `$last` outputs renamed to the typed accumulators. */
function typedOutputs(expr: Document, options: Options): { spec: Document; typed: string[] } {
  const typed: string[] = [];
  const spec: Document = {};
  for (const field of Object.keys(expr)) {
    const acc = expr[field];
    const name = isPlainObject(acc) && Object.keys(acc).length === 1 ? Object.keys(acc)[0] : undefined;
    const renamed =
      name !== undefined && field !== "_id" && Object.hasOwn(TYPED_ACCUMULATORS, name)
        ? TYPED_ACCUMULATORS[name]
        : undefined;
    if (renamed && options.context.getOperator(OpType.ACCUMULATOR, renamed)) {
      setField(spec, field, { [renamed]: (acc as Document)[name!] });
      typed.push(field);
    } else setField(spec, field, acc);
  }
  return { spec, typed };
}

/** mingo computes no Decimal128 arithmetic: refused, naming the way out, rather than answered wrong. */
function refuseDecimals(op: string, values: unknown[]): void {
  if (values.some((v) => bsonTypeOf(v) === "Decimal128"))
    throw new MongoCommandError(
      "CommandNotSupported",
      `Decimal128 values in ${op} of $group are not supported by the embedded database: set MONGODB_URI to use a MongoDB server`,
    );
}

const isNumber = (v: unknown) =>
  typeof v === "number" || typeof v === "bigint" || ["Long", "Double", "Int32"].includes(bsonTypeOf(v) ?? "");
const bsonTypeOf = (v: unknown) => (v as { _bsontype?: string } | null | undefined)?._bsontype;
const asNumber = (v: unknown): number => {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return bsonTypeOf(v) === "Long" ? (v as { toNumber(): number }).toNumber() : (v as { value: number }).value;
};

/**
 * `$group`'s `$sum`, `$avg`, `$first` and `$last` with MongoDB's result types: a sum of the widest
 * type among its numbers, widened past its range (number-types.ts); an average a double; a first
 * or last value as stored. Each answers a BSON number (`Long`, `Double`, `Int32`) that
 * `orderedGroup` sets as the server holds numbers. A sum or an average over Decimal128 is refused
 * (mingo's answered 0).
 */
export function typedAccumulators(acc: Record<string, AccumulatorOp>): Record<string, AccumulatorOp> {
  const edge =
    (name: "$first" | "$last"): AccumulatorOp =>
    (coll, expr, options) => {
      const value = acc[name](coll, expr, options);
      if (coll.length === 0) return value;
      return typedAs(coll[name === "$first" ? 0 : coll.length - 1] as Document, expr, value);
    };
  return {
    // Each document's value as mingo's $push computes it (the document as the expression's root).
    $__typedSum: (coll, expr, options) => {
      const pushed = acc.$push(coll, expr, options) as unknown[];
      const values = pushed.map((v, i) => typedAs(coll[i] as Document, expr, v));
      refuseDecimals("$sum", values);
      const sum = new Sum();
      for (const v of values) if (isNumber(v)) sum.add(v, asNumber(v));
      return sum.value();
    },
    $__typedAvg: (coll, expr, options) => {
      refuseDecimals("$avg", acc.$push(coll, expr, options) as unknown[]);
      const value = acc.$avg(coll, expr, options);
      return typeof value === "number" ? new Double(value) : value;
    },
    $__typedFirst: edge("$first"),
    $__typedLast: edge("$last"),
  };
}

/** `$top` and `$bottom` answering the one output value, where mingo's answer the array of `$topN`/`$bottomN`. */
export function singleAccumulators(acc: Record<string, AccumulatorOp>): Record<string, AccumulatorOp> {
  const one =
    (name: "$top" | "$bottom"): AccumulatorOp =>
    (coll, expr, options) => {
      const out = acc[name](coll, expr, options);
      return Array.isArray(out) ? (out[0] ?? null) : out;
    };
  return { $top: one("$top"), $bottom: one("$bottom") };
}

/** The expression `orderedGroup` hands mingo: the key of a document, computed by the stage. */
export const $__orderedGroupKey: ExpressionOp = (obj, keyOf) => (keyOf as (doc: unknown) => unknown)(obj);

/** `$addToSet` keeping one of each set of values equal in BSON order. */
export function orderedAddToSet(addToSet: AccumulatorOp, push: AccumulatorOp): AccumulatorOp {
  return (coll, expr, options) => {
    const values = push(coll, expr, options);
    if (!Array.isArray(values)) return addToSet(coll, expr, options);
    // mingo's own `$addToSet` is `unique` of `$push`: the values are not computed twice.
    if (!values.some(comparedInOrder)) return unique(values);
    return orderedSet(values).values;
  };
}

/** The set expressions over their arrays, each array made a set by `set` (one equality per call). */
const SET_DECISIONS: Record<string, (arrays: unknown[][], set: (values: unknown[]) => OrderedSet) => unknown> = {
  $setUnion: (arrays, set) => set(arrays.flat()).values,
  $setIntersection: (arrays, set) => {
    const others = arrays.slice(1).map(set);
    return set(arrays[0] ?? []).values.filter((v) => others.every((s) => s.has(v)));
  },
  $setDifference: ([a, b], set) => {
    const minus = set(b ?? []);
    return set(a ?? []).values.filter((v) => !minus.has(v));
  },
  $setEquals: (arrays, set) => {
    const sets = arrays.map(set);
    return sets.every((s) => s.values.length === sets[0].values.length && s.values.every((v) => sets[0].has(v)));
  },
  $setIsSubset: ([a, b], set) => {
    const of = set(b ?? []);
    return (a ?? []).every((v) => of.has(v));
  },
};

const nullish = (v: unknown) => v === null || v === undefined;

/**
 * MongoDB's checks of a set expression's evaluated arguments (evaluate_array.cpp): `null` when it
 * answers null (a null or missing array, where that operator allows one), else nothing; a
 * refusal with its code otherwise.
 */
const SET_CHECKS: Record<string, (args: unknown[]) => null | undefined> = {
  $setUnion: (args) => eachArray(args, 17043, "$setUnion"),
  $setIntersection: (args) => eachArray(args, 17047, "$setIntersection"),
  $setDifference: ([a, b]) => {
    if (nullish(a) || nullish(b)) return null;
    bothArrays(a, b, "$setDifference", 17048, 17049);
    return undefined;
  },
  $setEquals: (args) => {
    args.forEach((a, i) => {
      if (!Array.isArray(a))
        throw new LocationError(
          17044,
          `All operands of $setEquals must be arrays. ${i + 1}-th argument is of type: ${typeOfValue(a)}`,
        );
    });
    return undefined;
  },
  $setIsSubset: ([a, b]) => {
    bothArrays(a, b, "$setIsSubset", 17046, 17042);
    return undefined;
  },
};

/** `$setUnion`/`$setIntersection`: null at the first null or missing argument, unless a non-array comes before it. */
function eachArray(args: unknown[], code: number, name: string): null | undefined {
  for (const a of args) {
    if (nullish(a)) return null;
    if (!Array.isArray(a))
      throw new LocationError(
        code,
        `All operands of ${name} must be arrays. One argument is of type: ${typeOfValue(a)}`,
      );
  }
  return undefined;
}

function bothArrays(a: unknown, b: unknown, name: string, first: number, second: number): void {
  if (!Array.isArray(a))
    throw new LocationError(
      first,
      `both operands of ${name} must be arrays. First argument is of type: ${typeOfValue(a)}`,
    );
  if (!Array.isArray(b))
    throw new LocationError(
      second,
      `both operands of ${name} must be arrays. Second argument is of type: ${typeOfValue(b)}`,
    );
}

/** The set expressions taking exactly two arguments (MongoDB's `ExpressionFixedArity`, 16020). */
const PAIRED_SETS = new Set(["$setDifference", "$setIsSubset"]);

/**
 * `$setUnion`, `$setIntersection`, `$setDifference`, `$setEquals` and `$setIsSubset` with MongoDB's
 * checks ({@link SET_CHECKS}) and order: a union or an intersection is answered sorted (MongoDB
 * builds it as an ordered set), a difference in its first array's order. Where an array holds a
 * document its elements are compared in BSON order; other arguments stay mingo's. Under a
 * collation, every set of arrays is compared here, strings by the collator (the first value met
 * of each class of equal ones is kept, as MongoDB's sets keep it).
 */
export function orderedSetExpressions(
  ops: Record<string, ExpressionOp>,
  collation?: Collation,
): Record<string, ExpressionOp> {
  const setOp =
    (name: string): ExpressionOp =>
    (obj, expr, options) => {
      // One operand that is not an array literal is the operator's one argument.
      const operands = Array.isArray(expr) ? expr : [expr];
      if (PAIRED_SETS.has(name) && operands.length !== 2)
        throw new LocationError(
          16020,
          `Expression ${name} takes exactly 2 arguments. ${operands.length} were passed in.`,
        );
      const args = evalExpr(obj, operands, options) as unknown[];
      if (SET_CHECKS[name](args) === null) return null;
      const answer = (): unknown => {
        if (!collation) {
          if (!args.some((a) => (a as unknown[]).some(comparedInOrder)))
            return ops[name](
              obj,
              args.map((a) => ({ $literal: a })),
              options,
            );
          return SET_DECISIONS[name](args as unknown[][], (values) => orderedSet(values));
        }
        // One canonicalizer for all the call's arrays: equal strings become the same string.
        const canon = canonicalizer(collation);
        return SET_DECISIONS[name](args as unknown[][], (values) => orderedSet(values, canon));
      };
      const result = answer();
      if ((name === "$setUnion" || name === "$setIntersection") && Array.isArray(result))
        return [...result].sort((a, b) => compareValues(a, b, collation?.compare));
      return result;
    };
  return Object.fromEntries(Object.keys(SET_DECISIONS).map((name) => [name, setOp(name)]));
}

/** Whether sorting a document on `path` meets an array or ends on a document. */
function sortsStructured(doc: unknown, parts: string[]): boolean {
  let value = doc;
  for (const part of parts) {
    if (Array.isArray(value)) return true;
    if (!isPlainObject(value)) return false;
    value = Object.hasOwn(value, part) ? value[part] : undefined;
  }
  return Array.isArray(value) || isPlainObject(value);
}

/**
 * `$sort` in BSON order when a sorted value is a document or an array (an array by its smallest
 * element ascending, its largest descending): the sort of `find` (`sortDocuments`). Scalars
 * alone stay with mingo's sort.
 */
export function orderedSort(sort: PipelineOp, collationOf: (options: Options) => Collation | undefined): PipelineOp {
  return (coll, spec, options) => {
    if (!isPlainObject(spec) || !Object.values(spec).every((d) => d === 1 || d === -1))
      return sort(coll, spec, options);
    const paths = Object.keys(spec).map((k) => k.split("."));
    return coll.transform((items: unknown[]) => {
      if (!items.some((doc) => paths.some((p) => sortsStructured(doc, p)))) return sort(Lazy(items), spec, options);
      return Lazy(sortDocuments(items as Document[], spec, collationOf(options)));
    });
  };
}

/**
 * How a `$lookup` on `localField`/`foreignField` reads only the foreign documents it joins, as
 * MongoDB does through an index of `foreignField` ({@link orderedLookup}; query.ts `mingoOptions`
 * makes it): for collection `name`, a probe of the documents whose `field` equals (or holds) one
 * of `values`, that pass `query.match` and that `joins` keeps (the join's own comparison: an
 * index reads a regex value as a pattern), in the order of `query.sort` (then `_id`) or else of
 * `_id`, projected by `query.project`; or `undefined` where no index serves it and the collection
 * is read once instead.
 */
export type ForeignIndex = (
  name: string,
  field: string,
  options: Partial<Options>,
  query: ForeignQuery,
) => ((values: unknown[], joins: (doc: Document) => boolean) => Document[] | undefined) | undefined;

/** What the first stages of a sub-pipeline ask of the joined documents, read with them. */
interface ForeignQuery {
  match?: Document;
  sort?: Record<string, 1 | -1>;
  /** An inclusion `$project` of top-level fields. */
  project?: Record<string, unknown>;
  /** How many stages of the sub-pipeline the probe runs. */
  stages: number;
}

/**
 * `$lookup` on `localField`/`foreignField` matching documents in order: when a foreign value is
 * a document or an array holding one, each local value (each element of a local array) joins
 * the foreign documents whose value (or an element of it) equals it in BSON order, as the query
 * `{foreignField: {$eq: value}}` would; a sub-pipeline (MongoDB 5's concise form) then runs on
 * each document's matches. Where an index of `foreignField` serves it, each document reads only
 * its matches, the sub-pipeline's first `$match`, `$sort` and `$project` run as that read's
 * ({@link ForeignIndex}); otherwise the collection is read once, and with no document among its
 * values and no sub-pipeline, mingo joins them. Under the operation's collation (`collationOf`),
 * strings compare by it, as MongoDB's join does; the collection is then read once.
 */
export function orderedLookup(
  lookup: PipelineOp,
  collationOf: (options: Options) => Collation | undefined,
): PipelineOp {
  return (coll, expr, options) => {
    if (!isPlainObject(expr) || typeof expr.localField !== "string" || typeof expr.foreignField !== "string")
      return lookup(coll, expr, options);
    const spec = expr as LookupSpec;
    const stages = Array.isArray(spec.pipeline) ? (spec.pipeline as Document[]) : [];
    const query = pushedStages(stages);
    const foreignIndex = (options as { collectionResolver?: { foreignIndex?: ForeignIndex } }).collectionResolver
      ?.foreignIndex;
    const probe =
      typeof spec.from === "string" ? foreignIndex?.(spec.from, spec.foreignField, options, query) : undefined;
    const collation = collationOf(options);
    if (!probe || collation) return joinRead(lookup, coll, spec, options, collation);
    const after = withoutFields(spec, stages.slice(query.stages));
    // A document whose values no index serves (the planner bounds no regex value) joins
    // against the collection read once, and its sub-pipeline runs whole.
    const whole = withoutFields(spec, stages);
    let read: Join | undefined;
    return coll.map((obj: Document) => {
      const locals = localValues(obj, spec.localField);
      const matched = probe(locals, (doc) =>
        foreignKeys(doc, spec.foreignField).some((key) => locals.some((v) => compareValues(key, v) === 0)),
      );
      if (matched) return joined(lookup, obj, matched, after, options);
      read ??= readJoin(spec, options, undefined);
      return joined(lookup, obj, read(locals), whole, options);
    });
  };
}

/**
 * The first stages of a sub-pipeline a `find` runs as they would: a `$match` that reads no
 * variable, then a `$sort` of fields, then an inclusion `$project` of top-level fields.
 */
function pushedStages(stages: Document[]): ForeignQuery {
  const query: ForeignQuery = { stages: 0 };
  const only = (stage: Document | undefined, name: string) =>
    isPlainObject(stage) && Object.keys(stage).length === 1 && isPlainObject(stage[name])
      ? (stage[name] as Document)
      : undefined;
  const match = only(stages[query.stages], "$match");
  if (match && !/"\$(expr|text|where)"/.test(JSON.stringify(match))) {
    query.match = match;
    query.stages++;
  }
  const sort = only(stages[query.stages], "$sort");
  const entries = sort ? Object.entries(sort) : [];
  if (entries.length > 0 && entries.every(([, d]) => d === 1 || d === -1)) {
    query.sort = sort as Record<string, 1 | -1>;
    query.stages++;
  }
  const project = only(stages[query.stages], "$project");
  if (project && isInclusionOfFields(project)) {
    query.project = project;
    query.stages++;
  }
  return query;
}

interface LookupSpec extends Document {
  from: unknown;
  localField: string;
  foreignField: string;
  as: unknown;
}

/** The foreign documents a document joins, in the collection's order. */
export type Join = (locals: unknown[]) => Document[];

/**
 * The values a foreign document is joined by: each value at the path (`null` where it is missing),
 * and a whole array too. An empty array is its index key `undefined`, which no value equals.
 */
export function foreignKeys(doc: Document, foreignField: string): unknown[] {
  const values = valuesAtPath(doc, foreignField).values.filter((v) => v !== undefined);
  const whole = resolve(doc, foreignField);
  return Array.isArray(whole) ? [...values, whole] : values;
}

/** A document's local values: each element of an array, or the value (`null` when missing). */
function localValues(obj: Document, localField: string): unknown[] {
  const local = resolve(obj, localField) ?? null;
  return Array.isArray(local) ? local : [local];
}

/** The `$lookup` for one document's matches, given as `from`: `pipeline` is the part still to run. */
const withoutFields = (expr: Document, pipeline: Document[]): Document => {
  const rest: Document = { ...expr, pipeline };
  delete rest.localField;
  delete rest.foreignField;
  return rest;
};

/** The collection named by `from`, read whole, or `from` itself when it is already the documents. */
export function readForeign(expr: { from: unknown }, options: Options): Document[] | undefined {
  const resolver = (options as { collectionResolver?: (name: string) => unknown[] }).collectionResolver;
  const from = typeof expr.from === "string" && resolver ? resolver(expr.from) : expr.from;
  return Array.isArray(from) ? (from as Document[]) : undefined;
}

/** The join over the foreign collection read whole, once. */
function readJoin(spec: LookupSpec, options: Options, collation: Collation | undefined): Join {
  const from = readForeign(spec, options) ?? [];
  return bucketJoin(
    from,
    from.map((doc) => foreignKeys(doc, spec.foreignField)),
    collation,
  );
}

/**
 * Joins by buckets of BSON-equal values (under a collation, of values whose strings it calls
 * equal), over the foreign documents read once and their {@link foreignKeys}.
 */
export function bucketJoin(from: Document[], keys: unknown[][], collation: Collation | undefined): Join {
  const canon = collation ? canonicalizer(collation) : (value: unknown) => value;
  const print = (value: unknown) => fingerprint(canon(value));
  const buckets = new Map<string, Array<{ key: unknown; doc: number }>>();
  keys.forEach((values, index) => {
    for (const key of values) {
      const bucketKey = print(key);
      const bucket = buckets.get(bucketKey);
      if (bucket) bucket.push({ key, doc: index });
      else buckets.set(bucketKey, [{ key, doc: index }]);
    }
  });
  return (locals) => {
    const found = new Set<number>();
    for (const value of locals)
      for (const entry of buckets.get(print(value)) ?? [])
        if (compareValues(entry.key, value, collation?.compare) === 0) found.add(entry.doc);
    return [...found].sort((a, b) => a - b).map((i) => from[i]);
  };
}

/** The document with its matches under `as`, or what the sub-pipeline makes of them. */
function joined(lookup: PipelineOp, obj: Document, matched: Document[], rest: Document, options: Options): Document {
  if ((rest.pipeline as Document[]).length === 0) return { ...obj, [String(rest.as)]: matched };
  return lookup(Lazy([obj]), { ...rest, from: matched }, options).next().value as Document;
}

/** The join over the foreign collection read once (no index serves it, or a collation compares). */
function joinRead(
  lookup: PipelineOp,
  coll: Iterator,
  expr: LookupSpec,
  options: Options,
  collation: Collation | undefined,
): Iterator {
  const from = readForeign(expr, options);
  if (!from) return lookup(coll, expr, options);
  const keys = from.map((doc) => foreignKeys(doc, expr.foreignField));
  const pipeline = Array.isArray(expr.pipeline) && expr.pipeline.length > 0;
  // mingo would run a sub-pipeline on the whole collection rather than on the matches, and
  // compares strings in binary whatever the collation.
  if (!pipeline && !collation && !keys.some((values) => values.some(comparedInOrder)))
    return lookup(coll, { ...expr, from }, options);
  const join = bucketJoin(from, keys, collation);
  const rest = withoutFields(expr, pipeline ? (expr.pipeline as Document[]) : []);
  return coll.map((obj: Document) => joined(lookup, obj, join(localValues(obj, expr.localField)), rest, options));
}

/**
 * `$sortArray` in BSON order when an element holds a document (`sortBy: 1 | -1`) or the sorted
 * fields reach a document or an array (`sortBy: {field: 1}`, the sort of `$sort`). Under a
 * collation, whole values (`sortBy: 1 | -1`) always sort here, strings by the collator, equal
 * ones kept in their order; mingo's sort of fields already follows it.
 */
export function orderedSortArray(sortArray: ExpressionOp, collation?: Collation): ExpressionOp {
  return (obj, expr, options) => {
    if (!isPlainObject(expr) || !("input" in expr) || !("sortBy" in expr)) return sortArray(obj, expr, options);
    const { input, sortBy } = evalExpr(obj, { input: expr.input, sortBy: expr.sortBy }, options) as Document;
    const plain = () => sortArray(obj, { input: { $literal: input }, sortBy: { $literal: sortBy } }, options);
    if (nullish(input)) return null;
    if (!Array.isArray(input))
      throw new LocationError(
        2942504,
        `The input argument to $sortArray must be an array, but was of type: ${typeOfValue(input)}`,
      );
    if (sortBy === 1 || sortBy === -1) {
      if (!collation && !input.some(comparedInOrder)) return plain();
      return [...input].sort((a, b) => compareValues(a, b, collation?.compare) * sortBy);
    }
    if (!isPlainObject(sortBy) || !Object.values(sortBy).every((d) => d === 1 || d === -1)) return plain();
    const paths = Object.keys(sortBy).map((k) => k.split("."));
    if (!input.some((doc) => paths.some((p) => sortsStructured(doc, p)))) return plain();
    return sortDocuments(input as Document[], sortBy, collation);
  };
}

/**
 * `$bucket` as MongoDB runs it (document_source_bucket.cpp): its spec checked with MongoDB's codes
 * ({@link parseBucket}), each value in the bucket of the greatest boundary not above it, in BSON
 * order under the collation (`collationOf`), the rest in the default's; then a `$group` by bucket
 * and a `$sort` of its `_id`s, so only buckets holding documents are answered, the default's in
 * its place among the boundaries.
 */
export function orderedBucket(group: PipelineOp, collationOf: (options: Options) => Collation | undefined): PipelineOp {
  return (coll, expr, options) => {
    const collation = collationOf(options);
    const variables = (options.variables ?? {}) as Document;
    const spec = parseBucket(expr, {
      strings: collation?.compare,
      evaluate: (value) => evalExpr({}, value, options),
      constant: (name) => Object.hasOwn(variables, name),
    })!;
    const order = (a: unknown, b: unknown) => compareValues(a, b, collation?.compare);
    const bounds = spec.boundaries;
    const last = bounds.length - 1;
    const keyOf = (doc: unknown) => {
      const value = evalExpr(doc, spec.groupBy, options) ?? null;
      if (order(value, bounds[0]) < 0 || order(value, bounds[last]) >= 0) {
        if (!spec.fallback)
          throw new LocationError(
            40066,
            "$switch could not find a matching branch for an input, and no default was specified.",
          );
        return { [BUCKET]: last };
      }
      let lo = 0;
      let hi = last - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (order(bounds[mid], value) <= 0) lo = mid;
        else hi = mid - 1;
      }
      return { [BUCKET]: lo };
    };
    // The bucket's own boundary (its number type noted), or the default.
    const idOf = (i: number): [unknown, unknown, string] =>
      i === last ? [spec.fallback!.default, spec.fallback, "default"] : [bounds[i], bounds, String(i)];
    const output = spec.output ?? { count: { $sum: 1 } };
    const grouped = group(coll, { _id: { $__orderedGroupKey: keyOf }, ...output }, options);
    return grouped.transform((rows: Document[]) => {
      const keyed = rows.map((row) => ({ i: (row._id as Document)[BUCKET] as number, row }));
      keyed.sort((a, b) => order(idOf(a.i)[0], idOf(b.i)[0]));
      return Lazy(
        keyed.map(({ i, row }) => {
          const [id, container, key] = idOf(i);
          row._id = id;
          setNumberType(row, "_id", numberTypeAt(container, key));
          return row;
        }),
      );
    });
  };
}

/** The field a `$bucket` key becomes, for mingo's grouping: the boundary's index (the default: the last). */
const BUCKET = "\u0000orderedBucket";

/** `$sortByCount`: the context's `$group` (documents grouped in order) then its `$sort`, as MongoDB defines it. */
export function orderedSortByCount(group: PipelineOp, sort: PipelineOp): PipelineOp {
  return (coll, expr, options) => sort(group(coll, { _id: expr, count: { $sum: 1 } }, options), { count: -1 }, options);
}

/**
 * `$bucketAuto` (without `granularity`, which takes numbers) when a value is a document or an
 * array holding one, or under a collation (`collationOf`): the values sorted in BSON order,
 * strings by the collator, and cut as mingo cuts them, equal values (in order) never split
 * across two buckets.
 */
export function orderedBucketAuto(
  bucketAuto: PipelineOp,
  collationOf: (options: Options) => Collation | undefined,
): PipelineOp {
  return (coll, expr, options) => {
    if (!isPlainObject(expr) || expr.granularity !== undefined || !(Number(expr.buckets) > 0))
      return idFirst(bucketAuto(coll, expr, options));
    const strings = collationOf(options)?.compare;
    const order = (a: unknown, b: unknown) => compareValues(a, b, strings);
    return coll.transform((items: unknown[]) => {
      const keyed = items.map((o) => [evalExpr(o, expr.groupBy, options) ?? null, o] as const);
      if (!strings && !keyed.some(([k]) => comparedInOrder(k))) return idFirst(bucketAuto(Lazy(items), expr, options));
      keyed.sort((a, b) => order(a[0], b[0]));
      const count = Number(expr.buckets);
      const size = Math.max(1, Math.round(keyed.length / count));
      const output = isPlainObject(expr.output) ? expr.output : { count: { $sum: 1 } };
      const rows: Document[] = [];
      let index = 0;
      for (let n = 1; index < keyed.length; n++) {
        const bucket: Array<readonly [unknown, unknown]> = [];
        const tied = () => index > 0 && order(keyed[index - 1][0], keyed[index][0]) === 0;
        while (index < keyed.length && (n === count || bucket.length < size || tied())) bucket.push(keyed[index++]);
        const max = index < keyed.length ? keyed[index][0] : bucket[bucket.length - 1][0];
        const fields = evalExpr(
          bucket.map(([, o]) => o),
          output,
          options,
        ) as Document;
        rows.push({ _id: { min: bucket[0][0], max }, ...fields });
      }
      return Lazy(rows);
    });
  };
}

/**
 * mingo's `$bucketAuto` rows with `_id` first, as MongoDB answers them (mingo puts the outputs
 * first); reordered in place, so the number types marked on a row stay.
 */
const idFirst = (rows: Iterator): Iterator =>
  rows.map((row: Document) => {
    if (!isPlainObject(row) || !("_id" in row)) return row;
    for (const key of Object.keys(row)) {
      if (key === "_id") continue;
      const value = row[key];
      delete row[key];
      row[key] = value;
    }
    return row;
  });

/** Whether a projection or `$addFields` value computes something (an operator, at any depth), rather than naming what passes through. */
function computes(spec: unknown, depth = 0): boolean {
  if (depth > 100) return true;
  if (Array.isArray(spec)) return true;
  if (!isPlainObject(spec)) return false;
  return Object.keys(spec).some((k) => k.startsWith("$") || computes(spec[k], depth + 1));
}

/** Whether a projection value is one expression MongoDB answers as a long (`{$tsSecond: ...}`). */
const answersLong = (spec: unknown): boolean =>
  isPlainObject(spec) && Object.keys(spec).length === 1 && LONG_EXPRESSIONS.has(Object.keys(spec)[0]);

/** The document value a field path (`"$a.b"`) names, or undefined for any other value. */
function pathValue(doc: Document, spec: unknown): unknown {
  if (typeof spec !== "string" || !spec.startsWith("$") || spec.startsWith("$$")) return undefined;
  return resolve(doc, spec.slice(1));
}

/**
 * `$project`, `$addFields` and `$set` keeping the BSON type of each number they pass through: a
 * field kept, included or excluded around, or named by a field path (`{x: "$a"}`) is noted as the
 * input holds it (mingo builds new objects, which lose the types noted beside the numbers). A value
 * an expression computes is sent by its value.
 */
export function typedPassthrough(stage: PipelineOp, kind: "$project" | "$addFields"): PipelineOp {
  return (coll, expr, options) => {
    if (!isPlainObject(expr)) return stage(coll, expr, options);
    const spec = expr;
    // A field holding a computed dotted output (`{"a.b": {$add: ...}}`) is left as computed.
    const computed = new Set(
      Object.keys(spec)
        .filter((k) => k.includes(".") && (computes(spec[k]) || kind === "$addFields"))
        .map((k) => k.split(".")[0]),
    );
    const order = kind === "$project" ? projectedOrder(spec) : undefined;
    let current: Document | undefined;
    const tapped = coll.map((doc: Document) => (current = doc));
    return stage(tapped, spec, options).map((out: Document) => {
      const input = current;
      if (!input || !isPlainObject(out)) return out;
      order?.(out, input);
      for (const key of Object.keys(out)) {
        const named = Object.hasOwn(spec, key) ? spec[key] : undefined;
        if (typeof out[key] === "number" && answersLong(named)) {
          setNumberType(out, key, "long");
          continue;
        }
        const fromPath = pathValue(input, named);
        if (fromPath !== undefined) {
          if (typeof out[key] === "number") {
            const typed = typedAs(input, named, out[key]);
            place(out, key, typed);
          } else carryTypes(out[key], fromPath);
        } else if (!(kind === "$addFields" && Object.hasOwn(spec, key)) && !computes(named) && !computed.has(key))
          if (typeof out[key] === "number") {
            if (out[key] === input[key]) setNumberType(out, key, numberTypeAt(input, key));
          } else carryTypes(out[key], ownField(input, key));
      }
      return out;
    });
  };
}

/** `$project` keeping top-level fields only (`{a: 1, b: true}`, `_id` kept or left out). */
function isInclusionOfFields(spec: Document): boolean {
  const entries = Object.entries(spec);
  return (
    entries.some(([name, v]) => name !== "_id" || v === 1 || v === true) &&
    entries.every(
      ([name, v]) =>
        !name.includes(".") &&
        !name.startsWith("$") &&
        (v === 1 || v === true || (name === "_id" && (v === 0 || v === false))),
    )
  );
}

/**
 * The order of an inclusion `$project`'s output, as MongoDB's projection builds it (mingo's
 * follows the projection's, `_id` last): the fields it keeps, `_id` by default, and the
 * sub-documents it projects into, in the order the input document has them; then the fields it
 * computes, in the projection's order. `undefined` for an exclusion, which keeps the input's order.
 * Reordered in place, so the number types marked on the output stay.
 */
function projectedOrder(spec: Document): ((out: Document, input: Document) => void) | undefined {
  const kept = new Set<string>();
  const into = new Set<string>();
  const computedOrder: string[] = [];
  let inclusion = false;
  for (const [name, value] of Object.entries(spec)) {
    const top = name.split(".")[0];
    const nested = name.includes(".") || (isPlainObject(value) && !Object.keys(value)[0]?.startsWith("$"));
    if (nested) {
      into.add(top);
      if (!computedOrder.includes(top)) computedOrder.push(top);
      inclusion ||= includes(value);
    } else if (value === true || (typeof value === "number" && value !== 0)) {
      kept.add(name);
      inclusion ||= name !== "_id";
    } else if (value !== false && value !== 0) {
      computedOrder.push(name);
      inclusion = true;
    }
  }
  if (!inclusion) return undefined;
  if (!Object.hasOwn(spec, "_id") && !into.has("_id")) kept.add("_id");
  return (out, input) => {
    const keys: string[] = [];
    for (const key of Object.keys(input)) {
      if (!Object.hasOwn(out, key)) continue;
      const value = input[key];
      if (kept.has(key) || (into.has(key) && (isPlainObject(value) || Array.isArray(value)))) keys.push(key);
    }
    for (const key of [...computedOrder, ...Object.keys(out)])
      if (Object.hasOwn(out, key) && !keys.includes(key)) keys.push(key);
    for (const key of keys) {
      const value = out[key];
      delete out[key];
      out[key] = value;
    }
  };
}

/** Whether a nested projection's value keeps or computes anything (an inclusion), as against only excluding. */
function includes(value: unknown): boolean {
  if (value === false || value === 0) return false;
  if (isPlainObject(value) && !Object.keys(value)[0]?.startsWith("$")) return Object.values(value).some(includes);
  return true;
}
