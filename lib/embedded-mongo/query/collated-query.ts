/**
 * Filters, `$group` and `$sort` under a collation. mingo compares strings by code unit, so under a
 * collation each comparison operator ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $all) sees the
 * strings of the field it tests replaced by their rank among the operator's own strings, as the
 * collator orders them: equal strings share a rank, so mingo's own operator then answers as
 * MongoDB does. Regular expressions keep testing the original strings (MongoDB's regexes ignore
 * collations). `$group` keys and `distinct` values merge strings the collator calls equal, and the
 * comparison expressions of `$expr` and the pipeline ($eq ... $cmp, $in) compare by the collator;
 * `$addToSet` keeps one of each set of equal strings. So do the set expressions, `$indexOfArray`,
 * `$min`, `$max`, `$minN`, `$maxN` (collated-expressions.ts, the simple context's too), `$sortArray`,
 * `$bucket` and `$bucketAuto` (ordered-stages.ts).
 */
import type { Document } from "bson";
import { Aggregator, Query } from "mingo";
import { Aggregator as BaseAggregator } from "mingo/aggregator";
import { Context, evalExpr } from "mingo/core";
import * as accumulatorOperators from "mingo/operators/accumulator";
import * as expressionOperators from "mingo/operators/expression";
import * as pipelineOperators from "mingo/operators/pipeline";
import * as projectionOperators from "mingo/operators/projection";
import * as queryOperators from "mingo/operators/query";
import * as windowOperators from "mingo/operators/window";
import { Query as BaseQuery } from "mingo/query";
import type { Options } from "mingo/types";
import { compareValues, isPlainObject } from "../storage/keys";
import { addedExpressions } from "./added-expressions";
import { collatedExpressions } from "./collated-expressions";
import { canonicalizer, collatedCompareEqual, compareCollated, mapStrings, type Collation } from "./collation";
import { comparedInOrder, orderedOperators } from "./document-order";
import { graphLookupStage } from "./graph-lookup";
import {
  $__orderedGroupKey,
  orderedAddToSet,
  orderedBucket,
  orderedBucketAuto,
  orderedGroup,
  orderedLookup,
  orderedSetExpressions,
  orderedSort,
  orderedSortArray,
  orderedSortByCount,
  singleAccumulators,
  typedAccumulators,
  typedPassthrough,
} from "./ordered-stages";
import { LocationError, OWN_STAGES, withOwnStages } from "./pipeline-check";
import { regexExpressions } from "./regex-expressions";
import { strictExpressions, strictStages, typeOfValue } from "./strict-operators";
import { customQueryOperators } from "./type-operators";
import { fillStage, windowFieldsStage } from "./window-fields";

type Predicate = (o: unknown) => boolean;
type QueryOp = (selector: string, value: unknown, options: Options) => Predicate;
type PipelineOp = (coll: unknown, expr: unknown, options: Options) => unknown;
type ExpressionOp = (obj: unknown, expr: unknown, options: Options) => unknown;

/**
 * The collation of options made by `collatedOptions` (mingo copies options, so kept by context;
 * and by mingo's own collation spec, the object a pipeline operator's copied options still hold).
 */
const collationOf = new WeakMap<object, Collation>();

export function optionsCollation(options: Partial<Options> | undefined): Collation | undefined {
  const byContext = options?.context ? collationOf.get(options.context) : undefined;
  const spec = options?.collation as object | undefined;
  return byContext ?? (spec ? collationOf.get(spec) : undefined);
}

/**
 * Contexts that hold every operator mingo has besides the server's own: a query or a pipeline
 * under one runs on mingo's base classes, which take the context as it is (mingo's `Query` and
 * `Aggregator` put their defaults first, over the server's comparisons).
 */
const fullContexts = new WeakSet<object>();

/**
 * The context of every query and pipeline the server runs without a collation: mingo's
 * operators, the server's own query operators (type-operators.ts, document-order.ts) and stages,
 * and the comparison expressions comparing documents in order ({@link orderedExpressions}).
 */
