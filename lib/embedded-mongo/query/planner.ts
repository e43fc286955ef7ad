/**
 * Chooses how to find the documents of a filter: by `_id`, by walking one index between bounds,
 * or by scanning the collection. Bounds are only ever a superset of the matches: the executor
 * checks every candidate against the full filter, so the planner may be conservative but never
 * too narrow. An index also serves a sort when, after its equality fields, its fields (plus the
 * `_id` that ends every entry) follow the sort in one direction.
 */
import type { Document } from "bson";
import { MongoCommandError } from "../errors";
import { extendedPattern, StoredRegExp } from "../storage/bson-values";
import type { IndexSpec } from "../storage/index-spec";
import {
  encodeValue,
  HIGH,
  isPlainObject,
  MAX_STRING_KEY,
  Rank,
  sharesNumberKey,
  type KeyPrimitive,
} from "../storage/keys";
import { isPlain, parseCollation, sameCollation, type Collation } from "./collation";

type Key = KeyPrimitive[];

/** One interval of index keys: `[start, end)` in key-part space, both non-existent keys. */
interface Interval {
  start: Key;
  end: Key;
}

export type Plan =
  | { kind: "ids"; ids: unknown[] }
  | {
      kind: "index";
      index: IndexSpec;
      intervals: Interval[];
      reverse: boolean;
      sorted: boolean;
      dedupe: boolean;
      /** The index entries between the bounds are exactly the matches (a count needs no document). */
      covered: boolean;
      /** The filter's fields whose conditions these bounds answer exactly. */
      exactFields: string[];
    }
  | { kind: "scan"; reverse: boolean; sorted: boolean };

interface Range {
  lo?: unknown;
  loInc: boolean;
  hi?: unknown;
  hiInc: boolean;
  rank?: number;
  /** Both ends come from one predicate (a regex prefix), so one array element meets both. */
  single?: boolean;
  /** A regex that is nothing but its literal prefix: the range is exactly its matches. */
  pure?: boolean;
}

interface FieldBounds {
  points?: unknown[];
  ranges?: Range[];
  /** The bounds say exactly what the condition matches: index keys alone can answer it. */
  exact?: boolean;
}

interface Analysis {
  bounds: Map<string, FieldBounds>;
  /** Every condition of the filter became exact bounds (nothing is left to check on documents). */
  complete: boolean;
}

const MAX_POINTS = 1000;

const MAX_CANDIDATES = 4;

/** The plan to run when only one is wanted (explain, or a filter with a single useful index). */
export function choosePlan(
  filter: Document,
  sort: Document | undefined,
  indexes: IndexSpec[],
  hint?: unknown,
  collation?: Collation,
): Plan {
  return candidatePlans(filter, sort, indexes, hint, collation)[0];
}

/**
 * The plans worth trying, best guess first. When several indexes could serve a query (one that
 * walks in sort order, another that is more selective), which is faster depends on the data, so
 * the executor races them for a few steps as MongoDB's multi-planner does.
 *
 * `cachedWinner` is asked only then, with no hint: the {@link planName} that won this query's shape
 * before (plan-cache.ts), if any. That index's plan is then the only one built, as MongoDB's
 * plan cache skips the enumeration of the others; building every candidate on every query took
 * 8% of the database's CPU under the users list (docs/benchmarks.md#where-the-time-goes).
 */
