/**
 * Runs a filter over a collection: plan (planner.ts), walk the candidates the plan names, check
 * each one against the whole filter with mingo, then sort (unless the index walk already did),
 * skip, limit and project.
 */
import type { Document } from "bson";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import {
  bsonType,
  encodeValue,
  idKey,
  idText,
  isPlainObject,
  MAX_STRING_KEY,
  Rank,
  valuesAtPath,
  type KeyPart,
} from "../storage/keys";
import { isCapped, type CollectionMeta, type Store } from "../storage/store";
import type { Key } from "../storage/store/common";
import type { StoredBytes } from "../storage/store/reads";
import { makeAggregator, makeQuery, optionsCollation, serverContext } from "./collated-query";
import { compileFilter, filterMatcher, type Matcher } from "./filter";
import type { ForeignIndex } from "./ordered-stages";
import { budgetOf, PlanCache, planKey, type CachedPlan } from "./plan-cache";
import { candidatePlans, filterFields, planName, type Plan } from "./planner";
import { projectFind } from "./projection";
import { readsDocument } from "./reads-document";
import { sortWork } from "./sort";
import { parseTextQuery, splitText, textIndexFor, textMatcher, textScores } from "./text";
import { jsonSchemaValidator } from "./validation";
import { due, runNow, type Work } from "./work";

export interface FindSpec {
  filter?: Document;
  sort?: Document;
  skip?: number;
  /** 0 or undefined: no limit. */
  limit?: number;
  hint?: unknown;
  /**
   * Filled with the number of documents read and (when asked) of index entries read, for
   * explain's executionStats.
   */
  stats?: { docsExamined: number; keysExamined?: number };
  /** Only these top-level fields of each match are needed (a count): the rest is not decoded. */
  fields?: ReadonlySet<string>;
  /**
   * Filled with the stored bytes of each match, by the match: the caller answers with the bytes
   * (a find without a projection), so only the fields the filter and the sort read are decoded.
   */
  stored?: StoredBytes;
}

export function mingoOptions(store: Store, db: string, letParameters?: Document): Partial<Options> {
  // The option named, not spread in: the slow literal of Node 20 (../README.md#object-literals).
  const options: Partial<Options> = {
    jsonSchemaValidator,
    idKey: "_id",
    context: serverContext(),
    scriptEnabled: false,
    // As on a replica set's member, `$$CLUSTER_TIME` is the cluster time when the command runs.
    variables: { CLUSTER_TIME: store.clock.now() },
    // mingo keeps only its own options when it copies them: the probe rides on the resolver.
    collectionResolver: Object.assign(
      (name: string) => {
        const meta = store.collection(db, name);
        return meta ? [...store.scan(meta)] : [];
      },
      { foreignIndex: foreignIndexOf(store, db, () => options) },
    ),
  } as Partial<Options>;
  return letParameters ? { ...options, variables: evaluateLet(letParameters, options) } : options;
}

/**
 * The probes of `$lookup` (ordered-stages.ts {@link ForeignIndex}) over the collections of `db`:
 * a `find` of the joined values, with the sub-pipeline's first `$match`, wherever the planner
 * serves it from an index. `options` are the command's (without a collation, which reads the
 * whole collection: the join's own comparison is binary).
 */