const SERVER_CONTEXT = Context.init({
  accumulator: { ...(accumulatorOperators as object), ...orderedAccumulators() } as never,
  expression: {
    ...(expressionOperators as object),
    ...orderedExpressions(),
    ...orderedSets(),
    ...regexExpressions,
    ...strictExpressions,
    ...addedExpressions(strictExpressions.$convert, strictExpressions.$toString),
    ...collatedExpressions(expressionOperators as never, undefined),
  } as never,
  pipeline: { ...(pipelineOperators as object), ...OWN_STAGES, ...orderedStages() } as never,
  projection: projectionOperators as never,
  query: { ...(queryOperators as object), ...customQueryOperators } as never,
  window: windowOperators as never,
});
fullContexts.add(SERVER_CONTEXT);

export const serverContext = (): Context => SERVER_CONTEXT;

/**
 * `$group`, `$sort` (ordered-stages.ts): documents compared in BSON order, in order; `$graphLookup`
 * (graph-lookup.ts); and `$setWindowFields` and `$fill` (window-fields.ts).
 */
function orderedStages(): Record<string, PipelineOp> {
  const pipeline = pipelineOperators as unknown as Record<string, PipelineOp>;
  const windowStage = windowFieldsStage((options) => optionsCollation(options));
  const $group = orderedGroup(pipeline.$group as never) as never;
  const $sort = orderedSort(pipeline.$sort as never, (options) => optionsCollation(options)) as never;
  return {
    ...strictStages(pipeline as never),
    $group,
    $sort,
    $sortByCount: orderedSortByCount($group, $sort) as never,
    $lookup: orderedLookup(pipeline.$lookup as never, (options) => optionsCollation(options)) as never,
    $graphLookup: graphLookupStage((options) => optionsCollation(options)) as never,
    $project: typedPassthrough(pipeline.$project as never, "$project") as never,
    $addFields: typedPassthrough(pipeline.$addFields as never, "$addFields") as never,
    $set: typedPassthrough(pipeline.$set as never, "$addFields") as never,
    $bucket: orderedBucket($group, (options) => optionsCollation(options)) as never,
    $bucketAuto: orderedBucketAuto(pipeline.$bucketAuto as never, (options) => optionsCollation(options)) as never,
    // The server's own stages: mingo's compute through `$function`, which the server never runs.
    $setWindowFields: windowStage as never,
    $fill: fillStage(windowStage) as never,
  };
}

function orderedAccumulators(): Record<string, PipelineOp> {
  const acc = accumulatorOperators as unknown as Record<string, PipelineOp>;
  return {
    $addToSet: orderedAddToSet(acc.$addToSet as never, acc.$push as never) as never,
    ...(typedAccumulators(acc as never) as Record<string, PipelineOp>),
    ...(singleAccumulators(acc as never) as Record<string, PipelineOp>),
  };
}

/**
 * The set expressions and `$sortArray` comparing documents in order (and, under a collation,
 * strings by it), and the key `orderedGroup` hands mingo.
 */
function orderedSets(collation?: Collation): Record<string, ExpressionOp> {
  return {
    ...orderedSetExpressions(expressionOperators as never, collation),
    $sortArray: orderedSortArray(expressionOperators.$sortArray as never, collation),
    $__orderedGroupKey,
  };
}

/**
 * mingo's comparison expressions (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$cmp`, `$in`) where an
 * argument holds a document: compared in BSON order, field by field in order (`compareValues`),
 * as MongoDB does; mingo ignores the order of a document's fields. Other arguments stay mingo's.
 */
function orderedExpressions(): Record<string, ExpressionOp> {
  const ops = expressionOperators as unknown as Record<string, ExpressionOp>;
  const pair =
    (name: string, decide: (a: unknown, b: unknown) => unknown): ExpressionOp =>
    (obj, expr, options) => {
      if (!Array.isArray(expr) || expr.length !== 2) return ops[name](obj, expr, options);
      const [a, b] = evalExpr(obj, expr, options) as unknown[];
      if (!comparedInOrder(a) && !comparedInOrder(b))
        return ops[name](obj, [{ $literal: a }, { $literal: b }], options);
      return decide(a ?? null, b ?? null);
    };
  const order = (a: unknown, b: unknown) => compareValues(a, b);
  return {
    $eq: pair("$eq", (a, b) => order(a, b) === 0),
    $ne: pair("$ne", (a, b) => order(a, b) !== 0),
    $gt: pair("$gt", (a, b) => order(a, b) > 0),
    $gte: pair("$gte", (a, b) => order(a, b) >= 0),
    $lt: pair("$lt", (a, b) => order(a, b) < 0),
    $lte: pair("$lte", (a, b) => order(a, b) <= 0),
    $cmp: pair("$cmp", (a, b) => Math.sign(order(a, b))),
    $in: (obj, expr, options) => {
      if (!Array.isArray(expr) || expr.length !== 2) return ops.$in(obj, expr, options);
      const [item, list] = evalExpr(obj, expr, options) as unknown[];
      if (!Array.isArray(list)) throw inNeedsArray(list);
      if (!comparedInOrder(item) && !list.some(comparedInOrder))
        return ops.$in(obj, [{ $literal: item }, { $literal: list }], options);
      return list.some((v) => order(item ?? null, v ?? null) === 0);
    },
  };
}