export function candidatePlans(
  filter: Document,
  sort: Document | undefined,
  indexes: IndexSpec[],
  hint?: unknown,
  collation?: Collation,
  cachedWinner?: () => string | undefined,
): Plan[] {
  const analysis = analyse(filter);
  const bounds = analysis.bounds;
  const sortEntries = Object.entries(sort ?? {});
  // `$natural` is the order documents are stored in (insertion order in a capped collection).
  const natural =
    isPlainObject(hint) && Object.keys(hint).length === 1 && "$natural" in hint ? Number(hint.$natural) : undefined;
  if (natural !== undefined || (sortEntries.length === 1 && sortEntries[0][0] === "$natural")) {
    const direction = natural ?? Number(sortEntries[0][1]);
    const sortDirection =
      sortEntries.length === 1 && sortEntries[0][0] === "$natural" ? Number(sortEntries[0][1]) : undefined;
    return [
      {
        kind: "scan",
        reverse: (sortDirection ?? direction) < 0,
        sorted: sortEntries.length === 0 || sortDirection !== undefined,
      },
    ];
  }

  const idBounds = bounds.get("_id");
  const collatedPoint = (p: unknown) =>
    collation !== undefined && (typeof p === "string" || bsonTypeOf(p) === "BSONSymbol");
  if (
    hint === undefined &&
    idBounds?.points &&
    !idBounds.points.some((p) => p instanceof RegExp || isPlainObject(p) || Array.isArray(p) || collatedPoint(p))
  ) {
    return [{ kind: "ids", ids: idBounds.points }];
  }

  // The `_id_` index has no entries of its own: the documents are stored in `_id` order.
  // An index serves a query of its own collation only, as MongoDB's planner decides (the `_id_`
  // index has entries of its own only under a collation); a hidden index serves none.
  const collationOf = (i: IndexSpec) => (i.collation ? parseCollation(i.collation) : undefined);
  let candidates = indexes.filter(
    (i) =>
      (i.name !== "_id_" || i.collation) &&
      !i.hidden &&
      sameCollation(collationOf(i), collation) &&
      !i.sparse &&
      !i.partialFilterExpression &&
      (isAscDescOnly(i) || isHashed(i)),
  );
  if (hint !== undefined) {
    // A hidden index cannot be hinted either: MongoDB answers as if it did not exist.
    const hinted = indexes
      .filter((i) => !i.hidden)
      .find((i) => (typeof hint === "string" ? i.name === hint : sameKey(i.key, hint as Document)));
    if (!hinted) {
      throw new MongoCommandError(
        "BadValue",
        "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index",
      );
    }
    // An index of another collation cannot bound strings: the collection is read instead.
    if (!sameCollation(collationOf(hinted), collation))
      return [{ kind: "scan", reverse: false, sorted: sortEntries.length === 0 }];
    if (hinted.name !== "_id_" || hinted.collation)
      return [evaluate(hinted, collatedAnalysis(hinted, analysis, collation), sortEntries).plan];
    candidates = [];
  }

  if (cachedWinner && candidates.length > 1) {
    const name = cachedWinner();
    const index = name === undefined ? undefined : candidates.find((i) => indexPlanName(i) === name);
    const cached = index && evaluate(index, collatedAnalysis(index, analysis, collation), sortEntries);
    if (cached && cached.score > 0) return [cached.plan];
  }

  // Of plans that walk alike (the same fields bounded, in the same order), one races: the rest
  // would read the very documents, and would keep a plan of another walk out of the race.
  const walks = new Set<string>();
  const useful = candidates
    .map((index) => evaluate(index, collatedAnalysis(index, analysis, collation), sortEntries))
    .filter((e) => e.score > 0)
    .sort((a, b) => b.score - a.score)
    .filter((e) => !walks.has(e.walk) && walks.add(e.walk))
    .slice(0, MAX_CANDIDATES)
    .map((e) => e.plan);
  if (useful.length) return useful;

  const idSort = sortEntries.length === 1 && sortEntries[0][0] === "_id" && !collation;
  return [
    { kind: "scan", reverse: idSort && Number(sortEntries[0][1]) < 0, sorted: sortEntries.length === 0 || idSort },
  ];
}

/** Names a plan among the candidates of one shape: the index it walks, or how it reads. */
export function planName(plan: Plan): string {
  return plan.kind === "index" ? indexPlanName(plan.index) : plan.kind;
}

const indexPlanName = (index: IndexSpec) => `index:${index.name}`;

/** A hashed index answers equalities only: its entries are in no useful order for ranges or sorts. */
function isHashed(index: IndexSpec): boolean {
  return (
    Object.values(index.key).every((d) => d === 1 || d === -1 || d === "hashed") &&
    Object.values(index.key).includes("hashed")
  );
}

function isAscDescOnly(index: IndexSpec): boolean {
  return Object.values(index.key).every((d) => d === 1 || d === -1);
}

