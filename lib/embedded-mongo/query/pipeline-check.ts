/**
 * MongoDB's checks of an aggregation pipeline's shape, made before any document is read, so a
 * malformed or unknown stage is refused with MongoDB's code even on an empty or missing
 * collection (mingo would only notice it while running, in its own words).
 */
import type { Document } from "bson";
import { Aggregator } from "mingo/aggregator";
import { Lazy } from "mingo/lazy";
import * as mingoStages from "mingo/operators/pipeline";
import type { Options } from "mingo/types";
import { MongoCommandError } from "../errors";
import { copyDocument, numberTypeAt, setField, setNumberType } from "../storage/bson-values";
import { bsonType, compareValues, encodeValue, isPlainObject, Rank, type StringOrder } from "../storage/keys";
import { checkFieldPath } from "./field-path";
import { checkRegexExpressions } from "./regex-expressions";
import { withPatterns } from "./regex-options";
import { rewriteTypeOperators, typeName } from "./type-operators";

/**
 * MongoDB's other stage names: they are not "unrecognized"; whatever the server does not offer
 * of them is refused where it is handled, with its own message.
 */
const MONGODB_STAGES = new Set([
  "$changeStream",
  "$changeStreamSplitLargeEvent",
  "$collStats",
  "$currentOp",
  "$geoNear",
  "$indexStats",
  "$listLocalSessions",
  "$listSampledQueries",
  "$listSearchIndexes",
  "$listSessions",
  "$planCacheStats",
  "$querySettings",
  "$queryStats",
  "$search",
  "$searchMeta",
  "$shardedDataDistribution",
  "$vectorSearch",
  "$listClusterCatalog",
  "$rankFusion",
  "$scoreFusion",
]);

export function checkPipeline(pipeline: unknown[]): void {
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new MongoCommandError(
        "Location40323",
        "A pipeline stage specification object must contain exactly one field.",
      );
    }
    const name = Object.keys(stage)[0];
    if (!Object.hasOwn(mingoStages, name) && !MONGODB_STAGES.has(name)) {
      throw new MongoCommandError("Location40324", `Unrecognized pipeline stage name: '${name}'`);
    }
    checkStage(name, stage[name]);
    checkRegexExpressions(stage[name]);
  }
}

/** A refusal with one of MongoDB's numbered codes that carry no name. */
export class LocationError extends MongoCommandError {
  constructor(code: number, message: string) {
    super("BadValue", message);
    (this as { code: number }).code = code;
    (this as { codeName: string }).codeName = "";
  }
}

const locationError = (code: number, message: string) => new LocationError(code, message);

const typeOf = (v: unknown) =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v;

/**
 * The shape of a stage's argument, refused with MongoDB's code and message before mingo reads
 * it (mingo would trip over a wrong shape, or allocate without bound for a huge `$sample`).
 */