/** `$in` of a second argument that is not an array (null and missing too), as MongoDB refuses it. */
const inNeedsArray = (list: unknown) =>
  new LocationError(40081, `$in requires an array as a second argument, found: ${typeOfValue(list)}`);

/** mingo options whose comparisons, groups and sorts follow the collation (undefined: simple). */
export function collatedOptions(options: Partial<Options>, collation: Collation | undefined): Partial<Options> {
  if (!collation) return options;
  const registry = new Map<number, (doc: unknown) => unknown>();
  const query = queryOperators as unknown as Record<string, QueryOp>;
  const ordered = orderedStages();
  const group = collatedGroup(ordered.$group, collation, registry);
  const context = Context.init({
    accumulator: {
      ...(accumulatorOperators as object),
      $addToSet: collatedAddToSet(orderedAccumulators().$addToSet, collation),
      ...typedAccumulators(accumulatorOperators as never),
      ...singleAccumulators(accumulatorOperators as never),
    } as never,
    expression: {
      ...(expressionOperators as object),
      ...orderedSets(collation),
      ...regexExpressions,
      ...strictExpressions,
      ...addedExpressions(strictExpressions.$convert, strictExpressions.$toString),
      ...comparisonExpressions(collation),
      ...collatedExpressions(expressionOperators as never, collation),
      $__collatedGroupId: (obj: unknown, token: number) => registry.get(token)?.(obj),
    } as never,
    pipeline: {
      ...(pipelineOperators as object),
      ...OWN_STAGES,
      ...ordered,
      $group: group,
      $sortByCount: orderedSortByCount(group as never, ordered.$sort as never) as never,
    } as never,
    projection: projectionOperators as never,
    query: {
      ...(queryOperators as object),
      $eq: compared(query.$eq, collation),
      $ne: compared(query.$ne, collation),
      $gt: compared(query.$gt, collation),
      $gte: compared(query.$gte, collation),
      $lt: compared(query.$lt, collation),
      $lte: compared(query.$lte, collation),
      $in: listed(query.$in, collation, false),
      $nin: listed(query.$in, collation, true),
      $all: all(query.$all, collation),
      // The server's own $type, $all and $bits* (type-operators.ts), the collated $all included.
      ...customQueryOperators,
      // Documents compared field by field in order, their strings by the collator.
      ...orderedOperators(collation.compare),
      $allOf: all(customQueryOperators.$allOf as unknown as QueryOp, collation),
    } as never,
    window: windowOperators as never,
  });
  collationOf.set(context, collation);
  fullContexts.add(context);
  // mingo's $sort builds its own Intl.Collator from this spec, with the same mapping of options.
  const sortSpec = { ...collation.spec, locale: collation.tag };
  collationOf.set(sortSpec, collation);
  return { ...options, context, collation: sortSpec as never };
}

const isFull = (options: Partial<Options> | undefined) =>
  Boolean(options?.context && fullContexts.has(options.context));

/**
 * mingo's `ComputeOptions` class, which it does not export, taken from the options a query
 * operator receives. Given plain options, mingo's `Query` copies every operator table of their
 * context (some 400 entries) before compiling; given an instance, it takes the context as it is.
 */
const ComputeOptions: new (options: Options) => Options = (() => {
  let found: (new (options: Options) => Options) | undefined;
  const probe: QueryOp = (_selector, _value, options) => {
    found = options.constructor as typeof found;
    return () => true;
  };
  new BaseQuery({ a: { $probe: 1 } }, { context: Context.init({ query: { $probe: probe } as never }) } as Options);
  return found!;
})();