function foreignIndexOf(store: Store, db: string, options: () => Partial<Options>): ForeignIndex {
  return (name, field, joinOptions, query) => {
    const meta = store.collection(db, name);
    if (!meta || isCapped(meta) || meta.options.viewOn || optionsCollation(joinOptions)) return undefined;
    const { match } = query;
    // `_id` breaks ties as the collection's own order does, which a `$sort` keeps (it is stable).
    const sort = query.sort
      ? { ...query.sort, ...("_id" in query.sort ? {} : { _id: 1 as const }) }
      : { _id: 1 as const };
    // Whether an index serves a probe of one value depends on its type (of a regex, on its pattern).
    const served = new Map<string, boolean>();
    return (values, joins) => {
      // One value as an equality (a document would read as operators): the planner's simplest bounds.
      const key = values.length === 1 && !isPlainObject(values[0]) ? values[0] : { $in: values };
      const filter = !match
        ? { [field]: key }
        : field in match
          ? { $and: [{ [field]: key }, match] }
          : { ...match, [field]: key };
      const shape = values.length === 1 ? probedType(values[0]) : "";
      let indexed = shape ? served.get(shape) : undefined;
      if (indexed === undefined) {
        indexed = candidatePlans(filter, undefined, meta.indexes)[0].kind !== "scan";
        if (shape) served.set(shape, indexed);
      }
      if (!indexed) return undefined;
      const { project } = query;
      // Only what the filter, the sort, the join and the `$project` read is decoded.
      const read = project ? readFields(filter, sort) : undefined;
      if (read) for (const each of [field.split(".")[0], ...Object.keys(project!)]) read.add(each);
      // The sub-pipeline's `$match` reads no variable: the command's options compile it.
      const found = findDocuments(store, meta, { filter, sort, ...(read ? { fields: read } : {}) }, options());
      const matched = found.filter(joins);
      // The join compares `field` before the `$project` may drop it.
      return project ? (projectFind(matched, project, filter) ?? matched) : matched;
    };
  };
}

/** A value's type, as far as an index's bounds for it go; `""` for a regex, whose bounds depend on it. */
function probedType(value: unknown): string {
  if (value === null || typeof value !== "object") return typeof value;
  const type = bsonType(value) ?? (value as object).constructor?.name ?? "";
  return value instanceof RegExp || type === "BSONRegExp" ? "" : type;
}

/**
 * A command's `let`: each value is an expression evaluated once, before any document is read (so
 * it may not name a field), in order (a later one may use an earlier one), as MongoDB does; the
 * pipeline and `$expr` then see the values, so `{ $literal: "$bar" }` binds the string `"$bar"`.
 */
function evaluateLet(letParameters: Document, options: Partial<Options>): Document {
  const variables: Document = { ...options.variables };
  for (const [name, expression] of Object.entries(letParameters)) {
    checkLetName(name);
    if (readsDocument(expression)) {
      throw new MongoCommandError(
        "Location4890500",
        "Command let Expression tried to access a field, but this is not allowed because Command let Expressions run before the query examines any documents.",
      );
    }
    const [evaluated] = makeAggregator([{ $replaceWith: { value: expression } }], { ...options, variables }).run([
      {},
    ]) as Document[];
    variables[name] = evaluated?.value;
  }
  return variables;
}

/** MongoDB's rule for a user variable's name (`variable_validation.cpp`). */
function checkLetName(name: string): void {
  if (name === "CURRENT") return;
  if (["NOW", "CLUSTER_TIME", "JS_SCOPE", "IS_MR", "USER_ROLES"].includes(name)) {
    throw new MongoCommandError("Location4738901", `Attempt to set internal constant: ${name}`);
  }
  const invalid = (reason: string) =>
    new MongoCommandError("FailedToParse", `Invalid 'let' parameter :: caused by :: ${reason}`);
  if (name.length === 0) throw invalid("empty variable names are not allowed");
  if (!/^[a-z\u0080-\uffff]/.test(name))
    throw invalid(`'${name}' starts with an invalid character for a user variable name`);
  const bad = /[^a-zA-Z0-9_\u0080-\uffff]/.exec(name.slice(1));
  if (bad) throw invalid(`'${name}' contains an invalid character for a variable name: '${bad[0]}'`);
}

/**
 * What a plan's walk did besides yielding documents: the index entries it read, and the matches
 * it passed over from their index entries alone (see {@link keySkip}).
 */
interface Walk {
  keys: number;
  /** Matches still to pass over without reading them; 0 once an entry needs its document. */
  skip: number;
  skipped: number;
}

/** Yielded by a walk every {@link CHECK_KEYS} entries it passes over, so a long skip can pause. */
const PAUSE: Document = Object.freeze({});
const CHECK_KEYS = 64;