function sameKey(a: Document, b: Document): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function evaluate(
  index: IndexSpec,
  analysis: Analysis,
  sortEntries: Array<[string, unknown]>,
): { plan: Plan; score: number; walk: string } {
  const { bounds } = analysis;
  const fields = Object.keys(index.key);
  const multikey = new Set(index.multikeyFields ?? []);
  let prefixes: Key[] = [[]];
  let eqFields = 0;
  let singlePoint = true;
  let rangeIntervals: Interval[] | undefined;

  for (const field of fields) {
    const b = bounds.get(field);
    if (b?.points && !b.points.some((p) => Array.isArray(p) || p instanceof RegExp)) {
      if (prefixes.length * b.points.length > MAX_POINTS) break;
      const next: Key[] = [];
      for (const prefix of prefixes) for (const p of b.points) next.push([...prefix, ...encodeValue(p).part]);
      prefixes = next;
      if (b.points.length !== 1) singlePoint = false;
      eqFields += 1;
      continue;
    }
    const ranges = b?.ranges ?? (b?.points ? regexPointsAsRanges(b.points) : undefined);
    if (ranges && index.key[field] !== "hashed") rangeIntervals = rangeToIntervals(ranges, multikey.has(field));
    break;
  }

  const intervals: Interval[] = [];
  for (const prefix of prefixes) {
    if (rangeIntervals)
      for (const r of rangeIntervals) intervals.push({ start: [...prefix, ...r.start], end: [...prefix, ...r.end] });
    else intervals.push({ start: prefix, end: [...prefix, HIGH] });
  }
  intervals.sort((a, b) => compareKeys(a.start, b.start));

  // An array field fixed to one value by equality yields one entry per document under that
  // value; anywhere else it may yield several, which the walk must skip.
  const fixed = singlePoint ? fields.slice(0, eqFields) : [];
  const dedupe = intervals.length > 1 || [...multikey].some((f) => !fixed.includes(f));
  const consumed = fields.slice(0, eqFields + (rangeIntervals ? 1 : 0));
  const rangeField = rangeIntervals ? fields[eqFields] : undefined;
  const twoSidedOnArray = (f: string) =>
    f === rangeField &&
    multikey.has(f) &&
    Boolean(bounds.get(f)!.ranges?.some((r) => !r.single && r.lo !== undefined && r.hi !== undefined));
  const exactFields = consumed.filter((f) => bounds.get(f)?.exact === true && !twoSidedOnArray(f));
  const covered = analysis.complete && [...bounds.keys()].every((f) => exactFields.includes(f));
  const sortDirection =
    isHashed(index) && sortEntries.length
      ? 0
      : sortServed(index, fields, eqFields, singlePoint, intervals.length > 1, multikey, bounds, sortEntries);
  const sorted = sortDirection !== 0;
  const servesSort = sorted && sortEntries.length > 0;
  const score =
    eqFields * 10 +
    (rangeIntervals ? 5 : 0) +
    (servesSort ? 100 : 0) +
    (index.unique && eqFields === fields.length ? 50 : 0) -
    fields.length * 0.01;
  const useful = eqFields > 0 || rangeIntervals !== undefined || servesSort;
  return {
    plan: { kind: "index", index, intervals, reverse: sortDirection < 0, sorted, dedupe, covered, exactFields },
    score: useful ? score : 0,
    // What the walk reads and in which order; fields of the index past the bounded ones change neither.
    walk: JSON.stringify([consumed, sortDirection, covered, exactFields, intervals.length]),
  };
}

/** +1 / -1 when walking the index forward / backward yields the sort order, 0 when it cannot. */
function sortServed(
  index: IndexSpec,
  fields: string[],
  eqFields: number,
  singlePoint: boolean,
  splitIntervals: boolean,
  multikey: Set<string>,
  bounds: Map<string, FieldBounds>,
  sortEntries: Array<[string, unknown]>,
): number {
  if (sortEntries.length === 0) return 1;
  // Buckets do not follow the collator's order.
  if (index.collation) return 0;
  if (!singlePoint || splitIntervals) return 0;
  // Sort keys fixed by equality are constant and do not affect order, except on an array field:
  // MongoDB sorts an array by its smallest (descending: largest) element, whichever element the
  // filter matched, so `{a: 0}` still leaves `[-1, 0]` before `0`.
  const fixedByEquality = (f: string) =>
    bounds.get(f)?.points?.length === 1 && fields.indexOf(f) !== -1 && fields.indexOf(f) < eqFields && !multikey.has(f);
  const wanted = sortEntries.filter(([f]) => !fixedByEquality(f));
  const walk = [...fields.slice(eqFields), "_id"];
  if (wanted.length === 0) return 1;
  if (wanted.length > walk.length) return 0;
  let direction = 0;
  for (let i = 0; i < wanted.length; i++) {
    const [field, dir] = wanted[i];
    // An array field orders a document by each of its elements: not a sort order.
    if (walk[i] !== field || multikey.has(field)) return 0;
    // Entries are stored ascending whatever the declared direction.
    const d = Number(dir) < 0 ? -1 : 1;
    if (direction === 0) direction = d;
    else if (direction !== d) return 0;
  }
  return direction;
}