/** mingo's defaults (`ComputeOptions.init`), under the given options. */
const MINGO_DEFAULTS = { idKey: "_id", scriptEnabled: true, useStrictMode: true, failOnError: true, processingMode: 0 };

/** The instance built once per options object (a command's), so its queries share its context uncopied. */
const computed = new WeakMap<object, Options>();

function computeOptions(options: Partial<Options>): Options {
  let made = computed.get(options);
  if (!made) computed.set(options, (made = new ComputeOptions({ ...MINGO_DEFAULTS, ...options } as Options)));
  return made;
}

/**
 * A mingo Query with the options' context as it is when it is a full one (the server's, a
 * collation's): no query operator changes its context (only the `$fill` and `$setWindowFields`
 * stages do, so aggregations keep mingo's copy).
 */
export function makeQuery(filter: Document, options?: Partial<Options>): Query {
  return isFull(options)
    ? (new BaseQuery(filter, computeOptions(options!)) as unknown as Query)
    : new Query(filter, options);
}

export function makeAggregator(stages: Document[], options?: Partial<Options>): Aggregator {
  const pipeline = withOwnStages(stages);
  if (!isFull(options)) return new Aggregator(pipeline, options);
  // A pipeline without a stage that adds operators to its context shares the command's uncopied.
  const shared = !namesAny(stages, CONTEXT_CHANGING_STAGES) ? computeOptions(options!) : (options as Options);
  return new BaseAggregator(pipeline, shared) as unknown as Aggregator;
}

/** The stages of mingo that add operators to the context they run under. */
const CONTEXT_CHANGING_STAGES = new Set(["$fill", "$setWindowFields"]);

/** Whether a key of `names` appears anywhere in `value` (sub-pipelines included). */
function namesAny(value: unknown, names: ReadonlySet<string>): boolean {
  if (Array.isArray(value)) return value.some((v) => namesAny(v, names));
  if (!isPlainObject(value)) return false;
  for (const key of Object.keys(value)) if (names.has(key) || namesAny(value[key], names)) return true;
  return false;
}

/** The strings of a value (deep), in collator order, one per class of equal strings. */
function classesOf(value: unknown, c: Collation): string[] {
  const found: string[] = [];
  const visit = (v: unknown) => {
    if (typeof v === "string") found.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
    else if (isPlainObject(v)) Object.values(v).forEach(visit);
  };
  visit(value);
  found.sort(c.compare);
  return found.filter((s, i) => i === 0 || c.compare(found[i - 1], s) !== 0);
}

/** Replaces each string by its rank among the classes: equal strings by the same odd rank. */
function ranker(classes: string[], c: Collation): (v: unknown) => unknown {
  const code = (n: number) => `\u0001${n.toString(36).padStart(8, "0")}`;
  const rank = (s: string): string => {
    let lo = 0;
    let hi = classes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const cmp = c.compare(s, classes[mid]);
      if (cmp === 0) return code(2 * mid + 1);
      if (cmp < 0) hi = mid;
      else lo = mid + 1;
    }
    return code(2 * lo);
  };
  return (v) => mapStrings(v, rank);
}

/** The document reduced to the field a selector reads, its strings ranked. */
function rankedField(o: unknown, selector: string, map: (v: unknown) => unknown): unknown {
  if (!isPlainObject(o)) return o;
  const head = selector.split(".")[0];
  return head in o ? { [head]: map(o[head]) } : {};
}

function compared(op: QueryOp, c: Collation): QueryOp {
  return (selector, value, options) => {
    const classes = classesOf(value, c);
    if (classes.length === 0 || value instanceof RegExp) return op(selector, value, options);
    const map = ranker(classes, c);
    const inner = op(selector, map(value), options);
    return (o) => inner(rankedField(o, selector, map));
  };
}