function* candidates(
  store: Store,
  meta: CollectionMeta,
  plan: Plan,
  walk: Walk,
  fields?: ReadonlySet<string>,
  stored?: StoredBytes,
  vouching?: Vouching,
): Generator<Document> {
  if (plan.kind === "ids") {
    const seen = new Set<string>();
    for (const id of plan.ids) {
      const part = idKey(id);
      const key = JSON.stringify(part);
      if (seen.has(key)) continue;
      seen.add(key);
      const doc = store.getByIdPart(meta, part, fields, stored);
      if (doc) {
        walk.keys += 1;
        yield doc;
      }
    }
    return;
  }
  if (plan.kind === "scan") {
    yield* store.scan(meta, plan.reverse, fields, stored);
    return;
  }
  const seen = plan.dedupe ? new Set<string>() : undefined;
  const intervals = plan.reverse ? [...plan.intervals].reverse() : plan.intervals;
  for (const { start, end } of intervals) {
    for (const key of store.indexKeys(meta, plan.index.name, start, end, plan.reverse)) {
      walk.keys += 1;
      const id: KeyPart = [key[key.length - 2] as number, key[key.length - 1]];
      if (seen) {
        const text = idText(id[0], id[1]);
        if (seen.has(text)) continue;
        seen.add(text);
      }
      if (walk.skipped < walk.skip) {
        if (certainEntry(key)) {
          walk.skipped += 1;
          if (walk.skipped % CHECK_KEYS === 0) yield PAUSE;
          continue;
        }
        // This entry cannot vouch for its document: from here on every document is read.
        walk.skip = walk.skipped;
      }
      const vouched = vouching !== undefined && certainEntry(key);
      const doc = store.getByIdPart(meta, id, vouched ? vouching.fields : fields, stored);
      if (doc) {
        if (vouched) vouching.matches.add(doc);
        yield doc;
      }
    }
  }
}

/**
 * A walk whose index entries vouch for their documents' match ({@link keySkip}, {@link
 * certainEntry}), in a find answered with the stored bytes: such a document is a match without
 * its filter's test, so only the fields its sort reads are decoded (`fields`), and it is put in
 * `matches` for {@link step} to take as it is. An entry that cannot vouch has its document read
 * with the filter's fields and tested.
 */
interface Vouching {
  fields: ReadonlySet<string>;
  matches: WeakSet<Document>;
}

/**
 * Whether a plan may pass over the first matches of a skip from their index entries alone,
 * without reading them, as MongoDB's planner puts SKIP below FETCH: the walk follows the result's
 * order and its bounds decide every condition of the filter exactly (planner.ts `covered`: no
 * collation, null, array value, document or regex that is more than a prefix), so each entry
 * between them is a match. Hashed keys are not the values.
 */
function keySkip(plan: Plan, sortedByPlan: boolean): boolean {
  return plan.kind === "index" && plan.covered && sortedByPlan && !Object.values(plan.index.key).includes("hashed");
}

/**
 * Whether one index entry of a {@link keySkip} plan vouches for its document: its keys are the
 * values themselves, in MongoDB's order. Not a key that was cut (a long string, document or
 * binary value: the document may differ past the cut), a document, an array or binary data (keyed
 * by their text, not in MongoDB's order), nor a number (a Decimal128 or a large int64 is keyed by
 * its nearest double, so the key may meet a bound or an order the value does not). A match whose
 * entry cannot vouch is read, and so is every one after it; one read so may make the executor sort
 * every match itself (see {@link sortsUnlikeIndex}).
 */
function certainEntry(key: Key): boolean {
  // The namespace (db, collection, index), a [rank, value] pair per field, then the id's pair.
  const idAt = key.length - 2;
  for (let i = 3; i < key.length; i += 2) {
    const rank = key[i];
    const value = key[i + 1];
    if (rank === Rank.Object || rank === Rank.Array || rank === Rank.Binary) return false;
    if (typeof value === "string" && value.length >= MAX_STRING_KEY) return false;
    // An `_id` key is never cut, and a number one is exact below 2^53.
    if (rank === Rank.Number && (i < idAt || Math.abs(value as number) >= 2 ** 53)) return false;
  }
  return true;
}