function regexPointsAsRanges(points: unknown[]): FieldBounds["ranges"] | undefined {
  const ranges: Range[] = [];
  for (const p of points) {
    if (p instanceof RegExp) {
      const r = regexRange(p);
      if (!r) return undefined;
      ranges.push(r, regexPoint(p));
    } else if (!Array.isArray(p)) {
      ranges.push({ lo: p, loInc: true, hi: p, hiInc: true });
    } else return undefined;
  }
  return ranges;
}

function rangeToIntervals(ranges: Range[], multikey: boolean): Interval[] {
  return ranges.map((r) => {
    // With an array field, one element may satisfy the lower bound and another the upper one:
    // only one side of the range can bound the walk.
    const lo = r.lo;
    const hi = multikey && !r.single && lo !== undefined ? undefined : r.hi;
    const rank = r.rank ?? encodeValue(lo ?? hi).part[0];
    const start: Key = lo === undefined ? [rank - 0.1] : startKey(lo, r.loInc);
    const end: Key = hi === undefined ? [rank + 0.1] : endKey(hi, r.hiInc);
    return { start, end };
  });
}

function startKey(value: unknown, inclusive: boolean): Key {
  const { part, exact } = encodeValue(value);
  return inclusive || !exact || sharesNumberKey(value) ? part : [...part, HIGH];
}

function endKey(value: unknown, inclusive: boolean): Key {
  const { part, exact } = encodeValue(value);
  return inclusive || !exact || sharesNumberKey(value) ? [...part, HIGH] : part;
}

/**
 * The stored regular expression equal to a pattern, which it matches too (as MongoDB's bounds of a
 * regex hold the regex itself beside the strings' range).
 */
const regexPoint = (re: RegExp): Range => ({ lo: re, loInc: true, hi: re, hiInc: true, single: true });

/**
 * Whether only a regex of exactly this pattern has its index key: the key of one without options
 * `s`, `x`, `u`, `l` is JavaScript's source, which escapes `/` and line breaks.
 */
const ownKey = (re: RegExp) => !/[/\n\r\u2028\u2029]/.test(re instanceof StoredRegExp ? re.pattern : re.source);

/** The string range an anchored, case-sensitive regex can match, or undefined when unbounded. */
function regexRange(re: RegExp): Range | undefined {
  if (re.flags.includes("i") || re.flags.includes("m") || !re.source.startsWith("^")) return undefined;
  let prefix = "";
  let pure = true;
  const src = re.source;
  for (let i = 1; i < src.length; i++) {
    const ch = src[i];
    if (ch === "\\") {
      const next = src[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) {
        pure = false;
        break;
      }
      prefix += next;
      i += 1;
      continue;
    }
    if (".*+?()[]{}|$^".includes(ch)) {
      pure = false;
      if ("*?{".includes(ch) && prefix.length) prefix = prefix.slice(0, -1);
      break;
    }
    prefix += ch;
  }
  if (!prefix) return { loInc: true, hiInc: false, rank: Rank.String, single: true, pure };
  // Keys are cut at MAX_STRING_KEY characters: past it, the range holds strings the prefix does not start.
  if (prefix.length >= MAX_STRING_KEY) pure = false;
  const last = prefix.charCodeAt(prefix.length - 1);
  const upper = prefix.slice(0, -1) + String.fromCharCode(last + 1);
  return { lo: prefix, loInc: true, hi: upper, hiInc: false, single: true, pure };
}