function checkStage(name: string, arg: unknown): void {
  const object = isPlainObject(arg);
  switch (name) {
    case "$match":
      if (!object) throw new LocationError(15959, "the match filter must be an expression in an object");
      return;
    case "$project":
      if (!object) throw new LocationError(15969, "$project specification must be an object");
      return;
    case "$addFields":
    case "$set":
      if (!object) throw new LocationError(40272, `${name} specification stage must be an object, got ${typeOf(arg)}`);
      return;
    case "$unset":
      if (
        typeof arg !== "string" &&
        !(Array.isArray(arg) && arg.length > 0 && arg.every((v) => typeof v === "string"))
      ) {
        throw new LocationError(
          31002,
          "$unset specification must be a string or an array containing at least one field",
        );
      }
      return;
    case "$limit":
      if (typeof arg !== "number" || !Number.isFinite(arg))
        throw new LocationError(15957, "the limit must be specified as a number");
      if (arg <= 0) throw new LocationError(15958, "the limit must be positive");
      return;
    case "$skip":
      if (typeof arg !== "number" || !Number.isFinite(arg))
        throw new LocationError(15972, "Argument to $skip must be a number");
      if (arg < 0) throw new LocationError(15956, "Argument to $skip cannot be negative");
      return;
    case "$sample": {
      if (!object) throw new LocationError(28745, "the $sample stage specification must be an object");
      for (const key of Object.keys(arg))
        if (key !== "size") throw new LocationError(28748, `unrecognized option to $sample: ${key}`);
      if (!("size" in arg)) throw new LocationError(28749, "$sample stage must specify a size");
      if (typeof arg.size !== "number" || !Number.isFinite(arg.size))
        throw new LocationError(28746, "size argument to $sample must be a number");
      if (arg.size < 0) throw new LocationError(28747, "size argument to $sample must not be negative");
      return;
    }
    case "$group":
      if (!object) throw new LocationError(15947, "a group's fields must be specified in an object");
      if (!Object.hasOwn(arg, "_id")) throw new LocationError(15955, "a group specification must include an _id");
      return;
    case "$sort":
      if (!object) throw new LocationError(15973, "the $sort key specification must be an object");
      if (Object.keys(arg).length === 0) throw new LocationError(15976, "$sort stage must have at least one sort key");
      for (const v of Object.values(arg)) {
        if (v !== 1 && v !== -1 && !(isPlainObject(v) && Object.keys(v)[0] === "$meta"))
          throw new LocationError(15975, "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
      }
      return;
    case "$unwind": {
      const path = object ? arg.path : arg;
      if (!object && typeof arg !== "string")
        throw new LocationError(
          15981,
          `expected either a string or an object as specification for $unwind stage, got ${typeOf(arg)}`,
        );
      if (typeof path !== "string") throw new LocationError(28812, "no path specified to $unwind stage");
      if (!path.startsWith("$") || path.length < 2)
        throw new LocationError(28818, `path option to $unwind stage should be prefixed with a '$': ${path}`);
      return;
    }
    case "$count":
      if (typeof arg !== "string") throw new LocationError(40156, "the count field must be a non-empty string");
      if (arg.length === 0) throw new LocationError(40157, "the count field must be a non-empty string");
      if (arg.startsWith("$")) throw new LocationError(40158, "the count field cannot be a $-prefixed path");
      if (arg.includes(".")) throw new LocationError(40160, "the count field cannot contain '.'");
      return;
    case "$replaceRoot":
      if (!object)
        throw new LocationError(
          40228,
          `expected an object as specification for $replaceRoot stage, got ${typeOf(arg)}`,
        );
      if (!("newRoot" in arg)) throw new LocationError(40231, "no newRoot specified for the $replaceRoot stage");
      return;
    case "$facet":
      if (!object || Object.keys(arg).length === 0)
        throw new LocationError(40169, "the $facet specification must be a non-empty object");
      for (const [key, sub] of Object.entries(arg)) {
        if (!Array.isArray(sub))
          throw new LocationError(40170, `arguments to $facet must be arrays, ${key} is type ${typeOf(sub)}`);
        checkPipeline(sub);
      }
      return;
    case "$bucket":
      parseBucket(arg);
      return;
    case "$lookup":
      if (!object) throw new LocationError(15990, "the $lookup specification must be an Object");
      if (arg.pipeline !== undefined) {
        if (!Array.isArray(arg.pipeline)) throw new LocationError(9, "'pipeline' option must be specified as an array");
        checkPipeline(arg.pipeline);
      }
      return;
    case "$unionWith":
      if (typeof arg !== "string" && !object)
        throw new LocationError(
          40365,
          `the $unionWith stage specification must be an object or string, but found ${typeOf(arg)}`,
        );
      if (object && arg.pipeline !== undefined) {
        if (!Array.isArray(arg.pipeline)) throw new LocationError(9, "'pipeline' option must be specified as an array");
        checkPipeline(arg.pipeline);
      }
      return;
    case "$sortByCount":
      if (!(typeof arg === "string" && arg.startsWith("$")) && !object)
        throw new LocationError(40149, "the sortKey specification for $sortByCount must be an expression");
      return;
    case "$graphLookup":
      parseGraphLookup(arg);
      return;
  }
}

/** A `$graphLookup` as its checks leave it: `from`, `as` and the paths strings, `maxDepth` a whole number. */
export interface GraphLookupSpec {
  from: string;
  startWith: unknown;
  connectFromField: string;
  connectToField: string;
  as: string;
  depthField?: string;
  maxDepth?: number;
  restrictSearchWithMatch?: Document;
}

/** The string fields of a `$graphLookup`, each a field path but `from`. */
const GRAPH_STRINGS = new Set(["from", "as", "connectFromField", "connectToField", "depthField"]);

/**
 * MongoDB's checks of a `$graphLookup` (document_source_graph_lookup.cpp), in its order: the
 * stage's shape and `from` first (its lite parse), then each field as it comes, then the
 * required ones, then the paths.
 */
export function parseGraphLookup(arg: unknown): GraphLookupSpec {
  if (!isPlainObject(arg))
    throw new MongoCommandError(
      "FailedToParse",
      `the $graphLookup stage specification must be an object, but found ${typeName({ arg }, "arg")}`,
    );
  if (!Object.hasOwn(arg, "from"))
    throw new MongoCommandError(
      "FailedToParse",
      `missing 'from' option to $graphLookup stage specification: ${shown(arg)}`,
    );
  if (typeof arg.from !== "string")
    throw new MongoCommandError(
      "FailedToParse",
      `$graphLookup 'from' field must be a string, but found ${typeName(arg, "from")}`,
    );
  if (arg.from === "") throw new MongoCommandError("InvalidNamespace", "invalid $graphLookup namespace: ''");
  let maxDepth: number | undefined;
  for (const name of Object.keys(arg)) {
    if (name === "startWith") continue;
    if (name === "maxDepth") maxDepth = maxDepthOf(arg);
    else if (name === "restrictSearchWithMatch") {
      if (!isPlainObject(arg[name]))
        throw new LocationError(40185, `restrictSearchWithMatch must be an object, found ${typeName(arg, name)}`);
    } else if (!GRAPH_STRINGS.has(name)) throw new LocationError(40104, `Unknown argument to $graphLookup: ${name}`);
    else if (typeof arg[name] !== "string")
      throw new LocationError(40103, `expected string as argument for ${name}, found: ${typeName(arg, name)}`);
    else if (name === "depthField") checkFieldPath(arg[name], locationError);
  }
  const named = (name: string) => typeof arg[name] === "string" && arg[name] !== "";
  if (!named("as") || !Object.hasOwn(arg, "startWith") || !named("connectFromField") || !named("connectToField"))
    throw new LocationError(
      40105,
      "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.",
    );
  for (const name of ["as", "connectFromField", "connectToField"]) checkFieldPath(arg[name] as string, locationError);
  return { ...(arg as unknown as GraphLookupSpec), maxDepth };
}

/**
 * `maxDepth` as MongoDB reads it: any number, taken as a long (a double truncated, NaN as 0,
 * beyond the range as its end; a decimal rounded half to even), then refused when negative or
 * when that long is not the number given.
 */
function maxDepthOf(spec: Document): number {
  const value = spec.maxDepth as unknown;
  const type = (value as { _bsontype?: string } | null)?._bsontype;
  let given: number;
  let long: bigint;
  if (type === "Long") {
    long = BigInt(String(value));
    given = Number(long);
  } else if (typeof value === "number" || type === "Double" || type === "Int32" || type === "Decimal128") {
    given = typeof value === "number" ? value : Number(String(value));
    const whole = type === "Decimal128" ? roundHalfEven(given) : Math.trunc(given);
    if (Number.isNaN(given)) long = 0n;
    else if (whole >= 2 ** 63) long = 2n ** 63n - 1n;
    else if (whole < -(2 ** 63)) long = -(2n ** 63n);
    else long = BigInt(whole);
  } else throw new LocationError(40100, `maxDepth must be numeric, found type: ${typeName(spec, "maxDepth")}`);
  if (long < 0n) throw new LocationError(40101, `maxDepth requires a nonnegative argument, found: ${long}`);
  if (Number(long) !== given)
    throw new LocationError(40102, `maxDepth could not be represented as a long long: ${long}`);
  return Number(long);
}

function roundHalfEven(n: number): number {
  const floor = Math.floor(n);
  const rest = n - floor;
  if (rest !== 0.5) return Math.round(n);
  return floor % 2 === 0 ? floor : floor + 1;
}

/** A `$bucket` as its checks leave it: constant boundaries (their number types noted) and default. */
export interface BucketSpec {
  groupBy: unknown;
  boundaries: unknown[];
  /** The default, in a container noting its number type under `default`; absent without one. */
  fallback?: { default: unknown };
  output?: Document;
}

/** How a `$bucket` runs: the collation's order of strings, and its constant expressions evaluated. */
export interface BucketRun {
  strings?: StringOrder;
  evaluate: (expr: unknown) => unknown;
  /** Whether `$$name` holds one value for the whole command (a `let` variable). */
  constant: (name: string) => boolean;
}

/**
 * MongoDB's checks of a `$bucket` (document_source_bucket.cpp), in its order: each field as it
 * comes, then the required ones, then the default against the boundaries. Without `run` (before
 * the collation is known), the checks stop where they would compare strings or evaluate an
 * expression, and answer undefined; the stage checks again with its collation.
 */
export function parseBucket(arg: unknown, run?: BucketRun): BucketSpec | undefined {
  if (!isPlainObject(arg))
    throw new LocationError(
      40201,
      `Argument to $bucket stage must be an object, but found type: ${typeName({ arg }, "arg")}.`,
    );
  let groupBy: unknown;
  let boundaries: unknown[] | undefined;
  let fallback: { default: unknown } | undefined;
  let output: Document | undefined;
  const order = (a: unknown, b: unknown): number | undefined =>
    run ? compareValues(a, b, run.strings) : holdsString(a) || holdsString(b) ? undefined : compareValues(a, b);
  for (const name of Object.keys(arg)) {
    const value = arg[name];
    if (name === "groupBy") {
      const expression = isPlainObject(value) && (Object.keys(value)[0] ?? "").startsWith("$");
      if (!expression && !(typeof value === "string" && value.startsWith("$")))
        throw new LocationError(
          40202,
          `The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: ${shown(value)}.`,
        );
      groupBy = value;
    } else if (name === "boundaries") {
      if (!Array.isArray(value))
        throw new LocationError(
          40200,
          `The $bucket 'boundaries' field must be an array, but found type: ${typeName(arg, name)}.`,
        );
      const values: unknown[] = [];
      for (let i = 0; i < value.length; i++) {
        const constant = constancy(value[i], run?.constant);
        if (constant === false)
          throw new LocationError(
            40191,
            `The $bucket 'boundaries' field must be an array of constant values, but found value: ${shown(value[i])}.`,
          );
        if (constant === undefined || (!run && computed(value[i]))) return undefined;
        values.push(computed(value[i]) ? run!.evaluate(value[i]) : value[i]);
        if (!computed(value[i])) setNumberType(values, String(i), numberTypeAt(value, String(i)));
      }
      if (values.length < 2)
        throw new LocationError(
          40192,
          `The $bucket 'boundaries' field must have at least 2 values, but found ${values.length} value(s).`,
        );
      for (let i = 1; i < values.length; i++) {
        const [lower, upper] = [values[i - 1], values[i]];
        if (canonicalType(lower) !== canonicalType(upper))
          throw new LocationError(
            40193,
            "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting " +
              `types ${typeName(values, String(i - 1))} and ${typeName(values, String(i))}.`,
          );
        const c = order(lower, upper);
        if (c === undefined) return undefined;
        if (c >= 0)
          throw new LocationError(
            40194,
            `The 'boundaries' option to $bucket must be sorted, but elements ${i - 1} and ${i} are not in ascending ` +
              `order (${valueText(values, String(i - 1))} is not less than ${valueText(values, String(i))}).`,
          );
      }
      boundaries = values;
    } else if (name === "default") {
      const constant = constancy(value, run?.constant);
      if (constant === false)
        throw new LocationError(
          40195,
          `The $bucket 'default' field must be a constant expression, but found: ${shown(value)}.`,
        );
      if (constant === undefined || (!run && computed(value))) return undefined;
      fallback = { default: computed(value) ? run!.evaluate(value) : value };
      if (!computed(value)) setNumberType(fallback, "default", numberTypeAt(arg, name));
    } else if (name === "output") {
      if (!isPlainObject(value))
        throw new LocationError(
          40196,
          `The $bucket 'output' field must be an object, but found type: ${typeName(arg, name)}.`,
        );
      output = value;
    } else throw new LocationError(40197, `Unrecognized option to $bucket: ${name}.`);
  }
  if (groupBy === undefined || !boundaries)
    throw new LocationError(40198, "$bucket requires 'groupBy' and 'boundaries' to be specified.");
  // A default of the boundaries' type must lie outside them; of another type it always does.
  if (fallback && canonicalType(fallback.default) === canonicalType(boundaries[0])) {
    const below = order(fallback.default, boundaries[0]);
    const above = order(fallback.default, boundaries[boundaries.length - 1]);
    if (below === undefined || above === undefined) return undefined;
    if (!(below < 0 || above >= 0))
      throw new LocationError(
        40199,
        "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.",
      );
  }
  return { groupBy, boundaries, fallback, output };
}

/** MongoDB's canonical type of a value (all numbers one type, strings and symbols one). */
function canonicalType(value: unknown): number | string {
  if (Array.isArray(value)) return Rank.Array;
  if (isPlainObject(value)) return Rank.Object;
  if (value === undefined) return "undefined";
  const type = bsonType(value);
  if (type === "Code" || type === "DBRef") return type;
  const rank = encodeValue(value, 0).part[0];
  return rank === Rank.NaN ? Rank.Number : rank;
}

/** Whether a value holds a string (at any depth), which a collation may order. */
function holdsString(value: unknown): boolean {
  if (typeof value === "string" || bsonType(value) === "BSONSymbol") return true;
  if (Array.isArray(value)) return value.some(holdsString);
  return isPlainObject(value) && Object.values(value).some(holdsString);
}

/** Whether a value names a path, a variable or an operator, so it is computed rather than taken as it is. */
function computed(value: unknown): boolean {
  if (typeof value === "string") return value.startsWith("$");
  if (Array.isArray(value)) return value.some(computed);
  return isPlainObject(value) && Object.keys(value).some((k) => k.startsWith("$") || computed(value[k]));
}

/** Operators MongoDB never folds to a constant. */
const NOT_FOLDED = new Set(["$rand", "$function", "$accumulator", "$meta", "$sampleRate"]);

/**
 * Whether an expression is a constant as MongoDB's optimizer makes one (no field path, no
 * per-document variable, no random or scripted operator); undefined when it names a variable
 * whose constancy is not known here (`constant` absent).
 */
function constancy(value: unknown, constant?: (name: string) => boolean): boolean | undefined {
  if (typeof value === "string") {
    if (!value.startsWith("$")) return true;
    if (!value.startsWith("$$")) return false;
    const name = value.slice(2).split(".")[0];
    if (name === "NOW" || name === "CLUSTER_TIME") return true;
    if (name === "ROOT" || name === "CURRENT") return false;
    return constant?.(name);
  }
  const parts = Array.isArray(value) ? value : isPlainObject(value) ? value : undefined;
  if (!parts) return true;
  const first = Array.isArray(parts) ? undefined : Object.keys(parts)[0];
  if (first === "$literal") return true;
  if (first !== undefined && NOT_FOLDED.has(first)) return false;
  let known: boolean | undefined = true;
  for (const part of Object.values(parts)) {
    const c = constancy(part, constant);
    if (c === false) return false;
    if (c === undefined) known = undefined;
  }
  return known;
}

/** A value as MongoDB's messages print one of an expression's (`Value::toString`). */
function valueText(container: unknown, key: string): string {
  const value = (container as Record<string, unknown>)[key];
  if (typeof value === "string") return `"${value}"`;
  if (typeof value === "number") {
    const type = typeName(container, key);
    return type === "double" ? doubleText(value) : String(value);
  }
  if (value === null || value === undefined) return value === null ? "null" : "undefined";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "illegal date" : value.toISOString();
  if (Array.isArray(value)) return `[${value.map((_, i) => valueText(value, String(i))).join(", ")}]`;
  if (isPlainObject(value))
    return `{${Object.keys(value)
      .map((k) => `${k}: ${valueText(value, k)}`)
      .join(", ")}}`;
  const type = bsonType(value);
  if (type === "MinKey" || type === "MaxKey") return type;
  return String(value);
}

/** A double as C++'s stream prints one: six significant digits, an exponent beyond them. */
function doubleText(n: number): string {
  if (Number.isNaN(n)) return "nan";
  if (!Number.isFinite(n)) return n > 0 ? "inf" : "-inf";
  if (n === 0) return Object.is(n, -0) ? "-0" : "0";
  const exponent = Math.floor(Math.log10(Math.abs(Number(n.toPrecision(6)))));
  if (exponent < -4 || exponent >= 6) {
    const [mantissa, power] = n.toExponential(5).split("e");
    const digits = mantissa.replace(/\.?0+$/, "");
    const sign = power.startsWith("-") ? "-" : "+";
    return `${digits}e${sign}${power.replace(/^[-+]/, "").padStart(2, "0")}`;
  }
  return String(Number(n.toPrecision(6)));
}

/** MongoDB's checks of a field path (`FieldPath`), with its codes. */
/** A document as MongoDB's messages print one (`{ from: "c", as: "g" }`). */
function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[ ${value.map(shown).join(", ")} ]`;
  if (isPlainObject(value)) {
    const fields = Object.entries(value).map(([k, v]) => `${k}: ${shown(v)}`);
    return fields.length ? `{ ${fields.join(", ")} }` : "{}";
  }
  return String(value);
}

/**
 * MongoDB's `$sample`: at most `size` distinct documents in random order. mingo's draws with
 * replacement (repeating documents, and as many as `size` asks even from an empty collection),
 * so a pipeline's `$sample` stages, nested ones included, run as this stage instead.
 */
function sampleStage(coll: { transform(f: (xs: unknown[]) => unknown): unknown }, expr: { size: number }): unknown {
  return coll.transform((xs) => {
    const picked = xs.slice();
    const n = Math.min(Math.floor(expr.size), picked.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(Math.random() * (picked.length - i));
      [picked[i], picked[j]] = [picked[j], picked[i]];
    }
    return Lazy(picked.slice(0, n));
  });
}

/**
 * `$facet`, each sub-pipeline running on its own copy of the documents made as the server copies
 * a document (a BSON round trip): mingo's deep copy would turn a stored regular expression into a
 * plain RegExp, losing the options JavaScript has no flag for (bson-values.ts).
 */
function facetStage(
  coll: { transform(f: (xs: unknown[]) => unknown): unknown },
  expr: Record<string, Document[]>,
  options: Options,
): unknown {
  return coll.transform((xs) => {
    const out: Document = {};
    for (const key of Object.keys(expr)) {
      const copies = xs.map((x) => (isPlainObject(x) ? copyDocument(x as Document) : x));
      setField(out, key, new Aggregator(expr[key], options).run(copies));
    }
    return Lazy([out]);
  });
}

export const OWN_STAGES = { $__sample: sampleStage, $facet: facetStage };

/**
 * The pipeline with every `$sample` (also inside `$facet`, `$lookup`, `$unionWith`) as
 * {@link sampleStage}, and every `$match` with the server's own query operators (`$type`, `$all`,
 * documents compared in order: type-operators.ts).
 */
export function withOwnStages(pipeline: Document[]): Document[] {
  return pipeline.map((stage) => {
    if (!isPlainObject(stage)) return stage;
    if (isPlainObject(stage.$sample)) return { $__sample: stage.$sample };
    if (isPlainObject(stage.$match)) return { $match: rewriteTypeOperators(withPatterns(stage.$match) as Document) };
    if (isPlainObject(stage.$facet))
      return {
        $facet: Object.fromEntries(
          Object.entries(stage.$facet).map(([k, sub]) => [k, Array.isArray(sub) ? withOwnStages(sub) : sub]),
        ),
      };
    for (const name of ["$lookup", "$unionWith"]) {
      const spec = stage[name];
      if (isPlainObject(spec) && Array.isArray(spec.pipeline))
        return { [name]: { ...spec, pipeline: withOwnStages(spec.pipeline) } };
    }
    return stage;
  });
}