/** One plan being executed: its candidate stream and the matches it found so far. */
interface Runner {
  plan: Plan;
  sortedByPlan: boolean;
  stream: Iterator<Document>;
  /** The documents its walk vouched for as matches (see {@link Vouching}): not tested. */
  vouched?: WeakSet<Document>;
  /** The matches read (those the walk passed over unread are counted in `walk.skipped`). */
  matches: Document[];
  walk: Walk;
  /** Documents read. */
  works: number;
  /** Steps taken, pauses of a skip included: when to look at the clock. */
  ticks: number;
  done: boolean;
}

/** How many matches a runner found, read or passed over. */
const found = (r: Runner) => r.walk.skipped + r.matches.length;

/** MongoDB's `internalQueryPlanEvaluationWorks`: the longest a race runs before scoring the plans. */
const TRIAL_WORKS = 10_000;

/** Pulls one candidate; returns false when the plan has no more. */
function step(runner: Runner, query: Matcher): boolean {
  const next = runner.stream.next();
  if (next.done) {
    runner.done = true;
    return false;
  }
  runner.ticks += 1;
  if (next.value === PAUSE) return true;
  runner.works += 1;
  if (runner.vouched?.has(next.value) || query.test(next.value)) runner.matches.push(next.value);
  return true;
}

/**
 * Runs the candidate plans side by side, one document each in turn, until one of them has
 * everything it needs: all its candidates, or (walking in sort order) enough matches for the
 * page. Past the trial budget the most productive plan wins, preferring one that sorts. As in
 * MongoDB's multi-planner, a plan whose matches still need sorting in memory has returned nothing
 * yet (its sort answers only once its input ends), so a walk in sort order that has not reached a
 * match is never beaten by a plan that would read and sort every match.
 */
function* race(runners: Runner[], query: Matcher, wanted: number, sorting: boolean): Work<Runner> {
  for (let round = 0; round < TRIAL_WORKS; round++) {
    if (due(round + 1)) yield;
    for (const runner of runners) {
      if (!step(runner, query)) return runner;
      if (runner.sortedByPlan && wanted > 0 && found(runner) >= wanted) return runner;
    }
  }
  const returned = (r: Runner) => (sorting && !r.sortedByPlan ? 0 : found(r));
  const productivity = (r: Runner) => returned(r) / Math.max(1, r.works) + (r.sortedByPlan ? 1e-6 : 0);
  return runners.reduce((best, r) => (productivity(r) > productivity(best) ? r : best));
}

/** The matching documents in order, after skip and limit (not projected). */
export function findDocuments(
  store: Store,
  meta: CollectionMeta | undefined,
  spec: FindSpec,
  options?: Partial<Options>,
): Document[] {
  return runNow(findWork(store, meta, spec, options));
}