function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === typeof y) return (x as never) < (y as never) ? -1 : 1;
    return typeof x === "number" ? -1 : 1;
  }
  return a.length - b.length;
}

/** The fields a filter constrains, and whether index bounds can state all of its conditions. */
export function filterFields(filter: Document): { fields: string[]; complete: boolean } {
  const { bounds, complete } = analyse(filter);
  return { fields: [...bounds.keys()], complete };
}

/** Bounds per field of the parts of a filter that an index can use (top level and `$and`). */
function analyse(filter: Document): Analysis {
  const bounds = new Map<string, FieldBounds>();
  let complete = true;
  const visit = (f: Document) => {
    for (const [field, cond] of Object.entries(f)) {
      if (field === "$and" && Array.isArray(cond)) {
        for (const sub of cond) {
          if (isPlainObject(sub)) visit(sub);
          else complete = false;
        }
        continue;
      }
      if (field.startsWith("$") || bounds.has(field)) {
        complete = false;
        continue;
      }
      const b = fieldBounds(cond);
      if (b) bounds.set(field, b);
      if (!b?.exact) complete = false;
    }
  };
  visit(filter);
  return { bounds, complete };
}

/** A value whose index key compares exactly as MongoDB compares the value itself. */
function exactPoint(value: unknown): boolean {
  if (value === null || value === undefined || Array.isArray(value) || isPlainObject(value)) return false;
  if (value instanceof RegExp) return Boolean(regexRange(value)?.pure) && ownKey(value);
  // A stored string longer than its key shares the key of every string with the same start.
  if (typeof value === "string" && value.length >= MAX_STRING_KEY) return false;
  if (bsonTypeOf(value) === "BSONSymbol" && String((value as { value: unknown }).value).length >= MAX_STRING_KEY)
    return false;
  // A Decimal128 or an int64 past 2^53 shares its key with other numbers (keys.ts sharesNumberKey).
  if (sharesNumberKey(value)) return false;
  return (
    encodeValue(value).exact &&
    !["Decimal128", "MinKey", "MaxKey", "BSONRegExp"].includes(String((value as { _bsontype?: string })._bsontype))
  );
}

const RANGE_OPERATORS = new Set(["$gt", "$gte", "$lt", "$lte"]);

function fieldBounds(cond: unknown): FieldBounds | undefined {
  if (cond instanceof RegExp) return regexRange(cond) ? { points: [cond], exact: exactPoint(cond) } : undefined;
  if (isBsonRegex(cond)) {
    const re = toRegExp(cond);
    return re ? fieldBounds(re) : undefined;
  }
  if (!isPlainObject(cond)) return Array.isArray(cond) ? undefined : { points: [cond], exact: exactPoint(cond) };
  const keys = Object.keys(cond);
  if (keys.length === 0 || !keys.every((k) => k.startsWith("$")))
    return isPlainObject(cond) && keys.every((k) => !k.startsWith("$")) ? { points: [cond] } : undefined;
  const only = (...allowed: string[]) => keys.every((k) => allowed.includes(k));
  if ("$eq" in cond && !Array.isArray(cond.$eq) && !(cond.$eq instanceof RegExp))
    return { points: [cond.$eq], exact: only("$eq") && exactPoint(cond.$eq) };
  if (Array.isArray(cond.$in) && cond.$in.length > 0 && cond.$in.every((v) => !Array.isArray(v) && !isPlainObject(v))) {
    const values = cond.$in.map((v) => (isBsonRegex(v) ? toRegExp(v) : v));
    if (values.some((v) => v === undefined || (v instanceof RegExp && !regexRange(v)))) return undefined;
    return { points: values, exact: only("$in") && values.every(exactPoint) };
  }
  if ("$regex" in cond) {
    const re =
      cond.$regex instanceof RegExp
        ? cond.$regex
        : typeof cond.$regex === "string"
          ? safeRegExp(cond.$regex, typeof cond.$options === "string" ? cond.$options : "")
          : undefined;
    const r = re && regexRange(re);
    const point = re && storedForm(cond.$regex, cond.$options);
    if (!r || !point) return undefined;
    const exact =
      only("$regex", "$options") &&
      Boolean(r.pure) &&
      ownKey(point) &&
      point.options === (cond.$options ?? point.options);
    return { ranges: [r, regexPoint(point)], exact };
  }
  const lo = "$gte" in cond ? cond.$gte : cond.$gt;
  const hi = "$lte" in cond ? cond.$lte : cond.$lt;
  if (lo === undefined && hi === undefined) return undefined;
  if ([lo, hi].some((v) => v !== undefined && (Array.isArray(v) || isPlainObject(v) || v === null))) return undefined;
  if (lo !== undefined && hi !== undefined && encodeValue(lo).part[0] !== encodeValue(hi).part[0]) return undefined;
  // Binary keys are stored as base64 text, not in MongoDB's order (length, subtype, bytes): a
  // range over binary data reads every binary key and the filter decides.
  if (bsonTypeOf(lo) === "Binary" || bsonTypeOf(hi) === "Binary")
    return { ranges: [{ loInc: true, hiInc: false, rank: Rank.Binary, single: true }], exact: false };
  const exact =
    keys.every((k) => RANGE_OPERATORS.has(k)) &&
    !("$gt" in cond && "$gte" in cond) &&
    !("$lt" in cond && "$lte" in cond) &&
    [lo, hi].every((v) => v === undefined || exactPoint(v));
  return { ranges: [{ lo, loInc: "$gte" in cond, hi, hiInc: "$lte" in cond }], exact };
}