/** $in / $nin: the regular expressions of the list test the original strings. */
function listed(op: QueryOp, c: Collation, negate: boolean): QueryOp {
  return (selector, value, options) => {
    const list = Array.isArray(value) ? value : [];
    const patterns = list.filter((v) => v instanceof RegExp);
    const values = list.filter((v) => !(v instanceof RegExp));
    const byValue = compared(op, c)(selector, values, options);
    const byPattern = patterns.length ? op(selector, patterns, options) : () => false;
    if (!Array.isArray(value)) {
      const plain = op(selector, value, options);
      return negate ? (o) => !plain(o) : plain;
    }
    return negate ? (o) => !(byValue(o) || byPattern(o)) : (o) => byValue(o) || byPattern(o);
  };
}

function all(op: QueryOp, c: Collation): QueryOp {
  return (selector, value, options) => {
    const list = Array.isArray(value) ? value : [];
    // A document or an array (an `$elemMatch` too) is matched by the context's own operators,
    // which follow the collation.
    if (!Array.isArray(value) || list.some((v) => isPlainObject(v) || Array.isArray(v)))
      return op(selector, value, options);
    const patterns = list.filter((v) => v instanceof RegExp);
    const values = list.filter((v) => !(v instanceof RegExp));
    const byValue = values.length ? compared(op, c)(selector, values, options) : () => true;
    const byPattern = patterns.length ? op(selector, patterns, options) : () => true;
    if (values.length === 0 && patterns.length === 0) return op(selector, value, options);
    return (o) => byValue(o) && byPattern(o);
  };
}

let tokens = 0;

/** $group whose `_id` merges strings equal under the collation (the first one met names the group). */
function collatedGroup(group: PipelineOp, c: Collation, registry: Map<number, (doc: unknown) => unknown>): PipelineOp {
  return (coll, expr, options) => {
    if (!isPlainObject(expr) || !("_id" in expr)) return group(coll, expr, options);
    const token = ++tokens;
    const canon = canonicalizer(c);
    const idExpr = expr._id;
    registry.set(token, (doc) => canon(evalExpr(doc, idExpr, options)));
    return group(coll, { ...expr, _id: { $__collatedGroupId: token } }, options);
  };
}

/** The aggregation comparison expressions under a collation (MongoDB's order across types). */
function comparisonExpressions(
  c: Collation,
): Record<string, (obj: unknown, expr: unknown, options: Options) => unknown> {
  const args = (obj: unknown, expr: unknown, options: Options, name: string): unknown[] => {
    const values = evalExpr(obj, expr, options) as unknown;
    if (!Array.isArray(values) || values.length !== 2)
      throw new Error(
        `Expression ${name} takes exactly 2 arguments. ${Array.isArray(values) ? values.length : 1} were passed in.`,
      );
    return values;
  };
  const cmp = (name: string, test: (n: number) => boolean) => (obj: unknown, expr: unknown, options: Options) => {
    const [a, b] = args(obj, expr, options, name);
    return test(compareCollated(a ?? null, b ?? null, c));
  };
  return {
    $eq: (obj, expr, options) => {
      const [a, b] = args(obj, expr, options, "$eq");
      return collatedCompareEqual(a ?? null, b ?? null, c);
    },
    $ne: (obj, expr, options) => {
      const [a, b] = args(obj, expr, options, "$ne");
      return !collatedCompareEqual(a ?? null, b ?? null, c);
    },
    $gt: cmp("$gt", (n) => n > 0),
    $gte: cmp("$gte", (n) => n >= 0),
    $lt: cmp("$lt", (n) => n < 0),
    $lte: cmp("$lte", (n) => n <= 0),
    $cmp: (obj, expr, options) => {
      const [a, b] = args(obj, expr, options, "$cmp");
      return Math.sign(compareCollated(a ?? null, b ?? null, c));
    },
    $in: (obj, expr, options) => {
      const [item, list] = args(obj, expr, options, "$in");
      if (!Array.isArray(list)) throw inNeedsArray(list);
      return list.some((v) => collatedCompareEqual(item ?? null, v ?? null, c));
    },
  };
}

/** $addToSet keeping the first of the values equal under the collation. */
function collatedAddToSet(addToSet: PipelineOp, c: Collation): PipelineOp {
  return (coll, expr, options) => {
    const values = addToSet(coll, expr, options);
    if (!Array.isArray(values)) return values;
    const canon = canonicalizer(c);
    const seen = new Set<string>();
    return values.filter((v) => {
      const key = JSON.stringify(canon(v) ?? null);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };
}