/** {@link findDocuments} as a read that may pause (work.ts). */
export function* findWork(
  store: Store,
  meta: CollectionMeta | undefined,
  spec: FindSpec,
  options?: Partial<Options>,
): Work<Document[]> {
  const text = spec.filter ? splitText(spec.filter) : undefined;
  if (text) return meta ? yield* findText(store, meta, text, spec, options) : [];
  const filter = spec.filter ?? {};
  // Compiled first (or known to be valid): a malformed filter is refused even where there is nothing to read.
  const query = filterMatcher(filter, options);
  if (!meta) return [];
  const sort = spec.sort && Object.keys(spec.sort).length ? spec.sort : hintedOrder(meta, spec.hint);
  if (meta.options.viewOn) return yield* findInView(store, meta, query, { ...spec, sort }, options);
  // The collation travels with the mingo options (collated-query.ts): the planner and the sort follow it.
  const collation = optionsCollation(options);
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const wanted = limit > 0 ? skip + limit : 0;
  const executor = executorOf(store);
  // Read from the plan cache only when several indexes could serve (candidatePlans asks then).
  let key: string | undefined;
  let cached: CachedPlan | undefined;
  let plans = candidatePlans(filter, sort, meta.indexes, spec.hint, collation, () => {
    key = `${planKey(meta, filter, sort, wanted > 0)}|${collation?.key ?? ""}`;
    cached = executor.plans.get(key);
    return cached?.plan;
  });
  // Answered with the stored bytes: only what the filter and the sort read is decoded.
  const fields = spec.stored && !spec.fields ? readFields(filter, sort) : spec.fields;
  // What a document its index entry vouches for needs decoded: the fields of the sort (see Vouching).
  const sortFields = spec.stored && !spec.fields && fields ? readFields({}, sort) : undefined;
  const runner = (plan: Plan, skipping = true): Runner => {
    const sortedByPlan = plan.kind === "ids" ? !sort : plan.sorted;
    const keyed = keySkip(plan, sortedByPlan);
    const walk: Walk = { keys: 0, skip: skipping && keyed ? skip : 0, skipped: 0 };
    const vouching = sortFields && keyed ? { fields: sortFields, matches: new WeakSet<Document>() } : undefined;
    const stream = candidates(store, meta, plan, walk, fields, spec.stored, vouching);
    return {
      plan,
      sortedByPlan,
      stream,
      vouched: vouching?.matches,
      matches: [],
      walk,
      works: 0,
      ticks: 0,
      done: false,
    };
  };
  const finished = (r: Runner) => r.done || (r.sortedByPlan && wanted > 0 && found(r) >= wanted);

  let winner: Runner | undefined;
  const cachedPlan = cached && plans.find((plan) => planName(plan) === cached!.plan);
  if (cachedPlan) {
    const alone = runner(cachedPlan);
    const budget = budgetOf(cached!);
    while (!finished(alone) && alone.works < budget) {
      step(alone, query);
      if (due(alone.ticks)) yield;
    }
    executor.scannedObjects += alone.works;
    if (finished(alone)) winner = alone;
    else {
      // The cached plan is doing far more work than when it won: the data changed, race again.
      alone.stream.return?.(undefined);
      executor.plans.delete(key!);
      plans = candidatePlans(filter, sort, meta.indexes, spec.hint, collation);
    }
  }
  if (!winner) {
    const runners = plans.map((plan) => runner(plan));
    winner = runners.length === 1 ? runners[0] : yield* race(runners, query, wanted, Boolean(sort));
    while (!finished(winner)) {
      step(winner, query);
      if (due(winner.ticks)) yield;
    }
    for (const r of runners) executor.scannedObjects += r.works;
    // Close the LMDB cursors of the losers left unfinished (the winner's just below).
    for (const r of runners) if (r !== winner && !r.done) r.stream.return?.(undefined);
    if (key !== undefined && plans.length > 1)
      executor.plans.set(key, { plan: planName(winner.plan), works: winner.works });
  }
  // As MongoDB's executionStats: the winning plan's work (the trial of the others is not counted).
  if (spec.stats) {
    spec.stats.docsExamined += winner.works;
    if (spec.stats.keysExamined !== undefined) spec.stats.keysExamined += winner.walk.keys;
  }
  if (!winner.done) winner.stream.return?.(undefined);
  let ordered = sort && !winner.sortedByPlan ? yield* sortWork(winner.matches, sort, collation) : winner.matches;
  if (
    sort &&
    winner.sortedByPlan &&
    winner.plan.kind === "index" &&
    winner.matches.some((d) => sortsUnlikeIndex(d, sort))
  ) {
    // An index keys a document or an array by its extended JSON, which is not MongoDB's order of
    // them, and cuts long values: once the walk meets one, every match is read and sorted here instead.
    const all = runner(winner.plan, false);
    while (!all.done) {
      step(all, query);
      if (due(all.ticks)) yield;
    }
    if (spec.stats) {
      spec.stats.docsExamined += all.works;
      if (spec.stats.keysExamined !== undefined) spec.stats.keysExamined += all.walk.keys;
    }
    ordered = yield* sortWork(all.matches, sort, collation);
    return limit > 0 ? ordered.slice(skip, skip + limit) : ordered.slice(skip);
  }
  // The matches the walk passed over unread are not in `ordered`: only the rest of the skip is.
  const rest = skip - winner.walk.skipped;
  return limit > 0 ? ordered.slice(rest, rest + limit) : ordered.slice(rest);
}