/** A `$regex` (and `$options`) as the stored regular expression equal to it, or undefined. */
function storedForm(regex: unknown, options: unknown): StoredRegExp | undefined {
  if (regex instanceof StoredRegExp && options === undefined) return regex;
  const pattern = regex instanceof StoredRegExp ? regex.pattern : typeof regex === "string" ? regex : undefined;
  if (pattern === undefined || (options !== undefined && typeof options !== "string")) return undefined;
  try {
    return new StoredRegExp(pattern, options ?? "");
  } catch {
    return undefined;
  }
}

function isBsonRegex(v: unknown): v is { pattern: string; options: string } {
  return v !== null && typeof v === "object" && (v as { _bsontype?: string })._bsontype === "BSONRegExp";
}

function toRegExp(v: { pattern: string; options: string }): RegExp | undefined {
  return safeRegExp(v.pattern, v.options);
}

function safeRegExp(pattern: string, options: string): RegExp | undefined {
  try {
    // Under `x` the pattern's whitespace and comments are no part of what it matches.
    return new RegExp(options.includes("x") ? extendedPattern(pattern) : pattern, options.replace(/[^imsu]/g, ""));
  } catch {
    return undefined;
  }
}

function bsonTypeOf(v: unknown): string | undefined {
  return v !== null && typeof v === "object" ? (v as { _bsontype?: string })._bsontype : undefined;
}

/** Matches every string: under a collation a string bound can only be its bucket or the whole type. */
const ANY_STRING = /^/;

/**
 * The bounds of a filter on an index with a collation (the query's own): a plain string reads its
 * bucket and the shared one; any other string, regex or string range reads every string.
 */
function collatedAnalysis(index: IndexSpec, analysis: Analysis, collation: Collation | undefined): Analysis {
  if (!index.collation || !collation) return analysis;
  const bounds = new Map<string, FieldBounds>();
  const stringy = (v: unknown) =>
    typeof v === "string" || v instanceof RegExp || bsonTypeOf(v) === "BSONSymbol" || bsonTypeOf(v) === "BSONRegExp";
  for (const [field, b] of analysis.bounds) {
    if (b.points) {
      if (!b.points.some(stringy)) {
        bounds.set(field, b);
        continue;
      }
      const points: unknown[] = [];
      let whole = false;
      for (const p of b.points) {
        if (!stringy(p)) points.push(p);
        else if (typeof p === "string" && isPlain(p)) points.push(collation.bucket(p), "");
        else whole = true;
      }
      if (whole) points.push(ANY_STRING);
      bounds.set(field, { points: [...new Set(points)], exact: false });
    } else if (b.ranges) {
      const ranges = b.ranges.map((r) =>
        [r.lo, r.hi].some(stringy) || r.rank === Rank.String
          ? { loInc: true, hiInc: false, rank: Rank.String, single: true }
          : r,
      );
      bounds.set(field, { ranges, exact: false });
    }
  }
  return { bounds, complete: false };
}