/**
 * Whether a document holds, as a key of the sort, a value whose index key is not in BSON order: a
 * document, an array or binary data (keyed by their text), a string the key cuts (it ties with
 * others sharing its first characters), a Decimal128 or a number past 2^53 (keyed by a double).
 */
function sortsUnlikeIndex(doc: Document, sort: Document): boolean {
  return Object.keys(sort).some((path) => {
    // A top-level field is read directly: this runs on every match of a page.
    const value = path.includes(".") || !Object.hasOwn(doc, path) ? undefined : doc[path];
    if (value !== undefined && !Array.isArray(value)) return keyedUnlikeValue(value);
    return valuesAtPath(doc, path).values.some(keyedUnlikeValue);
  });
}

function keyedUnlikeValue(v: unknown): boolean {
  // A date's key is its time and an ObjectId's its hex text: both exact, and most sort keys.
  if (v instanceof Date) return false;
  if (isPlainObject(v) || Array.isArray(v)) return true;
  const type = bsonType(v);
  if (type === "ObjectId") return false;
  if (type === "Binary" || type === "Decimal128") return true;
  if (typeof v === "string") return v.length >= MAX_STRING_KEY;
  if (type === "BSONSymbol") return String((v as { value: unknown }).value).length >= MAX_STRING_KEY;
  const { part, exact } = encodeValue(v);
  return !exact || (part[0] === Rank.Number && Math.abs(part[1] as number) >= 2 ** 53);
}

/**
 * A `$text` query: every document is scored by the collection's text index (see text.ts) and
 * checked against the rest of the filter; the score is kept for `{$meta: "textScore"}`.
 */
function* findText(
  store: Store,
  meta: CollectionMeta,
  text: { text: unknown; rest: Document },
  spec: FindSpec,
  options?: Partial<Options>,
): Work<Document[]> {
  if (meta.options.viewOn) throw new MongoCommandError("BadValue", "$text is not allowed on a view");
  const index = textIndexFor(meta.indexes, text.rest);
  const score = textMatcher(index, parseTextQuery(text.text));
  const query = compileFilter(text.rest, options);
  const matches: Document[] = [];
  let read = 0;
  for (const doc of store.scan(meta)) {
    if (due(++read)) yield;
    if (spec.stats) spec.stats.docsExamined += 1;
    const s = score(doc);
    if (s === undefined || !query.test(doc)) continue;
    textScores.set(doc, s);
    matches.push(doc);
  }
  const sort = spec.sort && Object.keys(spec.sort).length ? spec.sort : undefined;
  const ordered = sort ? yield* sortWork(matches, sort, optionsCollation(options)) : matches;
  const skip = spec.skip ?? 0;
  return spec.limit ? ordered.slice(skip, skip + spec.limit) : ordered.slice(skip);
}

/**
 * A hinted index without a sort gives the documents in its own order, as MongoDB's walk of that
 * index does: the index's key pattern is the order (the `_id` index and `$natural` keep theirs).
 */
function hintedOrder(meta: CollectionMeta, hint: unknown): Document | undefined {
  if (hint === undefined || hint === null) return undefined;
  const index = meta.indexes.find((i) =>
    typeof hint === "string" ? i.name === hint : JSON.stringify(i.key) === JSON.stringify(hint),
  );
  return index && index.name !== "_id_" ? index.key : undefined;
}

/** What the query executor keeps per open database: its plan cache and its counters. */
export interface Executor {
  plans: PlanCache;
  /** Documents read by every plan run, trials included (serverStatus `metrics.queryExecutor`). */
  scannedObjects: number;
}

const executors = new WeakMap<object, Executor>();

/** The executor of a store, shared by its views (a read's snapshot, a transaction's). */
export function executorOf(store: Store): Executor {
  let executor = executors.get(store.origin);
  if (!executor) executors.set(store.origin, (executor = { plans: new PlanCache(), scannedObjects: 0 }));
  return executor;
}

/**
 * How many documents match, after skip and limit, as a read that may pause (work.ts). When the
 * filter is exactly the bounds of an index (no condition left to check on documents), the index
 * entries are counted without reading a single document, as MongoDB's COUNT_SCAN does.
 */
export function* countWork(
  store: Store,
  meta: CollectionMeta | undefined,
  spec: FindSpec,
  options?: Partial<Options>,
): Work<number> {
  const filter = spec.filter ?? {};
  if (!meta) {
    compileFilter(filter, options);
    return 0;
  }
  const skip = spec.skip ?? 0;
  const limit = spec.limit ?? 0;
  const clamp = (n: number) => {
    const rest = Math.max(0, n - skip);
    return limit > 0 ? Math.min(limit, rest) : rest;
  };
  if (!meta.options.viewOn && spec.hint === undefined) {
    if (Object.keys(filter).length === 0) return clamp(store.count(meta));
    const plans = candidatePlans(filter, undefined, meta.indexes, undefined, optionsCollation(options)).filter(
      (p): p is IndexPlan => p.kind === "index",
    );
    const covered = plans.find((p) => p.covered);
    if (covered) {
      const distinct = covered.dedupe ? new Set<string>() : undefined;
      let n = 0;
      for (const { start, end } of covered.intervals) {
        if (!distinct) {
          n += store.countIndex(meta, covered.index.name, start, end, undefined);
          continue;
        }
        const before = distinct.size;
        yield* eachPlanId(store, meta, covered.index.name, start, end, (id) => distinct.add(id));
        n += distinct.size - before;
      }
      // An entry whose number key other numbers share is no proof: its document is read and
      // checked, as a skip reads it (README "Query planning"); the others count from their keys.
      const query = compileFilter(filter, options);
      const fields = topLevelFields(filter);
      const checked = new Set<string>();
      let read = 0;
      for (const { start, end } of covered.intervals) {
        for (const id of store.sharedNumberIds(meta, covered.index.name, start, end)) {
          const text = idText(id[0], id[1]);
          if (checked.has(text)) continue;
          checked.add(text);
          if (due(++read)) yield;
          const doc = store.getByIdPart(meta, id, fields);
          executorOf(store).scannedObjects += 1;
          if (doc && query.test(doc)) continue;
          if (!distinct) n -= 1;
          else if (distinct.delete(text)) n -= 1;
        }
      }
      return clamp(n);
    }
    const { fields, complete } = filterFields(filter);
    for (const a of complete ? plans : []) {
      for (const b of plans) {
        if (a === b || !fields.every((f) => a.exactFields.includes(f) || b.exactFields.includes(f))) continue;
        // Entries whose number keys do not vouch for their documents leave the answer to them.
        if (sharesNumberKeys(store, meta, a) || sharesNumberKeys(store, meta, b)) continue;
        return clamp(yield* intersectionSize(store, meta, a, b));
      }
    }
  }
  const counted = Object.assign({}, spec, { sort: undefined, fields: topLevelFields(filter) });
  return (yield* findWork(store, meta, counted, options)).length;
}

/** The top-level fields a filter and a sort read, or undefined when the filter may read any. */
function readFields(filter: Document, sort: Document | undefined): Set<string> | undefined {
  const fields = topLevelFields(filter);
  if (fields && sort) for (const path of Object.keys(sort)) fields.add(path.split(".")[0]);
  return fields;
}

/**
 * The top-level fields a filter reads, or undefined when it may read the whole document
 * (`$expr`, `$where`, `$jsonSchema`, `$text` and any other operator at its top).
 */
function topLevelFields(filter: Document): Set<string> | undefined {
  const fields = new Set<string>();
  const visit = (f: unknown): boolean => {
    if (!isPlainObject(f)) return false;
    for (const [key, value] of Object.entries(f as Document)) {
      if (key === "$and" || key === "$or" || key === "$nor") {
        if (!Array.isArray(value) || !value.every(visit)) return false;
      } else if (key === "$comment") continue;
      else if (key.startsWith("$")) return false;
      else fields.add(key.split(".")[0]);
    }
    return true;
  };
  return visit(filter) ? fields : undefined;
}

type IndexPlan = Extract<Plan, { kind: "index" }>;

/** Calls `visit` with the id (`rank:value`) of every entry of one index between two bounds, pausing as it goes. */
function* eachPlanId(
  store: Store,
  meta: CollectionMeta,
  indexName: string,
  start: Key,
  end: Key,
  visit: (id: string) => void,
): Work<void> {
  let read = 0;
  for (const k of store.indexKeys(meta, indexName, start, end)) {
    visit(idText(k[k.length - 2], k[k.length - 1]));
    if (due(++read)) yield;
  }
}

/** Whether a plan's bounds hold an entry whose number key does not vouch for its document. */
function sharesNumberKeys(store: Store, meta: CollectionMeta, plan: IndexPlan): boolean {
  for (const { start, end } of plan.intervals)
    for (const _ of store.sharedNumberIds(meta, plan.index.name, start, end)) return true;
  return false;
}

/** Calls `visit` with the id of every index entry the plan walks. */
function* forEachPlanId(store: Store, meta: CollectionMeta, plan: IndexPlan, visit: (id: string) => void): Work<void> {
  for (const { start, end } of plan.intervals) yield* eachPlanId(store, meta, plan.index.name, start, end, visit);
}

/**
 * How many documents two plans both find, from their index entries alone (MongoDB's index
 * intersection): the ids of the smaller walk are kept in a set, the larger walk is checked
 * against it.
 */
function* intersectionSize(store: Store, meta: CollectionMeta, a: IndexPlan, b: IndexPlan): Work<number> {
  const entries = (p: IndexPlan) =>
    p.intervals.reduce((n, { start, end }) => n + store.countIndex(meta, p.index.name, start, end, undefined), 0);
  const [small, large] = entries(a) <= entries(b) ? [a, b] : [b, a];
  const kept = new Set<string>();
  yield* forEachPlanId(store, meta, small, (id) => kept.add(id));
  // Each id leaves the set when first met, so entries repeated in the larger walk (an array
  // field holds several keys per document) are counted once.
  let n = 0;
  yield* forEachPlanId(store, meta, large, (id) => {
    if (kept.delete(id)) n += 1;
  });
  return n;
}

/** A view's documents are its pipeline run over its source, then filtered like any others. */
function* findInView(
  store: Store,
  view: CollectionMeta,
  query: Matcher,
  spec: FindSpec,
  options?: Partial<Options>,
): Work<Document[]> {
  const source = store.collection(view.db, String(view.options.viewOn));
  const base = yield* findWork(store, source, {}, options);
  const rows = (makeAggregator((view.options.pipeline as Document[]) ?? [], options).run(base) as Document[]).filter(
    (d) => query.test(d),
  );
  const ordered = spec.sort ? yield* sortWork(rows, spec.sort, optionsCollation(options)) : rows;
  const skip = spec.skip ?? 0;
  return spec.limit ? ordered.slice(skip, skip + spec.limit) : ordered.slice(skip);
}

export function projectDocuments(
  docs: Document[],
  projection: Document | undefined,
  filter: Document = {},
  options?: Partial<Options>,
): Document[] {
  if (!projection || Object.keys(projection).length === 0) return docs;
  const projected = projectFind(docs, projection, filter, options);
  if (projected) return projected;
  try {
    return makeQuery(filter, options).find(docs, projection).all() as Document[];
  } catch (err) {
    throw new MongoCommandError("BadValue", err instanceof Error ? err.message : String(err));
  }
}

export function explainPlan(plan: Plan): Document {
  if (plan.kind === "ids") return { stage: "IDHACK" };
  if (plan.kind === "scan") return { stage: "COLLSCAN", direction: plan.reverse ? "backward" : "forward" };
  return {
    stage: "IXSCAN",
    indexName: plan.index.name,
    keyPattern: plan.index.key,
    direction: plan.reverse ? "backward" : "forward",
    isMultiKey: Boolean(plan.index.multikeyFields?.length),
    multiKeyPaths: plan.index.multikeyFields ?? [],
  };
}
